package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"
)

// monorepo is a repository written for five agents: a 40 KiB AGENTS.md
// (over Codex's 32 KiB), CLAUDE.md and GEMINI.md beside it and in a
// package, Cursor rules always applied, by globs and on request, Copilot's
// repository and path-specific instructions, and a blank AGENTS.md.
func monorepo() map[string]string {
	agents := "# Rules\n" + strings.Repeat("- keep it small and tested\n", 1600)
	return map[string]string{
		".git/HEAD":                               "ref: refs/heads/main\n",
		"AGENTS.md":                               agents[:40<<10],
		"CLAUDE.md":                               "# Claude\n",
		"GEMINI.md":                               "# Gemini\n@docs/style.md\n",
		"docs/style.md":                           "Style.\n",
		"packages/api/AGENTS.md":                  "api\n",
		"packages/api/CLAUDE.md":                  "api claude\n",
		"packages/api/GEMINI.md":                  "api gemini\n",
		"packages/web/AGENTS.md":                  "  \n",
		".cursor/rules/always.mdc":                "---\nalwaysApply: true\n---\nAlways.\n",
		".cursor/rules/backend/ts.mdc":            "---\nglobs: src/**/*.ts\n---\nTS.\n",
		".cursor/rules/ask.mdc":                   "---\ndescription: migrations\n---\nAsk.\n",
		".github/copilot-instructions.md":         "Copilot.\n",
		".github/instructions/py.instructions.md": "---\napplyTo: \"**/*.py\"\n---\nPython.\n",
	}
}

// cells shows the row of a matrix file in the agents' order, each cell
// with what the matrix says of it.
func cells(mx *audit.Matrix, f audit.MatrixFile) string {
	var out []string
	for _, a := range mx.Agents {
		c := f.Agents[a]
		s := string(c.Reach)
		switch c.Reach {
		case audit.ReachCut:
			s = fmt.Sprintf("cut %d", c.LoadedBytes)
		case audit.ReachConditional:
			s = "if " + c.Short
		case audit.ReachSkipped:
			s = "skipped for " + c.By
		}
		if c.ImportedBy != "" {
			s += " <- " + c.ImportedBy
		}
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}

// TestAgents: each instruction file of a tree against each agent, from
// the working directory the agents start in.
func TestAgents(t *testing.T) {
	t.Parallel()
	withOverride := monorepo()
	withOverride["AGENTS.override.md"] = "Override.\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		sub   string // the working directory, below the tree
		want  []string
	}{
		{"monorepo from its root", monorepo(), "", []string{
			// codex | claude | gemini | copilot | cursor
			"AGENTS.md: cut 32768 | skipped for CLAUDE.md | never | loaded | loaded",
			"CLAUDE.md: never | loaded | never | loaded | never",
			"GEMINI.md: never | never | loaded | loaded | never",
			".cursor/rules/always.mdc: never | never | never | never | loaded",
			".cursor/rules/ask.mdc: never | never | never | never | if on request",
			".cursor/rules/backend/ts.mdc: never | never | never | never | if globs src/**/*.ts",
			".github/copilot-instructions.md: never | never | never | loaded | never",
			".github/instructions/py.instructions.md: never | never | never | if applyTo **/*.py | never",
			"docs/style.md: never | never | loaded <- GEMINI.md | never | never",
			"packages/api/AGENTS.md: if in its folder | never | never | if in its folder | if in its folder",
			"packages/api/CLAUDE.md: never | if in its folder | never | never | never",
			"packages/api/GEMINI.md: never | never | if in its folder | never | never",
			"packages/web/AGENTS.md: blank | never | never | blank | blank",
		}},
		{"a package: the root's files above it, Codex's 32 KiB used up by the root's", monorepo(), "packages/api", []string{
			"../../AGENTS.md: cut 32768 | skipped for ../../CLAUDE.md | never | loaded | loaded",
			"../../CLAUDE.md: never | loaded | never | loaded | never",
			"../../GEMINI.md: never | never | loaded | loaded | never",
			"../../.cursor/rules/always.mdc: never | never | never | never | loaded",
			"../../.cursor/rules/ask.mdc: never | never | never | never | if on request",
			"../../.cursor/rules/backend/ts.mdc: never | never | never | never | if globs src/**/*.ts",
			"../../.github/copilot-instructions.md: never | never | never | loaded | never",
			"../../.github/instructions/py.instructions.md: never | never | never | if applyTo **/*.py | never",
			"../../docs/style.md: never | never | loaded <- ../../GEMINI.md | never | never",
			"AGENTS.md: cut 0 | skipped for ../../CLAUDE.md | never | never | never",
			"CLAUDE.md: never | loaded | never | never | never",
			"GEMINI.md: never | never | loaded | never | never",
		}},
		{"Codex reads AGENTS.override.md instead", withOverride, "", nil},
		{"no instruction file", map[string]string{".git/HEAD": "", "main.go": "package main\n"}, "", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, err := filepath.EvalSymlinks(testfs.Tree(t, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			mx, err := audit.Agents(context.Background(), manifest.Options{Discover: discover.Options{
				ProjectDir: filepath.Join(dir, tc.sub), Home: t.TempDir(), Getenv: func(string) string { return "" }}})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(mx.Agents, []profile.Name{"codex", "claude", "gemini", "copilot", "cursor"}) {
				t.Errorf("agents %v", mx.Agents)
			}
			got := []string{}
			for _, f := range mx.Files {
				got = append(got, f.Path+": "+cells(mx, f))
			}
			if tc.want == nil {
				// the override in Codex's column: AGENTS.md skipped for it
				want := map[string]string{
					"AGENTS.md":          "skipped for AGENTS.override.md | skipped for CLAUDE.md | never | loaded | loaded",
					"AGENTS.override.md": "loaded | never | never | never | never",
				}
				found := 0
				for _, g := range got {
					p, c, _ := strings.Cut(g, ": ")
					if w, ok := want[p]; ok {
						found++
						if c != w {
							t.Errorf("%s: %s, want %s", p, c, w)
						}
					}
				}
				if found != len(want) {
					t.Errorf("rows:\n%s", strings.Join(got, "\n"))
				}
				return
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, f := range mx.Files {
				if c := f.Agents[profile.Codex]; c.Reach == audit.ReachCut && c.LoadedBytes > 0 && f.Bytes != 40<<10 {
					t.Errorf("%s: %d bytes", f.Path, f.Bytes)
				}
			}
		})
	}
}

// The matrix for people fits the terminal with its legend, in markdown
// names the conditions in full, and as JSON is the Matrix itself.
func TestWriteMatrix(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, monorepo()))
	if err != nil {
		t.Fatal(err)
	}
	mx, err := audit.Agents(context.Background(), manifest.Options{Discover: discover.Options{
		ProjectDir: dir, Home: t.TempDir(), Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{80, 100} {
		var b strings.Builder
		if err := audit.WriteMatrix(&b, mx, audit.FormatTable, audit.WriteOptions{Width: width, Home: "/nonexistent"}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		checkWidth(t, out, width)
		for _, want := range []string{"| file ", "| codex ", "| cursor ", "cut at", "32,768", "skipped", "in folder", "if globs", "on request", "—: never seen"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: no %q in\n%s", width, want, out)
			}
		}
		if width == 100 && !strings.Contains(out, "| AGENTS.md ") || strings.Contains(out, "…") {
			t.Errorf("width %d: a path is cut:\n%s", width, out)
		}
	}
	var md strings.Builder
	if err := audit.WriteMatrix(&md, mx, audit.FormatMarkdown, audit.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| file | codex | claude | gemini | copilot | cursor |\n| --- | --- | --- | --- | --- | --- |\n",
		"| AGENTS.md | cut at 32,768 | skipped for CLAUDE.md | — | loaded | loaded |\n",
		"| .cursor/rules/backend/ts.mdc | — | — | — | — | if globs src/**/*.ts |\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("no %q in\n%s", want, md.String())
		}
	}
	var js strings.Builder
	if err := audit.WriteMatrix(&js, mx, audit.FormatJSON, audit.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var back audit.Matrix
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	back.Dir = mx.Dir
	if !reflect.DeepEqual(&back, mx) {
		t.Errorf("JSON is not the matrix:\n%s", js.String())
	}
	if !strings.Contains(js.String(), `"reach": "cut",
          "loaded_bytes": 32768`) {
		t.Errorf("JSON:\n%s", js.String())
	}
	for _, f := range []audit.Format{audit.FormatGitHub, audit.FormatSARIF, "xml"} {
		if err := audit.WriteMatrix(&js, mx, f, audit.WriteOptions{}); err == nil {
			t.Errorf("%s: no error", f)
		}
	}
}

// More files than FilesShown: the table folds those of one directory that
// every agent treats alike into one row with their count, and keeps a file
// treated otherwise on its own row; with details each has its row.
func TestWriteMatrixFolds(t *testing.T) {
	t.Parallel()
	files := monorepo()
	for i := range 30 {
		files[fmt.Sprintf(".claude/rules/backend/rule-%02d.md", i)] = "---\npaths: src/**/*.ts\n---\nRule.\n"
	}
	files[".claude/rules/backend/always.md"] = "Always.\n"
	// treated otherwise, and sorted among the others: the group is one row
	files[".claude/rules/backend/rule-15-always.md"] = "Always.\n"
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	mx, err := audit.Agents(context.Background(), manifest.Options{Discover: discover.Options{
		ProjectDir: dir, Home: t.TempDir(), Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := audit.WriteMatrix(&b, mx, audit.FormatTable, audit.WriteOptions{Width: 80, Home: "/nonexistent"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	checkWidth(t, out, 80)
	if n := strings.Count(out, "files)"); n != 2 {
		t.Errorf("%d folded rows, want the 30 rules and the two always-loaded ones:\n%s", n, out)
	}
	for _, want := range []string{"| .claude/ ", "(30 files)", "(2 files)", "32 files that every agent treats alike are folded"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "rule-07") {
		t.Errorf("a folded file has its row:\n%s", out)
	}
	b.Reset()
	if err := audit.WriteMatrix(&b, mx, audit.FormatTable, audit.WriteOptions{Width: 80, Details: true}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "folded") || !strings.Contains(out, "rule-07") {
		t.Errorf("with details, every file has its row:\n%s", out)
	}
}
