//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package gcfloor

// memory is not known on this system: For gives UnknownFloor.
func memory() uint64 { return 0 }
