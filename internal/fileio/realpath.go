package fileio

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// realPath is the real path of the open file f, opened as path: on Linux
// the link /proc/self/fd/N names the file that is open; elsewhere, and when
// /proc is not mounted, path with every link resolved.
func realPath(f *os.File, path string) (string, error) {
	if runtime.GOOS == "linux" {
		// the descriptor through SyscallConn: f.Fd would make it blocking
		var fd uintptr
		if sc, err := f.SyscallConn(); err == nil && sc.Control(func(d uintptr) { fd = d }) == nil {
			if r, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10)); err == nil && filepath.IsAbs(r) {
				return r, nil
			}
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
