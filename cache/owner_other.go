//go:build !unix

package cache

import (
	"fmt"
	"os"
)

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
