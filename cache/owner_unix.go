//go:build unix

package cache

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkModes: on Unix, the mode bits say who may write a file.
const checkModes = true

// fileOwner returns the user who owns the file info describes.
func fileOwner(info fs.FileInfo) (int, bool) {
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(sys.Uid), true
	}
	return 0, false
}

// checkOwner makes sure that nobody else can write root, a directory of
// entries that will be trusted: it must belong to the user, and loses the
// write permission of the group and others when it has it (a directory
// the user made with a lax umask). A directory of another user is refused:
// whoever owns it could plant entries whose key and checksum check out,
// views of files ctx would send as they are. What others may have planted
// in it while they could write it is found by the checks of every folder
// and entry ([Dir.trust]).
func checkOwner(root string) error {
	st, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", root)
	}
	if uid, ok := fileOwner(st); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user (uid %d)", root, uid)
	}
	if st.Mode().Perm()&0o022 != 0 {
		if err := os.Chmod(root, st.Mode().Perm()&^0o077); err != nil {
			return err
		}
	}
	return nil
}
