//go:build unix

package fileio

import "syscall"

// nonBlock opens a FIFO without waiting for a writer; it has no effect on
// regular files.
const nonBlock = syscall.O_NONBLOCK
