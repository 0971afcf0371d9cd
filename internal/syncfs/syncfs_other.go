//go:build !linux

package syncfs

import "errors"

// Supported reports whether Sync is available on this platform.
const Supported = false

// Sync is not available on this platform; callers fsync each file instead.
func Sync(dir string) error { return errors.ErrUnsupported }
