//go:build !unix

package regfile

import "os"

func openNonblock(path string) (*os.File, error) { return os.Open(path) }
