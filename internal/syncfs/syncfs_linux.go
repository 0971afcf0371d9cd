//go:build linux

package syncfs

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Supported reports whether Sync is available on this platform.
const Supported = true

// Sync writes every dirty page and metadata change of the file system that
// holds dir to stable storage.
func Sync(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncfs: %w", err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("syncfs %s: %w", dir, err)
	}
	return nil
}
