//go:build linux

package atomicfile

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Exchange atomically swaps the directory entries a and b, which must both
// exist (renameat2 with RENAME_EXCHANGE). It fails with errors.ErrUnsupported
// where the file system cannot do it.
func Exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return errors.ErrUnsupported
	}
	if err != nil {
		return fmt.Errorf("atomicfile: exchange %s and %s: %w", a, b, err)
	}
	return nil
}
