package table

import (
	"os"

	"golang.org/x/sys/unix"
)

// evict drops the file's pages from the page cache.
func evict(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED) == nil
}
