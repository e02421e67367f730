package manifest_test

import (
	"path/filepath"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
)

// The loaded bytes and tokens of a native are those of the text the agent
// keeps: Claude Code leaves out a memory file's frontmatter and HTML
// comments; Codex cuts at 32 KiB.
func TestProfileLoadedIsKept(t *testing.T) {
	const file = "---\ntitle: rules\n---\n# Rules\nRule one.\n<!--\nNotes for the maintainers, many words the agent never reads.\n-->\nRule two.\n"
	const kept = "# Rules\nRule one.\nRule two.\n"
	dir := project(t, map[string]string{".git/HEAD": "", "CLAUDE.md": file})
	none := func(string) string { return "" }
	m := build(t, manifest.Options{
		Discover:       discover.Options{ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled, Getenv: none},
		Profile:        profile.Claude,
		ProfileOptions: profile.Options{ManagedDir: filepath.Join(dir, "no-managed")},
	})
	p := m.Profile
	if p == nil || len(p.Files) != 1 {
		t.Fatalf("profile record %+v", p)
	}
	f := p.Files[0]
	if want := measure.Default().Tokens([]byte(kept)); f.LoadedBytes != len(kept) || f.LoadedTokens != want || f.CutBytes != len(file)-len(kept) {
		t.Errorf("loaded %d bytes %d tokens, cut %d; want %d bytes %d tokens, cut %d", f.LoadedBytes, f.LoadedTokens, f.CutBytes, len(kept), want, len(file)-len(kept))
	}
}
