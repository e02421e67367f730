package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/goldenfile"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets/gitleaks"
)

// update rewrites the golden files of this package's tests, as in every
// package: CTX_UPDATE=1 go test ./report.
var update = goldenfile.Update()

// The fixtures live at these paths once the temporary directory is taken
// off, so that pages do not depend on the machine.
const (
	fixtureHome    = "/home/dev"
	fixtureProject = "/home/dev/src/example.com/shop"
)

// fixture is a project to report on: its manifest and audit, built in a
// temporary directory and read back with that directory taken off.
type fixture struct {
	name string
	m    *manifest.Manifest
	rep  *audit.Report
	home string // shown as ~
	// read reads a file at a path of the manifest (Options.ReadFile)
	read func(string) ([]byte, error)
}

// readerIn reads the file at a manifest's path p below root, as ctx
// report does.
func readerIn(root string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) { return SourceReader(root, "")(root + p) }
}

var (
	fixtureOnce sync.Once
	fixtureList []fixture
	// fixtureRoot holds the fixtures' files while the tests run; TestMain
	// removes it.
	fixtureRoot string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureRoot != "" {
		os.RemoveAll(fixtureRoot)
	}
	os.Exit(code)
}

// fixtures are the projects of the golden and browser tests, built once
// (the large one writes 2,000 files).
func fixtures(t *testing.T) []fixture {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctx-report-")
		if err != nil {
			t.Fatal(err)
		}
		fixtureRoot = dir
		fixtureList = []fixture{small(t), budgets(t), large(t)}
	})
	if len(fixtureList) != 3 {
		t.Fatal("the fixtures could not be built")
	}
	return fixtureList
}

// fixtureNamed is the fixture called name.
func fixtureNamed(t *testing.T, name string) fixture {
	t.Helper()
	for _, f := range fixtures(t) {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no fixture %s", name)
	return fixture{}
}

// buildFixture builds the manifest of o in root (o's paths already there), takes
// root off its paths and audits it.
func buildFixture(t *testing.T, name, root string, o manifest.Options, ao audit.Options) fixture {
	t.Helper()
	m, err := manifest.Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(root), nil)
	if m, err = manifest.Decode(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if ao.Secrets == nil {
		// as ctx report scans
		if ao.Secrets, err = gitleaks.Default(); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := audit.RunContext(context.Background(), m, ao)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{name: name, m: m, rep: rep, home: fixtureHome, read: readerIn(root)}
}

// dirs makes the fixture's home and project below a new directory of
// fixtureRoot.
func dirs(t *testing.T) (root, home, project string) {
	t.Helper()
	dir, err := os.MkdirTemp(fixtureRoot, "f")
	if err != nil {
		t.Fatal(err)
	}
	root, err = filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root, root + fixtureHome, root + fixtureProject
}

func strp(s string) *string { return &s }

// small has every kind of source: AGENTS.md with sections and a code
// fence, CLAUDE.md repeating it, a shared file, a workspace file, a native
// file, inline text, files in the full and skeleton views by directory, a
// screenshot, the Beads section and a chat history.
func small(t *testing.T) fixture {
	t.Helper()
	root, home, project := dirs(t)
	agents := "Preamble before any heading.\n\n# Shop\n\nThe shop service.\n\n## Build\n\n```sh\n# not a heading: a shell comment\ngo build ./...\n```\n\n" +
		"## Tests\n\n" + strings.Repeat("- every endpoint has a test, and every test names its endpoint.\n", 12) +
		"\n## Style\n\nKeep handlers small.\n\n### Names <script>alert(1)</script> & \x1b[31mred\x1b[0m\n\nShort names.\n"
	testfs.Write(t, home, map[string]string{
		".config/agents/GLOBAL.md": "# Shared\n\nBe concise.\n",
		".claude/notes.md":         "# Notes the agent loads\n\n" + strings.Repeat("Loaded natively, never sent twice.\n", 20),
		"ws/USER.md":               "# User\n\nAna prefers tables.\n",
	})
	var handlers strings.Builder
	handlers.WriteString("package api\n\n")
	for i := range 60 {
		fmt.Fprintf(&handlers, "// Handler%d serves one endpoint.\nfunc Handler%d(w int) int {\n\treturn w + %d\n}\n\n", i, i, i)
	}
	testfs.Write(t, project, map[string]string{
		"AGENTS.md":                     agents,
		"CLAUDE.md":                     agents,
		"cmd/server/main.go":            "package main\n\nfunc main() {}\n",
		"internal/api/handlers.go":      handlers.String(),
		"internal/api/routes.go":        "package api\n\n// Routes lists the endpoints.\nvar Routes = []string{\"/a\", \"/b\"}\n",
		"docs/<b>odd</b> & name.md":     "# Odd\n\nA file whose name is markup.\n",
		"docs/bell\a\x1b[31mred.md":     "# Bell\n\nA file whose name holds control characters.\n",
		"shots/home.png":                "\x89PNG\r\n\x1a\nnot really an image",
		".beads/issues.jsonl":           "{\"id\":\"s-1\",\"title\":\"Read the seed\",\"status\":\"closed\"}\n{\"id\":\"s-2\",\"title\":\"Write the report\",\"status\":\"in_progress\"}\n",
		"chat/history.json":             `{"messages": [{"id": "u1", "role": "user", "contentParts": [{"type": "text", "text": "Where do the tokens go?"}]}, {"id": "a1", "role": "assistant", "contentParts": [{"type": "text", "text": "Mostly into the handlers."}]}]}`,
		"docs/agents/payments-rules.md": "# Payments\n\nAmounts are integers in cents.\n",
	})
	o := manifest.Options{
		Discover: discover.Options{
			Agent: "claude", ProjectDir: project, Home: home, WorkspaceDir: home + "/ws", Getenv: func(string) string { return "" },
			NativePaths: []string{"~/.claude/notes.md"},
			Extras: []discover.Extra{
				{ID: "payments", Kind: "team", Path: strp("docs/agents/payments-rules.md")},
				{ID: "sandbox-note", Kind: "note", Text: strp("Run tests with -short in the sandbox.")},
			},
		},
		Files: &aggregate.Options{Engine: codeview.Engine(),
			BaseDir: project,
			Files: []aggregate.FileItem{
				{Path: "cmd/server/main.go"},
				{Path: "internal/api/handlers.go", ViewMode: aggregate.ViewSkeleton},
				{Path: "internal/api/routes.go"},
				{Path: "docs/<b>odd</b> & name.md"},
				{Path: "docs/bell\a\x1b[31mred.md"},
			},
			ScreenshotBaseDir: project,
			Screenshots:       []string{"shots/home.png"},
		},
		Beads:   &beads.Options{Path: ".beads", Name: ".beads"},
		History: &manifest.HistoryOptions{Path: "chat/history.json"},
	}
	return buildFixture(t, "small", root, o, audit.Options{Thresholds: audit.DefaultThresholds()})
}

// budgets has budget cuts by lines, chars and tokens, a budget used up,
// files degraded and omitted by the token budget, a credential and
// findings of every severity.
func budgets(t *testing.T) fixture {
	t.Helper()
	root, home, project := dirs(t)
	var agents strings.Builder
	agents.WriteString("# Rules\n\n")
	for i := range 300 {
		fmt.Fprintf(&agents, "- Rule %d: keep handlers small, test every endpoint, and log with the request id.\n", i)
		if i%60 == 59 {
			fmt.Fprintf(&agents, "\n## Part %d\n\n", i/60+2)
		}
	}
	var big strings.Builder
	big.WriteString("package store\n\n")
	for i := range 300 {
		fmt.Fprintf(&big, "// Get%d reads row %d.\nfunc Get%d(id int) (int, error) {\n\tif id < 0 {\n\t\treturn 0, nil\n\t}\n\treturn id * %d, nil\n}\n\n", i, i, i, i)
	}
	testfs.Write(t, home, map[string]string{})
	testfs.Write(t, project, map[string]string{
		"AGENTS.md":          agents.String(),
		"docs/team.md":       strings.Repeat("Team rule: write it down.\n", 40),
		"docs/ops.md":        strings.Repeat("Ops rule: page the on-call.\n", 40),
		"docs/tokens.md":     strings.Repeat("Token rule: count before sending.\n", 40),
		"internal/store.go":  big.String(),
		"internal/small.go":  "package store\n\nconst Small = 1\n",
		"config/deploy.env":  "AWS_KEY=" + "AKIA" + "JPJOMKEFOIUC5LGT" + "\n",
		"notes/changelog.md": strings.Repeat("- changed something\n", 200),
	})
	// a file error: a link to a file that is gone (a path that does not
	// exist at all stops the build)
	if err := os.Symlink("gone.go", filepath.Join(project, "internal/missing.go")); err != nil {
		t.Fatal(err)
	}
	o := manifest.Options{
		Discover: discover.Options{
			Agent: "codex", ProjectDir: project, Home: home, SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" },
			Extras: []discover.Extra{
				{ID: "team", Kind: "team", Path: strp("docs/team.md")},
				{ID: "ops", Kind: "team", Path: strp("docs/ops.md")},
				{ID: "tokens", Kind: "tokens", Path: strp("docs/tokens.md")},
				{ID: "runbook", Kind: "ops", Path: strp("docs/runbook.md")},
				{ID: "claude-only", Kind: "note", Text: strp("Only for Claude."), Audience: []string{"claude"}},
			},
		},
		Budgets: manifest.Budgets{
			{Name: "project", Budget: manifest.Budget{MaxLines: measure.Max(120)}},
			{Name: "team", Budget: manifest.Budget{MaxChars: measure.Max(1040)}},
			{Name: "tokens", Budget: manifest.Budget{MaxTokens: measure.Max(100)}},
			{Name: "note", Budget: manifest.Budget{MaxLines: measure.Max(10)}},
		},
		Files: &aggregate.Options{Engine: codeview.Engine(),
			BaseDir: project,
			Files: []aggregate.FileItem{
				{Path: "internal/store.go"},
				{Path: "internal/small.go"},
				{Path: "config/deploy.env"},
				{Path: "notes/changelog.md"},
				{Path: "internal/missing.go"},
			},
			MaxFileTokens: measure.Max(3000),
			MaxTokens:     measure.Max(110),
		},
	}
	return buildFixture(t, "budgets", root, o, audit.Options{Thresholds: audit.Thresholds{LayerTokens: measure.Max(1500), TotalTokens: measure.Max(6000)}})
}

// large is a generated project of 2,000 files in nested directories with
// sizes from a few bytes to tens of kilobytes: most tiles merge.
func large(t *testing.T) fixture {
	t.Helper()
	root, home, project := dirs(t)
	files := map[string]string{"AGENTS.md": "# Large\n\n" + strings.Repeat("A generated project.\n", 30)}
	seed := uint32(7)
	rnd := func() uint32 { seed = seed*1664525 + 1013904223; return seed >> 8 }
	for i := range 2000 {
		dir := fmt.Sprintf("pkg%02d/sub%d", rnd()%24, rnd()%5)
		if i%7 == 0 {
			dir = fmt.Sprintf("pkg%02d", rnd()%24)
		}
		size := 20 + int(rnd()%200)
		if rnd()%50 == 0 {
			size = 5000 + int(rnd()%30000)
		}
		files[fmt.Sprintf("%s/file%04d.txt", dir, i)] = strings.Repeat("x", size-1) + "\n"
	}
	testfs.Write(t, home, map[string]string{})
	testfs.Write(t, project, files)
	o := manifest.Options{
		Discover: discover.Options{Agent: "generic", ProjectDir: project, Home: home, SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
		Files:    &aggregate.Options{Engine: codeview.Engine(), BaseDir: project, Files: []aggregate.FileItem{{Path: "pkg*/**/*.txt"}}},
	}
	return buildFixture(t, "large", root, o, audit.Options{Thresholds: audit.DefaultThresholds(), NoSecrets: true})
}

// pageOf writes the report of f.
func pageOf(t *testing.T, f fixture) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(context.Background(), &b, f.m, f.rep, Options{Home: f.home, ReadFile: f.read}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// golden compares got with testdata/name, or rewrites it with CTX_UPDATE=1.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}
