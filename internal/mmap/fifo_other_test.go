//go:build !unix

package mmap

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
