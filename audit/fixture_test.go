package audit_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/goldenfile"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// The realistic fixture lives at these paths once the temporary directory
// is taken off, so that outputs do not depend on the machine.
const (
	fixtureHome    = "/home/dev"
	fixtureProject = "/home/dev/src/github.com/acme/shop-service-backend"
)

// realistic builds the manifest of a project as teams have them: a long
// AGENTS.md cut by a project budget (and over the per-source threshold),
// CLAUDE.md as a link to it, a shared file, a native file of the agent, extra
// sources declared in ctx.toml (one missing, one for another agent), and
// aggregated files with a token budget, a link to a file that is gone
// (a file error; a path that does not exist at all stops the build) and an
// orphaned slice. Its paths are those of fixtureHome and fixtureProject.
func realistic(t *testing.T) *manifest.Manifest {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := root + fixtureHome
	project := root + fixtureProject
	var agents strings.Builder
	agents.WriteString("# Shop service backend\n\n")
	for i := range 240 {
		agents.WriteString("- Rule " + strings.Repeat("x", i%7) + ": keep handlers small, test every endpoint, and log with the request id.\n")
	}
	var big strings.Builder
	for i := range 400 {
		big.WriteString("func handler" + strings.Repeat("a", i%5) + "() {}\n")
	}
	testfs.Write(t, home, map[string]string{
		".config/agents/GLOBAL.md":  "Be concise. Ask before deleting files.\n",
		".claude/settings-notes.md": "Claude loads this file natively.\n",
	})
	testfs.Write(t, project, map[string]string{
		"AGENTS.md": agents.String(),
		"docs/agents/team-conventions-for-payments-and-billing.md": "Amounts are integers in cents.\nNever log card numbers.\n",
		"internal/api/handlers.go":                                 "package api\n\n" + big.String(),
		"cmd/server/main.go":                                       "package main\n\nfunc main() {}\n",
		"README.md":                                                "# Shop\n\nThe shop service.\n",
	})
	if err := os.Symlink("AGENTS.md", filepath.Join(project, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("refunds.go", filepath.Join(project, "internal/api/missing_handler_for_refunds.go")); err != nil {
		t.Fatal(err)
	}
	p := func(s string) *string { return &s }
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{
			Agent: "claude", ProjectDir: project, Home: home, Getenv: func(string) string { return "" },
			NativePaths: []string{"~/.claude/settings-notes.md"},
			Extras: []discover.Extra{
				{ID: "payments-and-billing-team-conventions", Kind: "team", Path: p("docs/agents/team-conventions-for-payments-and-billing.md")},
				{ID: "deployment-runbook", Kind: "ops", Path: p("docs/agents/deployment-runbook-for-production-incidents.md")},
				{ID: "codex-sandbox-notes", Kind: "note", Text: p("Run tests with -short in the sandbox."), Audience: []string{"codex"}},
			},
		},
		Budgets: manifest.Budgets{{Name: "project", Budget: manifest.Budget{MaxLines: measure.Max(200)}}},
		Files: &aggregate.Options{Engine: codeview.Engine(),
			BaseDir: project,
			Files: []aggregate.FileItem{
				{Path: "cmd/server/main.go"},
				{Path: "internal/api/handlers.go"},
				{Path: "internal/api/missing_handler_for_refunds.go"},
				{Path: "README.md", ViewMode: "custom", CustomSlices: []slice.Slice{{Tag: "intro", StartLine: 7, EndLine: 9, ContentHash: measure.Hash([]byte("gone"))}}},
			},
			MaxFileTokens: measure.Max(1500),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(root), nil)
	m, err = manifest.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// golden compares got with testdata/name, or rewrites it with CTX_UPDATE=1.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// writeString runs audit.Write and returns the output.
func writeString(t *testing.T, rep *audit.Report, f audit.Format, o audit.WriteOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := audit.Write(&b, rep, f, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
