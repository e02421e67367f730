//go:build unix

package cache

import (
	"fmt"
	"os"
	"syscall"
)

// checkOwner makes sure that nobody else can write root, a directory of
// entries that will be trusted: it must belong to the user, and loses the
// write permission of the group and others when it has it (a directory
// the user made with a lax umask). A directory of another user is refused:
// whoever owns it could plant entries whose key and checksum check out,
// views of files ctx would send as they are.
func checkOwner(root string) error {
	st, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", root)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user (uid %d)", root, sys.Uid)
	}
	if st.Mode().Perm()&0o022 != 0 {
		if err := os.Chmod(root, st.Mode().Perm()&^0o077); err != nil {
			return err
		}
	}
	return nil
}
