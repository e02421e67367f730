//go:build !unix

package cache

import (
	"fmt"
	"io/fs"
	"os"
)

// checkModes: on other systems the mode bits do not say who may write a
// file (Windows shows every directory as 0777), so they are not checked.
const checkModes = false

// fileOwner does not know the owner of a file on these systems.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }

// checkOwner makes sure that root is a directory; the systems that are not
// Unix keep a user's cache directory, under the user's profile, to the
// user.
func checkOwner(root string) error {
	st, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", root)
	}
	return nil
}
