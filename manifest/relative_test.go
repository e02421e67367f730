package manifest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/render"
)

func TestRelativePath(t *testing.T) {
	for _, tc := range []struct{ p, want string }{
		{"/work/p", "."},
		{"/work/p/", "."},
		{"/work/p/AGENTS.md", "AGENTS.md"},
		{"/work/p/./a.md", "./a.md"},
		{"/work/p/../ws/USER.md", "../ws/USER.md"},
		{"/work/p/docs/x.md", "docs/x.md"},
		{"/work/p/~", "./~"},
		{"/work/p/~/x", "./~/x"},
		{"/work/px/a.md", "/work/px/a.md"}, // a sibling that starts alike
		{"/home/u", "~"},
		{"/home/u/.config/agents/GLOBAL.md", "~/.config/agents/GLOBAL.md"},
		{"/etc/agents.md", "/etc/agents.md"},
		{"relative/as/given.md", "relative/as/given.md"},
		{"~/x.md", "~/x.md"},
		{"", ""},
		{"global", "global"},
	} {
		if got := manifest.RelativePath(tc.p, "/work/p", "/home/u"); got != tc.want {
			t.Errorf("RelativePath(%q) = %q, want %q", tc.p, got, tc.want)
		}
		if strings.HasPrefix(tc.p, "/") && tc.p != "/work/p/" {
			// the same file (a file named ~ comes back as "<project>/./~")
			if back := manifest.ResolvePath(tc.want, "/work/p", "/home/u"); filepath.Clean(back) != filepath.Clean(tc.p) {
				t.Errorf("ResolvePath(%q) = %q, want %q", tc.want, back, tc.p)
			}
		}
	}
	// a project inside home is relative to the project, not to home
	if got := manifest.RelativePath("/home/u/p/a.md", "/home/u/p", "/home/u"); got != "a.md" {
		t.Errorf("got %q", got)
	}
	// no home: only the project is shortened
	if got := manifest.RelativePath("/home/u/a.md", "/work/p", ""); got != "/home/u/a.md" {
		t.Errorf("got %q", got)
	}
}

// relFixture is a project with every kind of path a manifest records:
// natives (one a duplicate of an extra source), discovered files, a
// workspace outside the project, the shared file in the home directory, an
// extra source spelled "./", a text source, a budget named by a native's
// id, and aggregated files.
func relFixture(t *testing.T, root, home string) manifest.Options {
	t.Helper()
	testfs.Write(t, root, map[string]string{
		"p/AGENTS.md":     "# Rules\nRun the tests.\n",
		"p/NATIVE.md":     "Loaded by the agent.\n",
		"p/docs/style.md": "Short lines.\n",
		"p/src/app.py":    "def main():\n    return 1\n",
		"ws/USER.md":      "The user.\n",
	})
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, home, map[string]string{".config/agents/GLOBAL.md": "Be kind.\n"})
	project := filepath.Join(root, "p")
	return manifest.Options{
		Discover: discover.Options{
			Agent: "claude", ProjectDir: project, Home: home, WorkspaceDir: "../ws",
			NativePaths: []string{"NATIVE.md"}, Getenv: func(string) string { return "" },
			Extras: []discover.Extra{
				{ID: "style", Kind: "memory", Path: str("./docs/style.md")},
				{ID: "again", Kind: "memory", Path: str("NATIVE.md")},
				{ID: "note", Kind: "memory", Text: str("A note.\n")},
			},
		},
		Budgets: manifest.Budgets{budget("native:"+project+"/NATIVE.md", lim(10), noLimit), budget("memory", noLimit, lim(5))},
		Files:   &aggregate.Options{Engine: codeview.Engine(), BaseDir: project, Files: []aggregate.FileItem{{Path: "src/**/*.py"}}},
	}
}

func TestRelativize(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	o := relFixture(t, root, home)
	abs := build(t, o)
	o.RelativePaths = true
	rel := build(t, o)
	if abs.Relative() || !rel.Relative() {
		t.Fatalf("Relative: abs %v, rel %v", abs.Relative(), rel.Relative())
	}
	if rel.ProjectDir != "." {
		t.Errorf("project_dir = %q", rel.ProjectDir)
	}
	want := map[string][4]string{ // id → requested_path, path, canonical_path, scope
		"native:NATIVE.md": {"NATIVE.md", "NATIVE.md", "NATIVE.md", ""},
		"shared":           {"~/.config/agents/GLOBAL.md", "~/.config/agents/GLOBAL.md", "~/.config/agents/GLOBAL.md", "global"},
		"project_agents":   {"AGENTS.md", "AGENTS.md", "AGENTS.md", "."},
		"project_claude":   {"CLAUDE.md", "CLAUDE.md", "CLAUDE.md", "."},
		// the workspace is outside the project: joined paths keep their
		// spelling, the resolved ones are absolute (root is not home)
		"workspace_user": {"../ws/USER.md", "../ws/USER.md", root + "/ws/USER.md", root + "/ws"},
		"workspace_soul": {"../ws/SOUL.md", "../ws/SOUL.md", "../ws/SOUL.md", root + "/ws"},
		"style":          {"./docs/style.md", "./docs/style.md", "docs/style.md", ""},
		"again":          {"NATIVE.md", "NATIVE.md", "NATIVE.md", ""},
		"note":           {"", "", "", ""},
	}
	if len(rel.Sources) != len(want) {
		t.Fatalf("%d sources, want %d", len(rel.Sources), len(want))
	}
	for i, s := range rel.Sources {
		w, ok := want[s.ID]
		if !ok {
			t.Errorf("unexpected source %q", s.ID)
			continue
		}
		if got := [4]string{s.RequestedPath, s.Path, s.CanonicalPath, s.Scope}; got != w {
			t.Errorf("%s: got %q, want %q", s.ID, got, w)
		}
		// everything but the paths and ids is what the absolute manifest records
		a := abs.Sources[i]
		if a.SourceHash != nil && *a.SourceHash != *s.SourceHash || a.Reason != s.Reason || a.Included != s.Included ||
			a.EmittedBytes != nil && *a.EmittedBytes != *s.EmittedBytes || a.Budget != strings.Replace(s.Budget, "native:NATIVE.md", "native:"+abs.ProjectDir+"/NATIVE.md", 1) {
			t.Errorf("%s differs beyond paths:\n%+v\n%+v", s.ID, a, s)
		}
	}
	// references to a native's id follow it
	if s := row(t, rel, "again"); s.DuplicateOf != "native:NATIVE.md" || s.Reason != manifest.ReasonNativeAutoload {
		t.Errorf("again: duplicate_of %q, reason %q", s.DuplicateOf, s.Reason)
	}
	if _, ok := rel.Fragments.Get("native:NATIVE.md"); !ok {
		t.Errorf("no fragment under the relative native id: %v", rel.Fragments)
	}
	if _, ok := rel.Budgets.Get("native:NATIVE.md"); !ok {
		t.Errorf("the budget named by the native's id was not renamed: %v", rel.Budgets)
	}
	if render.Text(rel) != render.Text(abs) {
		t.Errorf("relative paths change the rendered text")
	}
	if len(rel.Files) != 1 || rel.Files[0].Path != "src/app.py" {
		t.Errorf("files: %+v", rel.Files)
	}
	// relativizing does not touch its argument, and a relative manifest stays as it is
	before, _ := manifest.Marshal(abs)
	again, err := manifest.Relativize(abs, home)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := manifest.Marshal(abs); !bytes.Equal(before, after) {
		t.Errorf("Relativize changed its argument")
	}
	b1, b2 := encode(t, rel), encode(t, again)
	if !bytes.Equal(b1, b2) {
		t.Errorf("Relativize(Build) differs from Build with RelativePaths")
	}
	twice, err := manifest.Relativize(rel, "/elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, twice), b1) {
		t.Errorf("relativizing a relative manifest changed it")
	}
}

// TestRelativeClones builds the same project in two clones, in different
// directories and under different home directories: the relative
// manifests are byte-identical, the absolute ones are not.
func TestRelativeClones(t *testing.T) {
	var outs, absOuts [][]byte
	for _, layout := range []struct{ root, home string }{{"a", "a/home"}, {"b/deeper/still", "elsewhere/h"}} {
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(base, layout.root)
		o := relFixture(t, root, filepath.Join(base, layout.home))
		// the workspace is inside the project here, so that every path is
		// below the project or home
		o.Discover.WorkspaceDir = "ws"
		testfs.Write(t, root, map[string]string{"p/ws/USER.md": "The user.\n"})
		m := build(t, o)
		absOuts = append(absOuts, encode(t, m))
		o.RelativePaths = true
		outs = append(outs, encode(t, build(t, o)))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("relative manifests of two clones differ:\n%s\n%s", outs[0], outs[1])
	}
	if bytes.Equal(absOuts[0], absOuts[1]) {
		t.Errorf("absolute manifests of two clones are identical: the test proves nothing")
	}
	if bytes.Contains(outs[0], []byte(os.TempDir())) {
		t.Errorf("a relative manifest names the temporary directory:\n%s", outs[0])
	}
}

func TestRelativeWithoutPathsIsUnchanged(t *testing.T) {
	dir := project(t, map[string]string{"AGENTS.md": "a\n"})
	m := build(t, opts(dir, file("x", "memory", "AGENTS.md")))
	b := encode(t, m)
	if bytes.Contains(b, []byte(`"paths"`)) {
		t.Errorf("an absolute manifest has a paths field:\n%s", b)
	}
	m, err := manifest.Build(context.Background(), func() manifest.Options {
		o := opts(dir, file("x", "memory", "AGENTS.md"))
		o.RelativePaths = true
		return o
	}())
	if err != nil {
		t.Fatal(err)
	}
	if b := encode(t, m); !bytes.Contains(b, []byte(`"paths": "relative"`)) {
		t.Errorf("a relative manifest lacks its marker:\n%s", b)
	}
}

func TestReadSource(t *testing.T) {
	dir := project(t, map[string]string{"ok.md": "text\n", "blank.md": " \n", "bad.md": "\xff", "sub/": ""})
	for _, tc := range []struct {
		name  string
		max   int64
		want  manifest.Status
		bytes bool
	}{
		{"ok.md", 0, manifest.StatusAvailable, true},
		{"blank.md", 0, manifest.StatusEmpty, true},
		{"bad.md", 0, manifest.StatusUnreadable, false},
		{"sub", 0, manifest.StatusUnreadable, false},
		{"none.md", 0, manifest.StatusMissing, false},
		{"ok.md/x", 0, manifest.StatusMissing, false},
		{"ok.md", 2, manifest.StatusUnreadable, false},
	} {
		st, b := manifest.ReadSource(filepath.Join(dir, tc.name), tc.max)
		if st != tc.want || (b != nil) != tc.bytes {
			t.Errorf("%s (max %d): %s, bytes %v; want %s, %v", tc.name, tc.max, st, b != nil, tc.want, tc.bytes)
		}
	}
}
