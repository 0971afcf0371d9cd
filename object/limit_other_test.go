//go:build !unix

package object

import "testing"

// limitFiles skips the test: this system has no limit of open files to
// lower.
func limitFiles(t *testing.T, n uintptr) (restore func()) {
	t.Skip("no limit of open files on this system")
	return nil
}
