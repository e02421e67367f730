package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
)

func codes(rep *audit.Report) map[audit.Code][]audit.Finding {
	out := map[audit.Code][]audit.Finding{}
	for _, f := range rep.Findings {
		out[f.Code] = append(out[f.Code], f)
	}
	return out
}

// TestOutsideProject: a source that a link leads out of the project is
// outside_project, naming the real path, in absolute and relative
// manifests; the shared file (in the home directory) is not.
func TestOutsideProject(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "repo")
	home := filepath.Join(root, "home")
	for p, s := range map[string]string{
		filepath.Join(root, "host", "passwd"):                 "root:x:0:0\n",
		filepath.Join(home, ".config", "agents", "GLOBAL.md"): "# shared\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../host/passwd", filepath.Join(project, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	for _, relative := range []bool{false, true} {
		m, err := manifest.Build(context.Background(), manifest.Options{
			Discover:      discover.Options{Agent: "codex", ProjectDir: project, Home: home, Getenv: func(string) string { return "" }},
			Budgets:       manifest.Budgets{},
			RelativePaths: relative,
		})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
		if err != nil {
			t.Fatal(err)
		}
		c := codes(rep)
		out := c[audit.CodeOutsideProject]
		if len(out) != 1 || out[0].SourceID != discover.IDProjectAgents || filepath.Base(out[0].RelatedID) != "passwd" {
			t.Errorf("relative %v: outside_project %+v", relative, out)
		}
	}
}

func TestNULBytes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("rules\x00\x00\x00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{Agent: "codex", ProjectDir: dir, Home: t.TempDir(), SharedMode: discover.SharedDisabled},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	nul := codes(rep)[audit.CodeNULBytes]
	if len(nul) != 1 || nul[0].RelatedID != "3" || nul[0].Severity != audit.Warning ||
		nul[0].Message != "3 NUL bytes are sent as they are; many agents stop reading at the first" {
		t.Errorf("nul_bytes %+v", nul)
	}
}

// The GitHub format never writes a control character: a name holding an
// escape sequence is shown escaped.
func TestGitHubEscapesControls(t *testing.T) {
	rep := &audit.Report{Findings: []audit.Finding{{SourceID: "id\x1b]0;T\x07", Code: audit.CodeMissing, Severity: audit.Warning,
		Message: "a\x1b[31mred.md does not exist"}}}
	var b strings.Builder
	if err := audit.Write(&b, rep, audit.FormatGitHub, audit.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `id\x1b]0;T\x07: a\x1b[31mred.md`) {
		t.Errorf("github output %q", out)
	}
}
