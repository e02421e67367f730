//go:build unix

package aggregate

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/internal/testwait"
)

// A .gitignore that is a FIFO (or anything else that cannot be read) stops
// a glob with an error, at once: ignoring it would let ignored files
// through, and opening it plainly would hang.
func TestUnreadableGitIgnore(t *testing.T) {
	for _, where := range []string{".gitignore", "sub/.gitignore"} {
		dir := tree(t, map[string]string{"a.py": "A = 1\n", "sub/b.py": "B = 2\n", ".env": "SECRET=1\n"})
		if err := syscall.Mkfifo(filepath.Join(dir, where), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "**"}}})
			done <- err
		}()
		if err := testwait.Recv(t, done, where+" as a FIFO"); err == nil || !strings.Contains(err.Error(), where+": not a regular file") {
			t.Errorf("%s as a FIFO: %v", where, err)
		}
	}
}
