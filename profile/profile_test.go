package profile

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/internal/testfs"
)

// tree writes files below a fresh directory with symlinks resolved, so
// that paths compare as written.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func noEnv(string) string { return "" }

// got renders a chain compactly: one "path loaded/size [condition] <- importer" per file, and the issues.
func got(c *Chain, root string) (files, issues []string) {
	rel := func(p string) string {
		if r, err := filepath.Rel(root, p); err == nil {
			return filepath.ToSlash(r)
		}
		return p
	}
	for _, f := range c.Files {
		s := fmt.Sprintf("%s %d/%d", rel(f.Path), f.Loaded, f.Size)
		if f.Condition != "" {
			s += " [" + f.Condition + "]"
		}
		if f.ImportedBy != "" {
			s += " <- " + rel(f.ImportedBy) + " " + f.Import
		}
		files = append(files, s)
	}
	for _, i := range c.Issues {
		s := fmt.Sprintf("%s %s", i.Code, rel(i.Path))
		if i.Target != "" {
			t := i.Target
			for _, part := range strings.Split(t, " → ") {
				t = strings.ReplaceAll(t, part, rel(part))
			}
			s += " " + t
		}
		if i.Bytes != 0 || i.Limit != 0 {
			s += fmt.Sprintf(" %d/%d %s", i.Bytes, i.Limit, i.Unit)
		}
		issues = append(issues, s)
	}
	return files, issues
}

func check(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got  %q\nwant %q", what, got, want)
	}
}

// Codex (docs/agents_md.md; codex-rs core/src/project_doc.rs): the global
// file in CODEX_HOME (AGENTS.override.md, else AGENTS.md; the first
// non-empty one); then one file per directory from the Git root down to
// the working directory (AGENTS.override.md, AGENTS.md, fallback names),
// root first; project_doc_max_bytes (32 KiB) shared by the project files,
// the overflowing one cut mid-file and the rest dropped; empty files cost
// nothing; nothing above the Git root.
func TestCodex(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"codexhome/AGENTS.override.md": "  \n",
		"codexhome/AGENTS.md":          "global rules\n",
		"AGENTS.md":                    "above the git root: never read\n",
		"repo/.git/HEAD":               "ref: main\n",
		"repo/AGENTS.md":               strings.Repeat("r", 20000),
		"repo/CLAUDE.md":               "not a Codex file unless configured\n",
		"repo/sub/AGENTS.override.md":  strings.Repeat("o", 10000),
		"repo/sub/AGENTS.md":           "shadowed by the override\n",
		"repo/sub/deep/AGENTS.md":      "\n\n",
		"repo/sub/deep/cwd/CLAUDE.md":  strings.Repeat("c", 5000),
		"repo/sub/deep/cwd/more/x.md":  "below the working directory: never read\n",
	})
	getenv := func(k string) string {
		if k == "CODEX_HOME" {
			return filepath.Join(dir, "codexhome")
		}
		return ""
	}
	c, err := Load(context.Background(), Codex, Options{Dir: filepath.Join(dir, "repo/sub/deep/cwd"), Home: filepath.Join(dir, "home"),
		Getenv: getenv, CodexFallbackNames: []string{"CLAUDE.md"}})
	if err != nil {
		t.Fatal(err)
	}
	files, issues := got(c, dir)
	check(t, "files", files, []string{
		"codexhome/AGENTS.md 13/13",
		"repo/AGENTS.md 20000/20000",
		"repo/sub/AGENTS.override.md 10000/10000",
		"repo/sub/deep/AGENTS.md 0/2", // empty: skipped by Codex, costs nothing
		"repo/sub/deep/cwd/CLAUDE.md 2768/5000",
	})
	check(t, "issues", issues, []string{"agent_truncation repo/sub/deep/cwd/CLAUDE.md 2232/32768 bytes"})
	if c.Root != filepath.Join(dir, "repo") {
		t.Errorf("root %s", c.Root)
	}

	// without a Git root, only the working directory; a smaller limit cuts
	// earlier and drops what follows
	dir2 := tree(t, map[string]string{"a/AGENTS.md": "parent\n", "a/b/AGENTS.md": strings.Repeat("x", 100)})
	c, err = Load(context.Background(), Codex, Options{Dir: filepath.Join(dir2, "a/b"), Home: dir2, Getenv: noEnv, CodexMaxBytes: 40})
	if err != nil {
		t.Fatal(err)
	}
	files, issues = got(c, dir2)
	check(t, "no root", files, []string{"a/b/AGENTS.md 40/100"})
	check(t, "no root issues", issues, []string{"agent_truncation a/b/AGENTS.md 60/40 bytes"})
}

// Codex reads project_doc_max_bytes, project_doc_fallback_filenames and
// project_root_markers from its own config.toml when ctx is not told.
func TestCodexConfig(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"home/.codex/config.toml": "project_doc_max_bytes = 10\nproject_doc_fallback_filenames = [\"NOTES.md\"]\nproject_root_markers = [\".hg\"]\n",
		"repo/.hg/x":              "",
		"repo/NOTES.md":           "0123456789abcdef",
		"repo/sub/AGENTS.md":      "sub\n",
	})
	c, err := Load(context.Background(), Codex, Options{Dir: filepath.Join(dir, "repo/sub"), Home: filepath.Join(dir, "home"), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := got(c, dir)
	check(t, "files", files, []string{"repo/NOTES.md 10/16", "repo/sub/AGENTS.md 0/4"})
	if len(c.AgentConfig) != 1 {
		t.Errorf("agent config %v", c.AgentConfig)
	}

	// project_doc_max_bytes = 0 turns the project documents off (Codex
	// returns no project doc); the global file is read all the same
	dir = tree(t, map[string]string{
		"home/.codex/config.toml": "project_doc_max_bytes = 0\n",
		"home/.codex/AGENTS.md":   "global\n",
		"repo/.git/HEAD":          "",
		"repo/AGENTS.md":          "project\n",
	})
	o := Options{Dir: filepath.Join(dir, "repo"), Home: filepath.Join(dir, "home"), Getenv: noEnv}
	c, err = Load(context.Background(), Codex, o)
	if err != nil {
		t.Fatal(err)
	}
	files, issues := got(c, dir)
	check(t, "files with project_doc_max_bytes = 0", files, []string{"home/.codex/AGENTS.md 7/7"})
	check(t, "issues with project_doc_max_bytes = 0", issues, nil)
	o.CodexMaxBytes = CodexProjectDocsOff
	o.Home = filepath.Join(dir, "nohome")
	c, err = Load(context.Background(), Codex, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 0 {
		t.Errorf("CodexProjectDocsOff: %+v", c.Files)
	}
}

// Claude Code (memory docs): managed policy, user memory, then from / down
// to the working directory each directory's CLAUDE.md, .claude/CLAUDE.md,
// (AGENTS.md where the chain has no CLAUDE.md, 2.1.277+), .claude/rules/*.md
// and CLAUDE.local.md; @path imports after the importing file, four hops,
// inside the working directory unless approved, not in code spans or
// blocks, cycles detected; a warning above 40,000 characters. (Held
// against Claude Code 2.1.328 by observe's TestProfilesMatchAgents.)
func TestClaude(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("w", 40001)
	dir := tree(t, map[string]string{
		"managed/CLAUDE.md":             "policy\n",
		"home/.claude/CLAUDE.md":        "user memory\n",
		"home/.claude/rules/style.md":   "---\npaths: [\"**/*.go\"]\n---\nuse gofmt\n",
		"a/CLAUDE.md":                   "# A\nSee @docs/x.md and `@in-span.md` and mail me@example.com or ask @alice.\nThen @see.\n```\n@in-block.md\n```\n",
		"a/see":                         "a file without an extension\n",
		"a/AGENTS.md":                   "not read: a has a CLAUDE.md\n",
		"a/docs/x.md":                   "x imports @../CLAUDE.md (a cycle) and @missing.md and @i1.md\n",
		"a/docs/i1.md":                  "@i2.md\n",
		"a/docs/i2.md":                  "@i3.md\n",
		"a/docs/i3.md":                  "@i4.md\n",
		"a/docs/i4.md":                  "@i5.md\n",
		"a/docs/i5.md":                  "@i6.md\n",
		"a/docs/i6.md":                  "too deep\n",
		"a/b/.claude/CLAUDE.md":         big,
		"a/b/.claude/rules/testing.md":  "run go test\n",
		"a/b/CLAUDE.local.md":           "local\n",
		"a/b/c/AGENTS.md":               "read instead of a missing CLAUDE.md\n",
		"a/b/c/AGENTS.override.md":      "never read by Claude Code\n",
		"a/b/c/below/CLAUDE.md":         "below the working directory: loaded lazily, not at start\n",
		"a/b/c/.claude/settings.json":   "{}",
		"a/b/c/docs/not-imported.md":    "x\n",
		"a/b/c/.claude/rules/README.md": "rule in c\n",
	})
	o := Options{Dir: filepath.Join(dir, "a/b/c"), Home: filepath.Join(dir, "home"), ManagedDir: filepath.Join(dir, "managed"), Getenv: noEnv}
	c, err := Load(context.Background(), Claude, o)
	if err != nil {
		t.Fatal(err)
	}
	// the imports of a/CLAUDE.md name files outside the working
	// directory, which the user has not approved; a/CLAUDE.md turns
	// a/b/c/AGENTS.md off
	files, issues := got(c, dir)
	check(t, "files", files, []string{
		"managed/CLAUDE.md 7/7",
		"home/.claude/CLAUDE.md 12/12",
		"home/.claude/rules/style.md 10/37 [paths: **/*.go]", // Claude Code sends a rule without its frontmatter
		"a/CLAUDE.md 108/108",
		"a/b/.claude/CLAUDE.md 40001/40001",
		"a/b/.claude/rules/testing.md 12/12",
		"a/b/CLAUDE.local.md 6/6",
		"a/b/c/.claude/rules/README.md 10/10",
		"a/b/c/below/CLAUDE.md 57/57 [Claude reads a file in below/]",
	})
	check(t, "issues", issues, []string{
		"import_missing a/CLAUDE.md @docs/x.md",
		"import_missing a/CLAUDE.md @see.",
		"over_agent_limit a/b/.claude/CLAUDE.md 40001/40000 chars",
	})

	// approved: four hops, a cycle, a missing file
	approved := true
	o.ClaudeExternalImports = &approved
	c, err = Load(context.Background(), Claude, o)
	if err != nil {
		t.Fatal(err)
	}
	files, issues = got(c, dir)
	check(t, "files, external imports approved", files, []string{
		"managed/CLAUDE.md 7/7",
		"home/.claude/CLAUDE.md 12/12",
		"home/.claude/rules/style.md 10/37 [paths: **/*.go]",
		"a/CLAUDE.md 108/108",
		"a/docs/x.md 61/61 <- a/CLAUDE.md @docs/x.md",
		"a/docs/i1.md 7/7 <- a/docs/x.md @i1.md",
		"a/docs/i2.md 7/7 <- a/docs/i1.md @i2.md",
		"a/docs/i3.md 7/7 <- a/docs/i2.md @i3.md", // the fourth hop
		"a/b/.claude/CLAUDE.md 40001/40001",
		"a/b/.claude/rules/testing.md 12/12",
		"a/b/CLAUDE.local.md 6/6",
		"a/b/c/.claude/rules/README.md 10/10",
		"a/b/c/below/CLAUDE.md 57/57 [Claude reads a file in below/]",
	})
	check(t, "issues, external imports approved", issues, []string{
		"import_cycle a/docs/x.md a/CLAUDE.md → a/docs/x.md → a/CLAUDE.md",
		"import_missing a/docs/x.md @missing.md",
		"import_too_deep a/docs/i3.md @i4.md 0/4 ",
		"import_missing a/CLAUDE.md @see.",
		"over_agent_limit a/b/.claude/CLAUDE.md 40001/40000 chars",
	})

	// a project without CLAUDE.md reads its AGENTS.md files instead
	dir = tree(t, map[string]string{
		"p/AGENTS.md":            "root\n",
		"p/.claude/AGENTS.md":    "dot claude\n",
		"p/AGENTS.override.md":   "never read\n",
		"p/s/AGENTS.md":          "sub\n",
		"p/s/deeper/CLAUDE.md":   "below the working directory\n",
		"home/.claude/CLAUDE.md": "the user's own\n",
	})
	c, err = Load(context.Background(), Claude, Options{Dir: filepath.Join(dir, "p/s"), Home: filepath.Join(dir, "home"),
		ManagedDir: filepath.Join(dir, "none"), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	files, _ = got(c, dir)
	check(t, "files of a project without CLAUDE.md", files, []string{
		"home/.claude/CLAUDE.md 15/15",
		"p/AGENTS.md 5/5",
		"p/.claude/AGENTS.md 11/11",
		"p/s/AGENTS.md 4/4",
		"p/s/deeper/CLAUDE.md 28/28 [Claude reads a file in deeper/]",
	})

	if len(Detect(tree(t, map[string]string{"AGENTS.md": "only"}))) != 0 {
		t.Error("AGENTS.md alone marks no agent")
	}
}

// Gemini CLI (gemini-md.md): ~/.gemini/GEMINI.md, then the working
// directory and its parents up to the project root, root first, then the
// subdirectories below (hidden ones and node_modules skipped);
// context.fileName from settings.json may list several names.
// Gemini CLI (docs/cli/gemini-md.md; packages/core/src/utils/memoryDiscovery.ts
// and memoryImportProcessor.ts): at startup the global ~/.gemini/GEMINI.md,
// then the working directory and its parents up to the Git root (without
// one, the working directory alone), root first; a context file in a
// subdirectory is loaded just in time, when a tool touches a file there, so
// it is conditional, and so are its imports; a gitignored directory is
// never walked. Imports: "@" and a path without white space, with or
// without an extension, not inside backticks, never outside the project
// root of the importing file, five hops.
func TestGemini(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"home/.gemini/GEMINI.md":            "global\n",
		"GEMINI.md":                         "above the root: not read\n",
		"outside.md":                        "outside the repository\n",
		"repo/.git/HEAD":                    "",
		"repo/.gitignore":                   "build/\n",
		"repo/GEMINI.md":                    "root, imports @./docs/style.md and @docs/NOTES\nand @../outside.md but not `@docs/code.md`\n",
		"repo/docs/style.md":                "style\n",
		"repo/docs/NOTES":                   "notes without an extension\n",
		"repo/docs/code.md":                 "in a code span: not imported\n",
		"repo/.gemini/settings.json":        `{"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}`,
		"repo/AGENTS.md":                    "agents at the root\n",
		"repo/pkg/GEMINI.md":                "pkg (the working directory)\n",
		"repo/pkg/a/GEMINI.md":              "a, imports @./more.md\n",
		"repo/pkg/a/more.md":                "more\n",
		"repo/pkg/b/c/GEMINI.md":            "c\n",
		"repo/pkg/b/c/AGENTS.md":            "c agents\n",
		"repo/pkg/build/GEMINI.md":          "gitignored: never walked\n",
		"repo/pkg/node_modules/x/GEMINI.md": "skipped\n",
		"repo/pkg/.hidden/GEMINI.md":        "skipped\n",
	})
	c, err := Load(context.Background(), Gemini, Options{Dir: filepath.Join(dir, "repo/pkg"), Home: filepath.Join(dir, "home"), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	files, issues := got(c, dir)
	check(t, "files", files, []string{
		"home/.gemini/GEMINI.md 7/7",
		"repo/AGENTS.md 19/19",
		"repo/GEMINI.md 90/90",
		"repo/docs/style.md 6/6 <- repo/GEMINI.md @./docs/style.md",
		"repo/docs/NOTES 27/27 <- repo/GEMINI.md @docs/NOTES",
		"repo/pkg/GEMINI.md 28/28",
		"repo/pkg/a/GEMINI.md 22/22 [a tool touches a/]",
		"repo/pkg/a/more.md 5/5 [a tool touches a/] <- repo/pkg/a/GEMINI.md @./more.md",
		"repo/pkg/b/c/AGENTS.md 9/9 [a tool touches b/c/]",
		"repo/pkg/b/c/GEMINI.md 2/2 [a tool touches b/c/]",
	})
	check(t, "issues", issues, []string{"import_missing repo/GEMINI.md @../outside.md"})
	if !strings.Contains(c.Issues[0].Detail, "outside the project root") {
		t.Errorf("detail %q", c.Issues[0].Detail)
	}

	// without a Git root: the working directory alone, not its parents up
	// to the home directory
	dir2 := tree(t, map[string]string{"home/GEMINI.md": "home\n", "home/p/GEMINI.md": "p\n", "home/p/q/GEMINI.md": "q\n"})
	c, err = Load(context.Background(), Gemini, Options{Dir: filepath.Join(dir2, "home/p"), Home: filepath.Join(dir2, "home"), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	files, _ = got(c, dir2)
	check(t, "files without a Git root", files, []string{"home/p/GEMINI.md 2/2", "home/p/q/GEMINI.md 2/2 [a tool touches q/]"})
}

func TestCopilot(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		".git/HEAD":                                  "",
		".github/copilot-instructions.md":            strings.Repeat("c", 4001),
		".github/instructions/go.instructions.md":    "---\napplyTo: \"**/*.go\"\n---\nUse gofmt.\n",
		".github/instructions/all.instructions.md":   "---\napplyTo: '**'\n---\nBe brief.\n",
		".github/instructions/none.instructions.md":  "no frontmatter\n",
		".github/instructions/ui/ts.instructions.md": "---\napplyTo: \"**/*.ts,**/*.tsx\"\n---\nx\n",
		".github/instructions/notes.md":              "not an instructions file\n",
		"AGENTS.md":                                  "agents\n",
		"src/AGENTS.md":                              "nested: read only for files there\n",
	})
	c, err := Load(context.Background(), Copilot, Options{Dir: filepath.Join(dir, "src"), Home: dir, Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	files, issues := got(c, dir)
	check(t, "files", files, []string{
		".github/copilot-instructions.md 4001/4001",
		".github/instructions/all.instructions.md 32/32",
		".github/instructions/go.instructions.md 38/38 [applyTo: **/*.go]",
		".github/instructions/none.instructions.md 15/15 [manual (no applyTo)]",
		".github/instructions/ui/ts.instructions.md 38/38 [applyTo: **/*.ts,**/*.tsx]",
		"AGENTS.md 7/7",
	})
	check(t, "issues", issues, []string{"over_agent_limit .github/copilot-instructions.md 4001/4000 chars"})
}

// Cursor: .cursor/rules/*.mdc with alwaysApply, globs or description;
// AGENTS.md; the legacy .cursorrules; advice under 500 lines.
func TestCursor(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		".cursor/rules/always.mdc":  "---\ndescription: House style\nalwaysApply: true\n---\nx\n",
		".cursor/rules/ts.mdc":      "---\nglobs: *.ts,*.tsx\nalwaysApply: false\n---\nx\n",
		".cursor/rules/db.mdc":      "---\ndescription: Database migrations\n---\nx\n",
		".cursor/rules/manual.mdc":  "no frontmatter\n",
		".cursor/rules/sub/big.mdc": "---\nalwaysApply: true\n---\n" + strings.Repeat("line\n", 600),
		".cursorrules":              "legacy\n",
		"AGENTS.md":                 "agents\n",
	})
	c, err := Load(context.Background(), Cursor, Options{Dir: dir, Home: dir, Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	files, issues := got(c, dir)
	check(t, "files", files, []string{
		".cursor/rules/always.mdc 53/53",
		".cursor/rules/db.mdc 43/43 [agent-requested: Database migrations]",
		".cursor/rules/manual.mdc 15/15 [manual]",
		".cursor/rules/sub/big.mdc 3026/3026",
		".cursor/rules/ts.mdc 47/47 [globs: *.ts,*.tsx]",
		"AGENTS.md 7/7",
		".cursorrules 7/7",
	})
	check(t, "issues", issues, []string{"over_agent_limit .cursor/rules/sub/big.mdc 603/500 lines"})
	if !c.Issues[0].Advice {
		t.Error("Cursor's 500 lines is advice")
	}
}

func TestGenericAndErrors(t *testing.T) {
	dir := tree(t, map[string]string{"AGENTS.md": "x\n", "CLAUDE.md": "y\n"})
	c, err := Load(context.Background(), Generic, Options{Dir: dir, Home: dir, Getenv: noEnv})
	if err != nil || len(c.Files) != 0 {
		t.Errorf("generic: %+v %v", c, err)
	}
	if _, err := Load(context.Background(), "claud", Options{Dir: dir}); err == nil ||
		err.Error() != `unknown profile "claud" (known: claude, codex, copilot, cursor, gemini, generic)` {
		t.Errorf("unknown profile: %v", err)
	}
	if _, err := Load(context.Background(), Codex, Options{Dir: "rel"}); err == nil {
		t.Error("a relative directory was accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, Claude, Options{Dir: dir, Home: dir}); err == nil {
		t.Error("a cancelled load succeeded")
	}
}

func TestImportsOutsideCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"@a.md", "a.md"},
		{"see @a.md, then @b/c.md", "a.md, b/c.md"}, // read as written, comma included
		{"`@span.md` @real.md", "real.md"},
		{"``x `@still-span.md` y`` @after.md", "after.md"},
		{"mail x@y.com", ""},
		{"@~/notes.md @/abs/p.md @My\\ File.md", "~/notes.md /abs/p.md My File.md"},
		{"@doc.md#section", "doc.md"},
		{"```md\n@fenced.md\n```\n@out.md", "out.md"},
		{"~~~\n@tilde.md\n~~~~\n@x.md", "x.md"},
		{"@!notpath", ""},
		// CommonMark: an indented code block, in a list item too, and a
		// code span that runs over a line break are code; an indented
		// line that continues a paragraph is not
		{"text\n\n    @indented.md\n\n@real.md", "real.md"},
		{"- item\n\n      @in-list-code.md\n- @item.md", "item.md"},
		{"`start\n@in-span.md end` @out.md", "out.md"},
		{"para\n    @continued.md", "continued.md"},
		{"> quoted @quoted.md\n>\n>     @quoted-code.md", "quoted.md"},
		{"```\nunclosed fence\n@in-fence.md", ""},
	} {
		if got := strings.Join(claudeImports([]byte(tc.in)), " "); got != tc.want {
			t.Errorf("claudeImports(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		// as memoryImportProcessor.ts finds them: no extension needed
		{"@noext and @./a.md and `@b.md`", "noext ./a.md"},
		{"@/abs/x @~/not-an-import @1digit @-dash", "/abs/x"},
		{"x@y.md @https://example.com/a.md @file:///etc/x", ""},
		{"``a `@in-span.md` b`` @after.md", "after.md"},
		// a code span across a line break, and a fenced block
		{"`start\n@in-span.md end` @out.md", "out.md"},
		{"```\n@fenced.md\n```\n@x.md", "x.md"},
		{"@a.md,@b.md\t@c.md", "a.md,@b.md c.md"},
	} {
		if got := strings.Join(geminiImports([]byte(tc.in)), " "); got != tc.want {
			t.Errorf("geminiImports(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFrontmatter(t *testing.T) {
	fm := frontmatter([]byte("---\r\ndescription: \"Quoted: yes\"\r\nglobs: *.ts, *.tsx\r\npaths:\r\n  - \"src/**\"\r\n  - lib/**\r\nalwaysApply: true\r\n---\r\nbody\r\n"))
	for k, want := range map[string]string{"description": "Quoted: yes", "globs": "*.ts, *.tsx", "paths": "src/**, lib/**", "alwaysApply": "true"} {
		if fm[k] != want {
			t.Errorf("%s = %q, want %q (%v)", k, fm[k], want, fm)
		}
	}
	if len(frontmatter([]byte("no\n---\nx: y\n---\n"))) != 0 {
		t.Error("frontmatter not at the start was read")
	}
}

func FuzzImports(f *testing.F) {
	f.Add([]byte("@a.md `@b.md` ```\n@c.md\n```"))
	f.Add([]byte("---\nglobs: [a, 'b']\n---\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, ref := range claudeImports(b) {
			if ref == "" || strings.ContainsAny(ref, "\n\t") {
				t.Fatalf("bad reference %q", ref)
			}
		}
		geminiImports(b)
		frontmatter(b)
	})
}

func TestDetect(t *testing.T) {
	dir := tree(t, map[string]string{"AGENTS.md": "x", "CLAUDE.md": "y", ".github/instructions/a.instructions.md": "z", "GEMINI.md": "g"})
	var got []string
	for _, d := range Detect(dir) {
		got = append(got, string(d.Profile)+":"+d.File)
	}
	if strings.Join(got, " ") != "claude:CLAUDE.md copilot:.github/instructions gemini:GEMINI.md" {
		t.Errorf("Detect = %v", got)
	}
	if len(Detect(tree(t, map[string]string{"AGENTS.md": "only"}))) != 0 {
		t.Error("AGENTS.md alone marks no agent")
	}
}

// The files an agent skips for another one in the same folder: Claude
// Code's AGENTS.md next to CLAUDE.md (or .claude/CLAUDE.md), Codex's
// AGENTS.md and fallback names next to AGENTS.override.md (even an empty
// one, which Codex then skips), and in CODEX_HOME the AGENTS.md next to a
// non-empty override.
func TestShadowed(t *testing.T) {
	dir := tree(t, map[string]string{
		"repo/.git/HEAD":              "",
		"repo/CLAUDE.md":              "c\n",
		"repo/AGENTS.md":              "a\n",
		"repo/sub/.claude/CLAUDE.md":  "c\n",
		"repo/sub/AGENTS.md":          "a\n",
		"repo/sub/AGENTS.override.md": "\n",
		"repo/sub/TEAM.md":            "t\n",
		"codex/AGENTS.override.md":    "o\n",
		"codex/AGENTS.md":             "g\n",
	})
	shadowed := func(c *Chain) []string {
		var out []string
		for _, s := range c.Shadowed {
			a, _ := filepath.Rel(dir, s.Path)
			b, _ := filepath.Rel(dir, s.By)
			out = append(out, a+" by "+b)
		}
		return out
	}
	o := Options{Dir: filepath.Join(dir, "repo/sub"), Home: filepath.Join(dir, "home"), Getenv: noEnv, ManagedDir: filepath.Join(dir, "none")}
	c, err := Load(context.Background(), Claude, o)
	if err != nil {
		t.Fatal(err)
	}
	// a CLAUDE.md anywhere in the chain turns every AGENTS.md off
	check(t, "claude", shadowed(c), []string{"repo/AGENTS.md by repo/CLAUDE.md", "repo/sub/AGENTS.md by repo/CLAUDE.md"})
	o.Getenv = func(k string) string {
		if k == "CODEX_HOME" {
			return filepath.Join(dir, "codex")
		}
		return ""
	}
	o.CodexFallbackNames = []string{"TEAM.md"}
	c, err = Load(context.Background(), Codex, o)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "codex", shadowed(c), []string{"codex/AGENTS.md by codex/AGENTS.override.md",
		"repo/sub/AGENTS.md by repo/sub/AGENTS.override.md", "repo/sub/TEAM.md by repo/sub/AGENTS.override.md"})
}

// Codex's cut at its edges (codex-rs project_doc.rs): a blank file is
// skipped and loses nothing, also once the budget is used up; a file whose
// kept part is blank is dropped without using the budget, and its content
// is lost; a file after the budget is used up is dropped whole.
func TestCodexCutEdges(t *testing.T) {
	dir := tree(t, map[string]string{
		"repo/.git/HEAD":           "",
		"repo/AGENTS.md":           strings.Repeat("a", 60),
		"repo/b/AGENTS.md":         "   \nlate content\n",
		"repo/b/c/AGENTS.md":       "abcdefghij",
		"repo/b/c/d/AGENTS.md":     "  \n",
		"repo/b/c/d/e/AGENTS.md":   "dropped\n",
		"repo/b/c/d/e/f/AGENTS.md": "\n\n",
	})
	c, err := Load(context.Background(), Codex, Options{Dir: filepath.Join(dir, "repo/b/c/d/e/f"), Home: filepath.Join(dir, "home"), Getenv: noEnv, CodexMaxBytes: 63})
	if err != nil {
		t.Fatal(err)
	}
	files, issues := got(c, dir)
	check(t, "files", files, []string{
		"repo/AGENTS.md 60/60",
		"repo/b/AGENTS.md 0/17",    // 3 bytes kept, all blank: dropped, the budget kept
		"repo/b/c/AGENTS.md 3/10",  // cut
		"repo/b/c/d/AGENTS.md 0/3", // blank: skipped
		"repo/b/c/d/e/AGENTS.md 0/8",
		"repo/b/c/d/e/f/AGENTS.md 0/2", // blank, after the budget: skipped, nothing lost
	})
	check(t, "issues", issues, []string{
		"agent_truncation repo/b/AGENTS.md 17/63 bytes",
		"agent_truncation repo/b/c/AGENTS.md 7/63 bytes",
		"agent_truncation repo/b/c/d/e/AGENTS.md 8/63 bytes",
	})
	loaded, conditional := c.Loaded()
	if loaded != 2 || conditional != 0 {
		t.Errorf("loaded %d, conditional %d; want 2 and 0", loaded, conditional)
	}
}

// The table of `ctx discover --profile` fits its width, heading included,
// and shows bytes with thousands separators; its heading counts what the
// audit counts.
func TestWriteTable(t *testing.T) {
	dir := tree(t, map[string]string{
		"repo/.git/HEAD":         "",
		"repo/GEMINI.md":         strings.Repeat("g", 12345),
		"repo/pkg/sub/GEMINI.md": "sub\n",
		"repo/blank/GEMINI.md":   "\n",
	})
	c, err := Load(context.Background(), Gemini, Options{Dir: filepath.Join(dir, "repo"), Home: filepath.Join(dir, "home"), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := c.WriteTable(&b, filepath.Join(dir, "repo"), filepath.Join(dir, "home"), 60); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 60 && !strings.HasPrefix(line, "Project root: ") {
			t.Errorf("%d columns, over 60: %q", n, line)
		}
	}
	for _, s := range []string{"Profile gemini: 1 file the agent loads by itself, 1 more\nwhen its condition applies, 1 that brings nothing (blank, or\npast its limit); 3 listed in load order\n",
		"| 12,345 |"} {
		if !strings.Contains(out, s) {
			t.Errorf("the table lacks %q:\n%s", s, out)
		}
	}
}

func TestClosest(t *testing.T) {
	for in, want := range map[string]Name{"claud": Claude, "Claude": Claude, "gemni": Gemini, "codx": Codex, "cursr": Cursor,
		"claude": "", "mybot": "", "x": "", "": ""} {
		got, ok := Closest(in)
		if got != want || ok != (want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// What the repository writes (an import's text, a rule's paths, a
// directory's name) reaches the table escaped: no escape sequence or line
// of its own reaches the terminal.
func TestWriteTableEscapes(t *testing.T) {
	dir := tree(t, map[string]string{
		"repo/.git/HEAD":                  "",
		"repo/CLAUDE.md":                  "@docs/\x1b[32mG.md\n",
		"repo/docs/\x1b[32mG.md":          "guide\n",
		"repo/.claude/rules/r.md":         "---\npaths: \"src/\x1b]0;pwned\a/**\"\n---\nrule\n",
		"repo/pkg/red\x1b[31mX/CLAUDE.md": "nested\n",
	})
	c, err := Load(context.Background(), Claude, Options{Dir: filepath.Join(dir, "repo"), Home: filepath.Join(dir, "home"), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := c.WriteTable(&b, filepath.Join(dir, "repo"), filepath.Join(dir, "home"), 200); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\a") {
		t.Errorf("an escape sequence reaches the table:\n%q", out)
	}
	for _, want := range []string{`@docs/\x1b[32mG.md`, `src/\x1b]0;pwned\x07/**`, `pkg/red\x1b[31mX/`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
}
