package profile

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Every condition of every profile has its few words: the files of
// subfolders by their folder, frontmatter by its key and value.
func TestShortCondition(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		".git/HEAD":                                    "",
		"AGENTS.md":                                    "root\n",
		"CLAUDE.md":                                    "root\n",
		"GEMINI.md":                                    "root\n",
		"pkg/api/AGENTS.md":                            "api\n",
		"pkg/api/CLAUDE.md":                            "api @../../docs/api.md\n",
		"pkg/api/GEMINI.md":                            "api\n",
		"docs/api.md":                                  "imported\n",
		".claude/rules/go.md":                          "---\npaths: \"**/*.go\"\n---\nGo.\n",
		".claude/rules/always.md":                      "Always.\n",
		".cursor/rules/ts.mdc":                         "---\nglobs: src/**/*.ts\n---\nTS.\n",
		".cursor/rules/ask.mdc":                        "---\ndescription: database migrations\n---\nAsk.\n",
		".cursor/rules/manual.mdc":                     "---\nalwaysApply: false\n---\nManual.\n",
		".cursor/rules/always.mdc":                     "---\nalwaysApply: true\n---\nAlways.\n",
		".github/copilot-instructions.md":              "all\n",
		".github/instructions/py.instructions.md":      "---\napplyTo: \"**/*.py\"\n---\nPython.\n",
		".github/instructions/nothing.instructions.md": "No applyTo.\n",
	})
	want := map[Name]map[string]string{
		Codex:   {"AGENTS.md": "", "pkg/api/AGENTS.md": "in its folder"},
		Claude:  {"CLAUDE.md": "", ".claude/rules/go.md": "paths **/*.go", ".claude/rules/always.md": "", "pkg/api/CLAUDE.md": "in its folder", "docs/api.md": "in pkg/api/"},
		Gemini:  {"GEMINI.md": "", "pkg/api/GEMINI.md": "in its folder"},
		Copilot: {"AGENTS.md": "", "CLAUDE.md": "", "GEMINI.md": "", ".github/copilot-instructions.md": "", ".github/instructions/py.instructions.md": "applyTo **/*.py", ".github/instructions/nothing.instructions.md": "manual", "pkg/api/AGENTS.md": "in its folder"},
		Cursor:  {"AGENTS.md": "", ".cursor/rules/ts.mdc": "globs src/**/*.ts", ".cursor/rules/ask.mdc": "on request", ".cursor/rules/manual.mdc": "manual", ".cursor/rules/always.mdc": "", "pkg/api/AGENTS.md": "in its folder"},
	}
	for name, files := range want {
		c, err := Load(context.Background(), name, Options{Dir: dir, Home: t.TempDir(), Getenv: noEnv})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range c.Files {
			rel, _ := filepath.Rel(dir, f.Path)
			got[filepath.ToSlash(rel)] = c.ShortCondition(f)
			if s := c.ShortCondition(f); f.Condition != "" && (s == "" || s == f.Condition && strings.Contains(s, "/")) {
				t.Errorf("%s %s: condition %q has no short form (%q)", name, rel, f.Condition, s)
			}
		}
		for p, w := range files {
			if g, ok := got[p]; !ok || g != w {
				t.Errorf("%s %s: %q (listed %v), want %q", name, p, g, ok, w)
			}
		}
		if len(got) != len(files) {
			t.Errorf("%s: files %v, want %v", name, got, files)
		}
	}
}
