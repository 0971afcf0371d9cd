//go:build !linux

package atomicfile

import "errors"

// Exchange is not available on this platform.
func Exchange(a, b string) error { return errors.ErrUnsupported }
