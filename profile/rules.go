package profile

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/gitignore"
)

// The documented limits.
const (
	// codexMaxBytes is Codex's default project_doc_max_bytes, shared by the
	// project documents of the chain.
	codexMaxBytes = 32 << 10
	// claudeImportHops is how deep Claude Code 2.1.328 follows imports (its
	// memory docs say five hops; held against the agent, a file's imports
	// four levels below it are sent, the fifth level is not).
	claudeImportHops = 4
	// geminiImportHops is how deep Gemini CLI follows imports
	// (memoryImportProcessor.ts, maxDepth 5).
	geminiImportHops = 5
	// claudeWarnChars: Claude Code warns about a memory file above 40,000
	// characters.
	claudeWarnChars = 40000
	// copilotReviewChars: Copilot code review reads only the first 4,000
	// characters of each instruction file.
	copilotReviewChars = 4000
	// cursorAdviceLines: Cursor advises rules under 500 lines.
	cursorAdviceLines = 500
)

// Where the public rules are documented.
const (
	docCodex   = "https://github.com/openai/codex/blob/main/docs/agents_md.md"
	docClaude  = "https://docs.anthropic.com/en/docs/claude-code/memory"
	docGemini  = "https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md"
	docCopilot = "https://docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions"
	docCursor  = "https://docs.cursor.com/context/rules"
)

// where is the set of directories a rule looks in.
type where int

const (
	whereCwd        where = iota // the working directory
	whereRoot                    // the project root, else the working directory
	whereRootToCwd               // each directory from the project root down to the working directory; without a root, the working directory alone (Codex)
	whereSlashToCwd              // each ancestor of the working directory below /, and the working directory, root first (Claude Code)
	whereUpToRoot                // the working directory and its parents up to the project root, root first; without a root, the working directory alone (Gemini CLI)
	whereBelow                   // the subdirectories of the working directory that git does not ignore, breadth first, at most 200 (Gemini CLI)
	whereBelowAll                // the same, at most 5,000 (the agents that read a subfolder's file when they work there)
	whereManaged                 // Claude Code's managed policy directory
	whereUser                    // the home directory
	whereCodexHome               // $CODEX_HOME, else ~/.codex
	whereGeminiHome              // ~/.gemini
)

// entry is what a rule looks for in each of its directories.
type entry struct {
	names    []string // relative paths tried in the directory
	first    bool     // only the first name that exists
	nonEmpty bool     // with first: the first that is not blank
	unless   []string // skip the directory when one of these exists
	// unlessChain: skip the entry in every directory when one of these
	// exists in any directory of the rule
	unlessChain []string
	glob        string // instead of names: a slash glob below the directory
	meta        func(map[string]string) string
}

// rule is one documented loading rule of an agent.
type rule struct {
	id       string
	label    string // a few words, for tables
	text     string
	evidence string
	where    where
	entries  []entry
	imports  func([]byte) []string // nil: the agent follows no imports
	hops     int                   // how deep the agent follows imports
	// external: the imports of the rule's files name files outside the
	// working directory only once the user approved it (Claude Code's
	// project memory)
	external bool
	// confined: the agent imports only files inside the project root of
	// the file a rule loaded (its directory when there is no root), as
	// Gemini CLI does
	confined bool
	// lazy: the agent loads the files of the rule just in time, when a
	// tool touches a file in their directory (Gemini CLI's subdirectories):
	// they and their imports are conditional; lazyWhen says when, with %s
	// for the directory ("" is "a tool touches %s")
	lazy     bool
	lazyWhen string
}

// rulesOf returns the rules of a profile, in the agent's load order. Each
// rule cites where it is documented.
func rulesOf(name Name, o Options) []rule {
	switch name {
	case Codex:
		names := []string{"AGENTS.override.md", "AGENTS.md"}
		for _, n := range o.CodexFallbackNames {
			if n != "" && indexOf(names, n) < 0 {
				names = append(names, n)
			}
		}
		rules := []rule{
			// docs/agents_md.md, "Global Instructions": AGENTS.override.md in
			// CODEX_HOME (default ~/.codex), else AGENTS.md; only the first
			// non-empty file is used.
			{id: "codex/global", label: "Codex: global", text: "Codex: global AGENTS.override.md, else AGENTS.md, in CODEX_HOME", evidence: docCodex,
				where: whereCodexHome, entries: []entry{{names: []string{"AGENTS.override.md", "AGENTS.md"}, first: true, nonEmpty: true}}},
		}
		if o.CodexMaxBytes < 0 {
			// project_doc_max_bytes = 0: read_project_docs returns nothing
			return rules
		}
		return append(rules,
			// docs/agents_md.md, "Project Instructions"; codex-rs
			// core/src/project_doc.rs: from the Git root (nearest .git, or
			// project_root_markers) down to the working directory, at most
			// one file per directory (AGENTS.override.md, AGENTS.md, then
			// project_doc_fallback_filenames), joined root first;
			// project_doc_max_bytes (32 KiB) is shared by the chain.
			rule{id: "codex/project", label: "Codex: root → cwd", text: "Codex: AGENTS.override.md, AGENTS.md or a fallback name in each directory from the project root to the working directory",
				evidence: docCodex, where: whereRootToCwd, entries: []entry{{names: names, first: true}}},
			// Codex's base instructions ("AGENTS.md spec"): "When working in
			// a subdirectory of CWD ... check for any AGENTS.md files that
			// may be applicable": the model reads them itself, when it works
			// there.
			rule{id: "codex/below", label: "Codex: subfolder, when the model works there", text: "Codex: AGENTS.md below the working directory, which its instructions tell the model to read when it works there",
				evidence: docCodex, where: whereBelowAll, entries: []entry{{names: names, first: true}}, lazy: true,
				lazyWhen: "the model works in %s (Codex's instructions tell it to read the file)"})
	case Claude:
		perDir := []entry{
			{names: []string{"CLAUDE.md", ".claude/CLAUDE.md"}},
		}
		if !o.ClaudeNoAgentsMD {
			// Claude Code 2.1.277 and later, setting "Project instructions"
			// (default claude-md-or-agents-md): "a project with no CLAUDE.md
			// of its own gets its AGENTS.md files instead, loaded exactly
			// where and how CLAUDE.md would be" (AGENTS.md and
			// .claude/AGENTS.md; not AGENTS.override.md or AGENTS.local.md).
			// Held against Claude Code 2.1.328: a CLAUDE.md,
			// .claude/CLAUDE.md or CLAUDE.local.md in any folder of the chain
			// turns every AGENTS.md off; one below the working directory or
			// the user's own does not.
			perDir = append(perDir, entry{names: []string{"AGENTS.md", ".claude/AGENTS.md"}, unlessChain: []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"}})
		}
		perDir = append(perDir,
			entry{glob: ".claude/rules/**/*.md", meta: claudePaths},
			// CLAUDE.local.md is documented as deprecated but still loaded.
			entry{names: []string{"CLAUDE.local.md"}})
		return []rule{
			// memory docs, "Determine memory type": managed policy
			// /etc/claude-code/CLAUDE.md (Linux), then user memory.
			{id: "claude/managed", label: "Claude Code: managed policy", text: "Claude Code: managed policy CLAUDE.md", evidence: docClaude, where: whereManaged,
				entries: []entry{{names: []string{"CLAUDE.md"}}}, imports: claudeImports, hops: claudeImportHops},
			{id: "claude/user", label: "Claude Code: user memory", text: "Claude Code: user memory ~/.claude/CLAUDE.md and ~/.claude/rules", evidence: docClaude, where: whereUser,
				entries: []entry{{names: []string{".claude/CLAUDE.md"}}, {glob: ".claude/rules/**/*.md", meta: claudePaths}}, imports: claudeImports, hops: claudeImportHops},
			// memory docs, "How Claude looks up memories": from the working
			// directory up to (not including) /, each directory's CLAUDE.md,
			// .claude/CLAUDE.md and CLAUDE.local.md; imports with @path, not
			// inside code spans or blocks. Held against Claude Code 2.1.328:
			// four hops, and an import of a file outside the working
			// directory is followed only once the user approved external
			// imports for the project (~/.claude.json).
			{id: "claude/project", label: "Claude Code: ancestors, cwd", text: "Claude Code: CLAUDE.md, .claude/CLAUDE.md, .claude/rules and CLAUDE.local.md in the working directory and each ancestor",
				evidence: docClaude, where: whereSlashToCwd, entries: perDir, imports: claudeImports, hops: claudeImportHops, external: true},
			// memory docs: "CLAUDE.md files in subtrees under the current
			// working directory ... are only included when Claude reads files
			// in those subtrees" (held against Claude Code 2.1.328: not sent
			// at the start).
			{id: "claude/below", label: "Claude Code: subtree, when read", text: "Claude Code: CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md in subfolders of the working directory, loaded when Claude reads a file there",
				evidence: docClaude, where: whereBelowAll, entries: []entry{{names: []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"}}},
				imports: claudeImports, hops: claudeImportHops, external: true, lazy: true, lazyWhen: "Claude reads a file in %s"},
		}
	case Gemini:
		return []rule{
			// gemini-md.md, "Understand the context hierarchy", and
			// packages/core/src/utils/memoryDiscovery.ts: at startup the
			// global ~/.gemini/GEMINI.md (getGlobalMemoryPaths), then the
			// working directory and its parents up to the Git root, or the
			// working directory alone without one
			// (getEnvironmentMemoryPaths, findUpwardGeminiFiles); a context
			// file in a subdirectory is loaded just in time, when a tool
			// touches a file there (loadJitSubdirectoryMemory).
			// context.fileName may list several names.
			// memoryImportProcessor.ts: @path imports, five levels, not in
			// backticks, only inside the project root (validateImportPath).
			{id: "gemini/global", label: "Gemini CLI: global", text: "Gemini CLI: global ~/.gemini context file", evidence: docGemini, where: whereGeminiHome,
				entries: []entry{{names: o.GeminiFileNames}}, imports: geminiImports, hops: geminiImportHops, confined: true},
			{id: "gemini/ancestors", label: "Gemini CLI: cwd and parents", text: "Gemini CLI: context files in the working directory and its parents up to the project root", evidence: docGemini,
				where: whereUpToRoot, entries: []entry{{names: o.GeminiFileNames}}, imports: geminiImports, hops: geminiImportHops, confined: true},
			{id: "gemini/below", label: "Gemini CLI: subdirectory, just in time", text: "Gemini CLI: context files in subdirectories of the working directory, loaded just in time", evidence: docGemini,
				where: whereBelow, entries: []entry{{names: o.GeminiFileNames}}, imports: geminiImports, hops: geminiImportHops, confined: true, lazy: true},
		}
	case Copilot:
		return []rule{
			// Repository custom instructions: .github/copilot-instructions.md
			// applies to every request; .github/instructions/**/*.instructions.md
			// apply to the files their applyTo globs match; AGENTS.md files,
			// and CLAUDE.md or GEMINI.md at the root, are read by the coding
			// agent.
			{id: "copilot/repo", label: "Copilot: repository", text: "Copilot: .github/copilot-instructions.md", evidence: docCopilot, where: whereRoot,
				entries: []entry{{names: []string{".github/copilot-instructions.md"}}}},
			{id: "copilot/path", label: "Copilot: path-specific", text: "Copilot: .github/instructions/*.instructions.md (applyTo)", evidence: docCopilot, where: whereRoot,
				entries: []entry{{glob: ".github/instructions/**/*.instructions.md", meta: copilotApplyTo}}},
			{id: "copilot/agents", label: "Copilot agent: root files", text: "Copilot coding agent: AGENTS.md, CLAUDE.md or GEMINI.md at the root", evidence: docCopilot, where: whereRoot,
				entries: []entry{{names: []string{"AGENTS.md", "CLAUDE.md", "GEMINI.md"}}}},
			// "the nearest AGENTS.md in the directory tree takes precedence":
			// a subfolder's AGENTS.md applies to the files the agent edits
			// there
			{id: "copilot/nested", label: "Copilot agent: nested AGENTS.md", text: "Copilot coding agent: AGENTS.md in subfolders, for the files it edits there", evidence: docCopilot,
				where: whereBelowAll, entries: []entry{{names: []string{"AGENTS.md"}}}, lazy: true, lazyWhen: "the agent edits a file in %s"},
		}
	case Cursor:
		return []rule{
			// Cursor rules: .cursor/rules/*.mdc with frontmatter (alwaysApply,
			// globs, description), AGENTS.md at the root, and the legacy
			// .cursorrules.
			{id: "cursor/rules", label: "Cursor: project rules", text: "Cursor: .cursor/rules/*.mdc", evidence: docCursor, where: whereRoot,
				entries: []entry{{glob: ".cursor/rules/**/*.mdc", meta: cursorMeta}}},
			{id: "cursor/agents", label: "Cursor: AGENTS.md", text: "Cursor: AGENTS.md at the root", evidence: docCursor, where: whereRoot,
				entries: []entry{{names: []string{"AGENTS.md"}}}},
			{id: "cursor/nested", label: "Cursor: nested AGENTS.md", text: "Cursor: AGENTS.md in subfolders, for the files it works on there", evidence: docCursor,
				where: whereBelowAll, entries: []entry{{names: []string{"AGENTS.md"}}}, lazy: true, lazyWhen: "Cursor works on a file in %s"},
			{id: "cursor/legacy", label: "Cursor: legacy rules", text: "Cursor: legacy .cursorrules", evidence: docCursor, where: whereRoot,
				entries: []entry{{names: []string{".cursorrules"}}}},
		}
	}
	return nil // generic: nothing is loaded by the agent itself
}

// maxBelowDirs bounds the subdirectories walked for just-in-time files
// (Gemini CLI's discoveryMaxDirs, 200); maxBelowAllDirs those of the agents
// with no such bound.
const (
	maxBelowDirs    = 200
	maxBelowAllDirs = 5000
)

// dirs returns the directories of w, in load order.
func (l *loader) dirs(w where) []string {
	o, root := l.o, l.chain.Root
	switch w {
	case whereCwd:
		return []string{o.Dir}
	case whereRoot:
		if root != "" {
			return []string{root}
		}
		return []string{o.Dir}
	case whereRootToCwd:
		if root == "" {
			return []string{o.Dir}
		}
		return between(root, o.Dir)
	case whereSlashToCwd:
		var out []string
		for _, d := range between("/", o.Dir) {
			if d != "/" {
				out = append(out, d)
			}
		}
		return out
	case whereUpToRoot:
		if root == "" {
			return []string{o.Dir}
		}
		return between(root, o.Dir)
	case whereBelow:
		return below(o.Dir, maxBelowDirs, gitignore.New(o.Dir))
	case whereBelowAll:
		return below(o.Dir, maxBelowAllDirs, gitignore.New(o.Dir))
	case whereManaged:
		return []string{o.ManagedDir}
	case whereUser:
		if o.Home == "" {
			return nil
		}
		return []string{o.Home}
	case whereCodexHome:
		if h := o.Getenv("CODEX_HOME"); h != "" {
			return []string{h}
		}
		if o.Home == "" {
			return nil
		}
		return []string{filepath.Join(o.Home, ".codex")}
	case whereGeminiHome:
		if o.Home == "" {
			return nil
		}
		return []string{filepath.Join(o.Home, ".gemini")}
	}
	return nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// real returns p with symlinks resolved, also when p does not exist (its
// deepest existing ancestor resolved, the rest joined).
func real(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(real(parent), filepath.Base(p))
}

// between returns top and every directory below it down to dir (which
// must be within top), top first.
func between(top, dir string) []string {
	var up []string
	for d := dir; ; d = filepath.Dir(d) {
		up = append(up, d)
		if d == top || filepath.Dir(d) == d {
			break
		}
	}
	out := make([]string, len(up))
	for i, d := range up {
		out[len(up)-1-i] = d
	}
	return out
}

// below lists the subdirectories of dir breadth first, sorted at each
// level, at most max; hidden directories, node_modules and directories git
// ignores are skipped.
func below(dir string, max int, ign *gitignore.GitIgnore) []string {
	var out []string
	queue := []string{dir}
	for len(queue) > 0 && len(out) < max {
		d := queue[0]
		queue = queue[1:]
		ents, err := readDirNames(d)
		if err != nil {
			continue
		}
		for _, name := range ents {
			sub := filepath.Join(d, name)
			if strings.HasPrefix(name, ".") || name == "node_modules" || ign.Ignored(sub, true) {
				continue
			}
			out = append(out, sub)
			queue = append(queue, sub)
			if len(out) == max {
				break
			}
		}
	}
	return out
}

// globFS is doublestar's glob on fsys, files and directories alike.
func globFS(fsys fs.FS, pattern string) ([]string, error) {
	return doublestar.Glob(fsys, pattern, doublestar.WithFilesOnly())
}

// Imports.

// claudeRef: "@" at the start of a line or after white space, then a path
// of non-space characters (a space may be escaped as "\ ").
var claudeRef = regexp.MustCompile(`(?:^|\s)@((?:[^\s\\]|\\ )+)`)

// claudeImports returns the import references of a Claude Code memory
// file, in order, outside code and HTML: the Markdown is read as
// CommonMark, and fenced and indented code blocks, code spans (also one
// that runs over a line break), HTML blocks, inline HTML and HTML comments
// are not searched, nor is the frontmatter (held against Claude Code
// 2.1.328, which reads the references from the text of its Markdown
// lexer: an import in a comment is not followed).
func claudeImports(b []byte) []string {
	var out []string
	body := b
	if t := bytes.TrimPrefix(b, []byte("\uFEFF")); bytes.Contains(t[min(3, len(t)):], []byte("---")) {
		if m := claudeFrontmatter.FindIndex(t); m != nil {
			body = t[m[1]:]
		}
	}
	for _, line := range strings.Split(string(withoutCodeOrHTML(body)), "\n") {
		for _, m := range claudeRef.FindAllStringSubmatch(line, -1) {
			ref := strings.ReplaceAll(m[1], `\ `, " ")
			if i := strings.IndexByte(ref, '#'); i > 0 {
				ref = ref[:i]
			}
			if ref == "" || !startsPath(ref[0]) {
				continue
			}
			out = append(out, ref)
		}
	}
	return out
}

// geminiImports returns the import references of a Gemini CLI context
// file, in order, as memoryImportProcessor.ts finds them (findImports):
// "@" at the start or after a space, tab, CR or LF, and everything up to
// the next one, when it starts with ".", "/" or an ASCII letter (no file
// extension is needed), outside the code regions (findCodeRegions: a run
// of backticks up to the next run of as many, across lines). URLs are
// refused (validateImportPath).
func geminiImports(b []byte) []string {
	s := string(b)
	regions := geminiCodeRegions(s)
	inCode := func(i int) bool {
		// the regions are sorted and disjoint: the last that starts at
		// or before i
		k := sort.Search(len(regions), func(k int) bool { return regions[k][0] > i }) - 1
		return k >= 0 && i < regions[k][1]
	}
	var out []string
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '@')
		if j < 0 {
			break
		}
		i += j
		if i > 0 && !geminiSpace(s[i-1]) {
			i++
			continue
		}
		k := i + 1
		for k < len(s) && !geminiSpace(s[k]) {
			k++
		}
		ref := s[i+1 : k]
		if ref != "" && (ref[0] == '.' || ref[0] == '/' || ref[0] >= 'a' && ref[0] <= 'z' || ref[0] >= 'A' && ref[0] <= 'Z') &&
			!inCode(i) && !geminiURL.MatchString(ref) {
			out = append(out, ref)
		}
		i = k + 1
	}
	return out
}

// geminiURL: validateImportPath refuses URLs.
var geminiURL = regexp.MustCompile(`^(file|https?)://`)

func geminiSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// geminiCodeRegions returns the code regions of s as Gemini CLI's
// findCodeRegions finds them with /(`+)([\s\S]*?)\1/g: from a run of
// backticks (the longest first, then shorter ones, as the regular
// expression backtracks) up to the next occurrence of as many backticks;
// where no length closes, the search goes on from the next character. It
// runs in time about linear in len(s): the next run of at least n
// backticks is found in a tree of the runs' lengths.
func geminiCodeRegions(s string) [][2]int {
	regions, _ := geminiCodeRegionsSteps(s)
	return regions
}

// geminiCodeRegionsSteps is geminiCodeRegions, and the steps it took: one
// for each character it looked at, each length it tried and each node of
// the tree it visited (a measure of its growth).
func geminiCodeRegionsSteps(s string) (regions [][2]int, steps int) {
	var runs [][2]int // start, length
	for i := 0; i < len(s); {
		steps++
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
			steps++
		}
		runs = append(runs, [2]int{i, j - i})
		i = j
	}
	if len(runs) == 0 {
		return nil, steps
	}
	t := newMaxTree(runs)
	var out [][2]int
	r := 0 // the run holding or after i
	for i := 0; i < len(s); {
		steps++
		for r < len(runs) && runs[r][0]+runs[r][1] <= i {
			r++
			steps++
		}
		if r == len(runs) {
			break
		}
		if i < runs[r][0] {
			i = runs[r][0]
		}
		runEnd := runs[r][0] + runs[r][1]
		end := -1
		for n := runEnd - i; n >= 1 && end < 0; n-- {
			steps++
			if runEnd-(i+n) >= n {
				end = i + 2*n // closed inside the same run
			} else if k := t.first(r+1, n); k >= 0 {
				end = runs[k][0] + n
			}
		}
		if end < 0 {
			i++
			continue
		}
		out = append(out, [2]int{i, end})
		i = end
	}
	return out, steps + t.visits
}

// maxTree answers "the first run at or after index j that is at least n
// backticks long" in logarithmic time.
type maxTree struct {
	size   int
	max    []int
	visits int // nodes visited by find, the steps of its searches
}

func newMaxTree(runs [][2]int) *maxTree {
	size := 1
	for size < len(runs) {
		size *= 2
	}
	t := &maxTree{size: size, max: make([]int, 2*size)}
	for i, r := range runs {
		t.max[size+i] = r[1]
	}
	for i := size - 1; i >= 1; i-- {
		t.max[i] = max(t.max[2*i], t.max[2*i+1])
	}
	return t
}

// first returns the least index k >= j with length >= n, or -1.
func (t *maxTree) first(j, n int) int {
	if j >= t.size {
		return -1
	}
	return t.find(1, 0, t.size, j, n)
}

func (t *maxTree) find(node, lo, hi, j, n int) int {
	t.visits++
	if hi <= j || t.max[node] < n {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if k := t.find(2*node, lo, mid, j, n); k >= 0 {
		return k
	}
	return t.find(2*node+1, mid, hi, j, n)
}

func startsPath(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~/-", c) >= 0
}

// withoutCodeOrHTML returns a copy of the Markdown b with the text of its code
// (fenced and indented code blocks, their info strings, code spans) turned
// into spaces, line breaks kept, as a CommonMark parser (goldmark) reads it.
//
// goldmark, like other Markdown parsers, takes time that grows faster than
// the text on some nestings (a line of thousands of ">", thousands of
// unclosed "[x](" on a line, lists nested hundreds deep): a hostile memory
// file would hang an unattended check. A file outside parserBounds is read
// by withoutCodeLinear instead, which knows fenced code and code spans.
//
// With the HTML blanked too: HTML blocks
// (of a block that starts with a comment, the comments only), inline HTML,
// and the HTML comments of a file read without the parser.
func withoutCodeOrHTML(b []byte) []byte { return blankMarkdown(b, true) }

func blankMarkdown(b []byte, html bool) []byte {
	if !withinParserBounds(b) {
		out := withoutCodeLinear(b)
		if html {
			blankComments(out)
		}
		return out
	}
	out := append([]byte(nil), b...)
	blank := func(seg text.Segment) {
		for i := seg.Start; i < seg.Stop && i < len(out); i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	doc := goldmark.DefaultParser().Parse(text.NewReader(b))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			if !html {
				return ast.WalkSkipChildren, nil
			}
			if n.HTMLBlockType == ast.HTMLBlockType2 && n.Lines().Len() > 0 {
				// Claude Code reads what its comments leave of the block
				// (nothing after a comment left open)
				start, end := n.Lines().At(0).Start, n.Lines().At(n.Lines().Len()-1).Stop
				if n.HasClosure() {
					end = max(end, n.ClosureLine.Stop)
				}
				blankComments(out[start:min(end, len(out))])
				return ast.WalkSkipChildren, nil
			}
			for i := 0; i < n.Lines().Len(); i++ {
				blank(n.Lines().At(i))
			}
			if n.HasClosure() {
				blank(n.ClosureLine)
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			if html {
				for i := 0; i < n.Segments.Len(); i++ {
					blank(n.Segments.At(i))
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			if n.Info != nil {
				blank(n.Info.Segment)
			}
			for i := 0; i < n.Lines().Len(); i++ {
				blank(n.Lines().At(i))
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				blank(n.Lines().At(i))
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					blank(t.Segment)
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// Bounds within which goldmark reads a memory file in about linear time.
const (
	parserMaxBytes   = 256 << 10 // a memory file Claude Code warns about is 40,000 characters
	parserMaxQuotes  = 32        // ">" and list markers at the start of a line
	parserMaxIndent  = 128       // columns of indentation (lists nested some 60 deep)
	parserMaxBracket = 64        // "[" on one line
)

// withinParserBounds reports whether b is within the bounds of goldmark's
// linear behaviour.
func withinParserBounds(b []byte) bool {
	if len(b) > parserMaxBytes {
		return false
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if bytes.Count(line, []byte("[")) > parserMaxBracket {
			return false
		}
		// the containers a line opens: block quotes and list items ("- - -
		// x" is a list nested three deep), and its indentation
		quotes, indent := 0, 0
	lead:
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case c == '>':
				quotes++
			case c == ' ':
				indent++
			case c == '\t':
				indent += 4
			case c == '-' || c == '*' || c == '+':
				if i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
					break lead
				}
				quotes++
			case c >= '0' && c <= '9':
				j := i
				for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
					j++
				}
				if j+1 >= len(line) || line[j] != '.' && line[j] != ')' || line[j+1] != ' ' && line[j+1] != '\t' {
					break lead
				}
				quotes++
				i = j
			default:
				break lead
			}
		}
		if quotes > parserMaxQuotes || indent > parserMaxIndent {
			return false
		}
	}
	return true
}

// withoutCodeLinear blanks the code of b line by line, in linear time:
// fenced code blocks (a line of three or more backticks or tildes, up to
// three spaces indented, after any ">" markers, to a line of at least as
// many of the same) and code spans (a run of backticks to the next run of
// as many in the same paragraph). It is the reading of a file too large or
// too deeply nested for the Markdown parser.
func withoutCodeLinear(b []byte) []byte {
	out := append([]byte(nil), b...)
	lines := bytes.SplitAfter(out, []byte("\n"))
	fence := ""       // the open fence, "" outside one
	var para [][]byte // the lines of the current paragraph
	flush := func() {
		blankSpans(para)
		para = nil
	}
	for _, line := range lines {
		body := bytes.TrimLeft(line, "> ")
		lead := len(line) - len(body)
		trimmed := bytes.TrimRight(body, "\r\n")
		if fence != "" {
			if bytes.HasPrefix(trimmed, []byte(fence)) && len(bytes.Trim(trimmed, fence[:1])) == 0 {
				fence = ""
			}
			blankBytes(line)
			continue
		}
		if lead-strings.Count(string(line[:lead]), ">") <= 3 {
			for _, f := range []string{"```", "~~~"} {
				if bytes.HasPrefix(trimmed, []byte(f)) {
					n := len(trimmed) - len(bytes.TrimLeft(trimmed, f[:1]))
					fence = strings.Repeat(f[:1], n)
				}
			}
			if fence != "" {
				flush()
				blankBytes(line)
				continue
			}
		}
		if len(bytes.TrimSpace(trimmed)) == 0 {
			flush()
			continue
		}
		para = append(para, line)
	}
	flush()
	return out
}

// blankSpans blanks the code spans of a paragraph's lines, in place.
func blankSpans(lines [][]byte) {
	type pos struct{ line, col int }
	var runs []struct {
		at pos
		n  int
	}
	for li, l := range lines {
		for i := 0; i < len(l); {
			if l[i] != '`' {
				i++
				continue
			}
			j := i
			for j < len(l) && l[j] == '`' {
				j++
			}
			runs = append(runs, struct {
				at pos
				n  int
			}{pos{li, i}, j - i})
			i = j
		}
	}
	// each run closes at the next run of the same length; a map of the
	// next run of each length, built from the end, keeps it linear
	next := make([]int, len(runs))
	last := map[int]int{}
	for k := len(runs) - 1; k >= 0; k-- {
		next[k] = -1
		if j, ok := last[runs[k].n]; ok {
			next[k] = j
		}
		last[runs[k].n] = k
	}
	for k := 0; k < len(runs); {
		j := next[k]
		if j < 0 {
			k++
			continue
		}
		a, z := runs[k].at, runs[j].at
		for li := a.line; li <= z.line; li++ {
			from, to := 0, len(lines[li])
			if li == a.line {
				from = a.col + runs[k].n
			}
			if li == z.line {
				to = z.col
			}
			blankBytes(lines[li][from:to])
		}
		k = j + 1
	}
}

// blankComments blanks the HTML comments of b, in place; an unclosed
// one runs to the end of b.
func blankComments(b []byte) {
	for at := 0; at < len(b); {
		i := bytes.Index(b[at:], []byte("<!--"))
		if i < 0 {
			return
		}
		start := at + i
		end := len(b)
		if j := bytes.Index(b[start+4:], []byte("-->")); j >= 0 {
			end = start + 4 + j + 3
		}
		blankBytes(b[start:end])
		at = end
	}
}

// blankBytes turns b into spaces, line breaks kept.
func blankBytes(b []byte) {
	for i, c := range b {
		if c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
}

// Frontmatter.

// frontmatter returns the keys of a leading "---" block: "key: value"
// lines, with "[a, b]" and "- item" lists joined by ", ". It is lenient on
// purpose: Cursor writes globs such as *.ts unquoted, which is not YAML.
func frontmatter(b []byte) map[string]string {
	out := map[string]string{}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return out
	}
	rest := s[4:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return out
	}
	key := ""
	for _, line := range strings.Split(rest[:end], "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "- ") && key != "" {
			v := unquote(strings.TrimSpace(t[2:]))
			if out[key] == "" {
				out[key] = v
			} else {
				out[key] += ", " + v
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") {
			continue
		}
		key = strings.TrimSpace(k)
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			var items []string
			for _, it := range strings.Split(v[1:len(v)-1], ",") {
				if it = unquote(strings.TrimSpace(it)); it != "" {
					items = append(items, it)
				}
			}
			v = strings.Join(items, ", ")
		}
		out[key] = unquote(v)
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// copilotApplyTo: a path-specific instruction file applies to the files
// its applyTo globs match ("**" is every file); without applyTo it is not
// applied automatically.
func copilotApplyTo(fm map[string]string) string {
	switch v := fm["applyTo"]; v {
	case "**", "**/*":
		return ""
	case "":
		return "manual (no applyTo)"
	default:
		return "applyTo: " + v
	}
}

// cursorMeta: alwaysApply rules are always loaded; rules with globs are
// attached when a matching file is in the context; rules with only a
// description are fetched when the agent decides; the rest are manual.
func cursorMeta(fm map[string]string) string {
	switch {
	case strings.EqualFold(fm["alwaysApply"], "true"):
		return ""
	case fm["globs"] != "":
		return "globs: " + fm["globs"]
	case fm["description"] != "":
		return "agent-requested: " + fm["description"]
	}
	return "manual"
}

// claudePaths: a rule with paths in its frontmatter applies to the
// matching files only.
func claudePaths(fm map[string]string) string {
	if p := fm["paths"]; p != "" {
		return "paths: " + p
	}
	return ""
}

// Limits.

// limits applies the agents' size rules to the loaded files: Codex cuts
// its project documents at project_doc_max_bytes in total (empty ones are
// skipped and cost nothing); Claude Code warns above 40,000 characters;
// Copilot code review reads the first 4,000 characters; Cursor advises
// under 500 lines.
func (l *loader) limits() error {
	switch l.name {
	case Codex:
		remaining := l.o.CodexMaxBytes
		for i := range l.chain.Files {
			f := &l.chain.Files[i]
			if f.rule != "codex/project" || f.Unreadable != "" {
				continue // an unreadable file loads nothing
			}
			b, err := l.read(f.Path)
			if err != nil {
				// changed since it was listed (a file swapped for a FIFO)
				f.Unreadable = fileio.Describe(err)
				continue
			}
			switch take := min(int64(len(b)), max(remaining, 0)); {
			case f.Blank:
				// Codex skips an empty file: nothing is lost
				f.Loaded = 0
				continue
			case remaining <= 0 || strings.TrimSpace(string(b[:take])) == "":
				// past the budget, the file is not read; a kept part that
				// is blank is discarded without using the budget
				f.Loaded = 0
			default:
				// Codex reads the bytes it takes as UTF-8, lossily: a cut
				// within a character sends U+FFFD in its place
				f.Loaded, f.replaced = runeCut(b, int(take))
				remaining -= take
			}
			if lost := f.Size - f.Loaded; lost > 0 {
				l.issue(Issue{Code: CodeAgentTruncation, Path: f.Path, Bytes: lost, Limit: int(l.o.CodexMaxBytes), Unit: "bytes",
					Detail: fmt.Sprintf("Codex's project_doc_max_bytes (%d) is shared by the project documents", l.o.CodexMaxBytes)})
			}
		}
	case Claude:
		for _, f := range l.chain.Files {
			if n := runeCount(l.data[f.Path]); n > claudeWarnChars {
				l.issue(Issue{Code: CodeOverAgentLimit, Path: f.Path, Bytes: n, Limit: claudeWarnChars, Unit: "chars",
					Detail: "Claude Code warns about memory files above 40,000 characters"})
			}
		}
	case Copilot:
		for _, f := range l.chain.Files {
			if n := runeCount(l.data[f.Path]); n > copilotReviewChars {
				l.issue(Issue{Code: CodeOverAgentLimit, Path: f.Path, Bytes: n, Limit: copilotReviewChars, Unit: "chars",
					Detail: "Copilot code review reads only the first 4,000 characters of each instruction file"})
			}
		}
	case Cursor:
		for _, f := range l.chain.Files {
			if n := lineCount(l.data[f.Path]); n > cursorAdviceLines {
				l.issue(Issue{Code: CodeOverAgentLimit, Path: f.Path, Bytes: n, Limit: cursorAdviceLines, Unit: "lines", Advice: true,
					Detail: "Cursor advises rules under 500 lines"})
			}
		}
	}
	return nil
}
