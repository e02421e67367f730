package provenance_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"
	"github.com/ctxaudit/ctx/provenance"
)

// ctx diff says what changed for the agent: AGENTS.md grew, and Codex's
// own cut of it grew; ctx sends nothing in both.
func TestDiffAgentSide(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	line := "a rule for the agent, long enough to fill the file.\n"
	testfs.Write(t, dir, map[string]string{
		"repo/.git/HEAD":     "ref: refs/heads/main\n",
		"repo/AGENTS.md":     strings.Repeat(line, 500),
		"repo/svc/AGENTS.md": strings.Repeat(line, 40),
		"home/":              "",
	})
	o := manifest.Options{Profile: profile.Codex, Discover: discover.Options{Agent: "codex", ProjectDir: filepath.Join(dir, "repo/svc"),
		Home: filepath.Join(dir, "home"), SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }}}
	old := stored(t, o)
	testfs.Write(t, dir, map[string]string{"repo/svc/AGENTS.md": strings.Repeat(line, 240)})
	now := stored(t, o)
	rep, err := provenance.Diff(old, now, provenance.DiffOptions{Home: filepath.Join(dir, "home")})
	if err != nil {
		t.Fatal(err)
	}
	var svc *provenance.SourceDiff
	for i := range rep.Sources {
		if strings.HasSuffix(rep.Sources[i].ID, "svc/AGENTS.md") || rep.Sources[i].ID == "native:AGENTS.md" {
			svc = &rep.Sources[i]
		}
	}
	if svc == nil {
		t.Fatalf("no diff of svc/AGENTS.md: %+v", rep.Sources)
	}
	if !slices.Contains(svc.Changes, provenance.ChangeLoaded) || !slices.Contains(svc.Changes, provenance.ChangeAgentCut) {
		t.Errorf("changes %v, want loaded and agent_cut", svc.Changes)
	}
	if svc.Old.Native == nil || svc.New.Native == nil || svc.New.Native.CutBytes <= svc.Old.Native.CutBytes {
		t.Errorf("native %+v → %+v", svc.Old.Native, svc.New.Native)
	}
	if rep.New.NativeTokens <= rep.Old.NativeTokens || rep.New.AgentTokens != rep.New.EmittedTokens+rep.New.NativeTokens {
		t.Errorf("summary %+v → %+v", rep.Old, rep.New)
	}
	var b bytes.Buffer
	if err := provenance.WriteDiff(&b, rep, provenance.FormatTable, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"agent_cut", "bytes cut", "the agent gets:", "it loads"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
	t.Log(b.String())
}
