//go:build unix

package profile_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"
)

// A special file where an agent loads its memory is listed, recorded as
// unreadable and reported, never passed over in silence (nor read).
func TestSpecialFileInTheChain(t *testing.T) {
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{".git/HEAD": "", "CLAUDE.md": "# Rules\n"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"CLAUDE.local.md", ".claude/rules/r.md"} {
		full := filepath.Join(dir, p)
		testfs.Write(t, dir, map[string]string{filepath.Join(filepath.Dir(p), ".keep"): ""})
		if err := syscall.Mkfifo(full, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{ProjectDir: dir, Home: t.TempDir(), SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
		Profile:  profile.Claude,
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	unreadable := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Code == audit.CodeUnreadable {
			unreadable[f.SourceID] = true
		}
	}
	for _, p := range []string{"CLAUDE.local.md", ".claude/rules/r.md"} {
		if id := "native:" + filepath.Join(dir, p); !unreadable[id] {
			t.Errorf("%s: no unreadable finding (findings %+v)", p, rep.Findings)
		}
	}
}
