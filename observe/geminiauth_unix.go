//go:build unix

package observe

import (
	"os"
	"path/filepath"
	"syscall"
)

// isRoot reports whether ctx runs as root.
func isRoot() bool { return os.Geteuid() == 0 }

// secureSystemFile reports whether Gemini CLI would read system settings
// at p: p (if it exists) and every directory above it owned by root and
// not writable by group or others.
func secureSystemFile(p string) bool {
	if p == "" {
		return false
	}
	if _, err := os.Lstat(p); err != nil && !os.IsNotExist(err) {
		return false
	} else if err == nil && !rootOnly(p) {
		return false
	}
	for d := filepath.Dir(p); ; {
		if !rootOnly(d) {
			return false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return true
		}
		d = parent
	}
}

// rootOnly reports whether p is owned by root and not writable by group
// or others.
func rootOnly(p string) bool {
	st, err := os.Stat(p)
	if err != nil {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Uid == 0 && st.Mode().Perm()&0o022 == 0
}
