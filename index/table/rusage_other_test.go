//go:build !unix

package table

func minorFaults() int64 { return -1 }
