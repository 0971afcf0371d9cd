//go:build unix

package regfile

import "syscall"

// nonblock opens without waiting for a FIFO's writer; a regular file
// reads as ever.
const nonblock = syscall.O_NONBLOCK
