// Package profile knows which instruction files each coding agent loads by
// itself, in its own order and with its own limits, so that ctx neither
// sends them again nor misses them.
//
// # Profiles
//
// A profile is a table of rules, one table per agent (see rules.go), each
// rule with the public source that documents it. [Load] applies the table
// of an agent to a working directory and returns the [Chain]: every file
// the agent would load, in its load order, with the rule that loads it, the
// imports it follows (`@path` in CLAUDE.md and GEMINI.md, up to five hops,
// never inside code spans or blocks, cycles detected), the bytes the agent
// really keeps (Codex cuts its project documents at 32 KiB in total), and
// the problems found on the way ([Issue]: agent_truncation, import_cycle,
// import_missing, import_too_deep, over_agent_limit).
//
// The profiles are codex, claude, gemini, copilot, cursor and generic; the
// generic profile loads nothing by itself (ctx delivers every source).
//
// Unlike package discover, this package reads the files it finds: imports,
// frontmatter (Copilot's applyTo, Cursor's alwaysApply, globs and
// description, Claude's paths) and sizes live in their text. It reads them
// through ctx's bounded reader and never follows a path it cannot read.
package profile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/suggest"
	"github.com/ctxaudit/ctx/measure"
)

// Name is the name of a profile.
type Name string

// The profiles.
const (
	Generic Name = "generic"
	Codex   Name = "codex"
	Claude  Name = "claude"
	Gemini  Name = "gemini"
	Copilot Name = "copilot"
	Cursor  Name = "cursor"
)

// Names returns the known profiles, sorted.
func Names() []Name { return []Name{Claude, Codex, Copilot, Cursor, Gemini, Generic} }

// Parse checks s against [Names]; the error lists the known names.
func Parse(s string) (Name, error) {
	for _, n := range Names() {
		if Name(s) == n {
			return n, nil
		}
	}
	known := make([]string, 0, len(Names()))
	for _, n := range Names() {
		known = append(known, string(n))
	}
	return "", fmt.Errorf("unknown profile %q (known: %s)", s, strings.Join(known, ", "))
}

// CheckedAgainst returns the version of the agent whose real requests
// the profile's rules were last held against (observe's conformance suite
// runs the pinned agents on fixture trees and compares what each sent with
// the profile), or "" for a profile not checked that way.
func CheckedAgainst(n Name) string {
	switch n {
	case Claude:
		return "Claude Code 2.1.328"
	case Codex:
		return "Codex CLI 0.169.0"
	case Gemini:
		return "Gemini CLI 0.61.0"
	}
	return ""
}

// Closest returns the known profile that s most likely misspells (the
// same name in other letter case, or one a few edits away: "claud",
// "gemni"), as suggest.Names finds it; false when s is a known name or
// close to none.
func Closest(s string) (Name, bool) {
	if _, err := Parse(s); err == nil {
		return "", false
	}
	var names []string
	for _, n := range Names() {
		names = append(names, string(n))
	}
	if found := suggest.Names(s, names); len(found) > 0 {
		return Name(found[0]), true
	}
	return "", false
}

// Code names an [Issue].
type Code string

// The issue codes.
const (
	// CodeAgentTruncation: the agent loads only part of the file (or none
	// of it) because of its own size limit; Bytes is what it drops.
	CodeAgentTruncation Code = "agent_truncation"
	// CodeImportCycle: the file imports itself through a chain of
	// imports; Target is the chain.
	CodeImportCycle Code = "import_cycle"
	// CodeImportMissing: an import names a file that does not exist or
	// cannot be read; Target is the reference as written.
	CodeImportMissing Code = "import_missing"
	// CodeImportTooDeep: an import beyond the agent's five hops, which it
	// does not follow.
	CodeImportTooDeep Code = "import_too_deep"
	// CodeOverAgentLimit: the file is larger than the agent's documented
	// limit or advice (Bytes is its size, Limit the limit, Unit what they
	// count).
	CodeOverAgentLimit Code = "over_agent_limit"
)

// CodexProjectDocsOff is the [Options].CodexMaxBytes of a Codex that reads
// no project document (project_doc_max_bytes = 0 in its config.toml).
const CodexProjectDocsOff int64 = -1

// DefaultMaxFileBytes bounds how much of one file is read.
const DefaultMaxFileBytes = 64 << 20

// Options configure [Load]. Empty fields get the agents' own defaults.
type Options struct {
	// Dir is the agent's working directory (ctx's project directory),
	// absolute.
	Dir string
	// Home is the home directory (~); "" is os.UserHomeDir().
	Home string
	// Getenv reads CODEX_HOME; nil is os.Getenv.
	Getenv func(string) string
	// RootMarkers name the entries that mark the project root (Codex's
	// project_root_markers, Gemini's root marker); nil is [".git"].
	RootMarkers []string
	// CodexFallbackNames is Codex's project_doc_fallback_filenames.
	CodexFallbackNames []string
	// CodexMaxBytes is Codex's project_doc_max_bytes; 0 takes it from
	// Codex's config.toml, else 32768; CodexProjectDocsOff turns the
	// project documents off, as project_doc_max_bytes = 0 does in Codex.
	CodexMaxBytes int64
	// GeminiFileNames is Gemini CLI's context.fileName; nil is
	// ["GEMINI.md"].
	GeminiFileNames []string
	// ClaudeNoAgentsMD turns off Claude Code's reading of AGENTS.md in a
	// project without CLAUDE.md (on by default since Claude Code 2.1.277).
	ClaudeNoAgentsMD bool
	// ClaudeExternalImports says whether Claude Code follows the imports
	// of project files that name a file outside the working directory:
	// only once the user approved them for the project. nil takes it from
	// ~/.claude.json (hasClaudeMdExternalIncludesApproved of the project,
	// keyed by its git root, else the working directory).
	ClaudeExternalImports *bool
	// ManagedDir is where Claude Code's managed policy lives; "" is
	// /etc/claude-code.
	ManagedDir string
	// MaxFileBytes bounds each file read, a safety cap: 0 (or less) is
	// DefaultMaxFileBytes; it cannot be turned off.
	MaxFileBytes int64
}

// File is one file an agent loads.
type File struct {
	// Path is the file's path as the agent finds it (absolute, not
	// resolved through symlinks).
	Path string
	// Rule says which rule of the profile loads the file, Label the same
	// in a few words, Evidence where the rule is documented.
	Rule     string
	Label    string
	Evidence string
	// Scope is "managed", "user", or the directory whose rule found the
	// file.
	Scope string
	// ImportedBy is the path of the file that imports this one ("" for a
	// file a rule loads); Import is the reference as written there.
	ImportedBy string
	Import     string
	// Condition is "" for a file loaded in every session; otherwise when
	// the agent loads it (Copilot's applyTo, Cursor's globs or an
	// agent-requested or manual rule, Claude's paths).
	Condition string
	// Size is the file's size in bytes; Loaded is how many of them the
	// agent keeps: less than Size when the agent cuts the file (Codex's
	// project_doc_max_bytes: [File.Cut]), or leaves part of it out of the
	// text it sends (Claude Code's frontmatter and HTML comments, Stripped
	// bytes). [Chain.Kept] returns the text the agent keeps.
	Size     int
	Loaded   int
	Stripped int
	// Blank is true for a file of white space only: the agent gains
	// nothing from it (Codex skips it).
	Blank bool
	// Unreadable says why the file could not be read (a FIFO or device
	// where the agent looks for its memory, a file over the size limit);
	// "" when it was read. It is listed all the same, and the manifest
	// records it as unreadable.
	Unreadable string

	rule string // the id of the rule that loads it
	// replaced: the agent's cut falls within a character, which it sends
	// as U+FFFD after the Loaded bytes (Codex)
	replaced bool
}

// Issue is a problem found while loading.
type Issue struct {
	Code Code
	// Path is the file concerned (the importing file for import issues).
	Path string
	// Target is the import reference or cycle, when there is one.
	Target string
	// Bytes and Limit are the numbers behind the issue (bytes lost and the
	// limit for agent_truncation; size and limit for over_agent_limit, in
	// Unit).
	Bytes, Limit int
	Unit         string
	// Advice is true when Limit is the agent's advice rather than a rule
	// it enforces (Cursor's 500 lines).
	Advice bool
	// Detail says which rule of the agent applies.
	Detail string
}

// Shadowed is a file the agent deliberately does not load because another
// file of the same folder takes its place: Claude Code reads AGENTS.md only
// in a folder without CLAUDE.md, Codex reads AGENTS.override.md instead of
// AGENTS.md.
type Shadowed struct {
	// Path is the file the agent skips, By the file it loads instead (a
	// file of the chain, or one that takes its place without being loaded,
	// as an empty AGENTS.override.md).
	Path, By string
	// Rule says which rule of the agent skips it.
	Rule string
}

// Chain is what an agent loads by itself in one working directory.
type Chain struct {
	Profile Name
	// Root is the project root the rules walk from ("" when none was
	// found).
	Root   string
	Files  []File
	Issues []Issue
	// Shadowed lists the files the agent skips for another one, in the
	// order its rules meet them.
	Shadowed []Shadowed
	// AgentConfig lists the agent's own configuration files that were read
	// (Codex's config.toml, Gemini CLI's settings.json).
	AgentConfig []string
}

// Loaded counts the files of the chain the agent loads in every session
// (not blank, not conditional, and not cut to nothing by its limits), and
// the conditional ones that are not blank. The other files are listed but
// bring nothing.
func (c *Chain) Loaded() (loaded, conditional int) {
	for _, f := range c.Files {
		switch {
		case f.Blank:
		case f.Condition != "":
			conditional++
		case f.Loaded > 0:
			loaded++
		}
	}
	return loaded, conditional
}

func orDefault(v, def []string) []string {
	if v == nil {
		return def
	}
	return v
}

// loader applies one profile.
type loader struct {
	ctx   context.Context
	o     Options
	name  Name
	chain *Chain
	seen  map[string]bool // canonical paths already loaded
	data  map[string][]byte
}

// Load returns the files the agent of profile name loads in o.Dir, in load
// order. Missing files are not listed; problems are Issues. The error is
// for invalid options and cancellation only.
func Load(ctx context.Context, name Name, o Options) (*Chain, error) {
	if _, err := Parse(string(name)); err != nil {
		return nil, err
	}
	if o.Dir == "" || !filepath.IsAbs(o.Dir) {
		return nil, fmt.Errorf("profile: the working directory must be an absolute path, not %q", o.Dir)
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	root := findRoot(o.Dir, orDefault(o.RootMarkers, []string{".git"}))
	configs := agentConfig(name, &o, root)
	if o.RootMarkers == nil {
		o.RootMarkers = []string{".git"}
	}
	if o.CodexMaxBytes == 0 {
		o.CodexMaxBytes = codexMaxBytes
	}
	if o.GeminiFileNames == nil {
		o.GeminiFileNames = []string{"GEMINI.md"}
	}
	if o.ManagedDir == "" {
		o.ManagedDir = "/etc/claude-code"
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	l := &loader{ctx: ctx, o: o, name: name, chain: &Chain{Profile: name, AgentConfig: configs}, seen: map[string]bool{}, data: map[string][]byte{}}
	l.chain.Root = findRoot(o.Dir, o.RootMarkers)
	for _, r := range rulesOf(name, o) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := l.apply(r); err != nil {
			return nil, err
		}
	}
	if err := l.limits(); err != nil {
		return nil, err
	}
	return l.chain, nil
}

// findRoot returns the nearest ancestor of dir (or dir) that holds one of
// the markers, or "".
func findRoot(dir string, markers []string) string {
	for d := dir; ; {
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// read returns the content of p (cached), or an error.
func (l *loader) read(p string) ([]byte, error) {
	if b, ok := l.data[p]; ok {
		return b, nil
	}
	b, _, err := fileio.Read(p, l.o.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	l.data[p] = b
	return b, nil
}

// exists reports whether p names a file (or a link to one): a regular file,
// or a special one (a FIFO, a device), which is listed so that the
// manifest records it as unreadable rather than passing over what the
// agent would try to load. A directory is not a file.
func exists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// add appends f unless the same file is already loaded; it reports whether
// it was added.
func (l *loader) add(f File) bool {
	c := canonical(f.Path)
	if l.seen[c] {
		return false
	}
	b, err := l.read(f.Path)
	l.seen[c] = true
	if err != nil {
		// listed, so that the manifest records what the agent would try
		// to load; nothing is loaded from it
		f.Unreadable = fileio.Describe(err)
		l.chain.Files = append(l.chain.Files, f)
		return false
	}
	kept := AgentText(l.name, b)
	f.Size, f.Loaded, f.Stripped = len(b), len(kept), len(b)-len(kept)
	f.Blank = strings.TrimSpace(string(kept)) == ""
	if l.name == Claude {
		// Claude Code trims as JavaScript does, a BOM too
		f.Blank = strings.TrimFunc(string(kept), jsTrimmed) == ""
	}
	l.chain.Files = append(l.chain.Files, f)
	return true
}

// apply loads the files of one rule, and their imports.
func (l *loader) apply(r rule) error {
	dirs := l.dirs(r.where)
	// a file of unlessChain anywhere in the rule's directories turns off
	// the entries that name it
	chainBy := map[int]string{}
	for i, e := range r.entries {
		for _, dir := range dirs {
			if by := firstExisting(dir, e.unlessChain); e.unlessChain != nil && by != "" {
				chainBy[i] = by
				break
			}
		}
	}
	for _, dir := range dirs {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		for i, e := range r.entries {
			if by, off := chainBy[i]; off {
				for _, n := range e.names {
					if p := filepath.Join(dir, n); exists(p) {
						l.chain.Shadowed = append(l.chain.Shadowed, Shadowed{Path: p, By: by, Rule: r.text})
					}
				}
				continue
			}
			if e.unless != nil {
				if by := firstExisting(dir, e.unless); by != "" {
					for _, n := range e.names {
						if p := filepath.Join(dir, n); exists(p) {
							l.chain.Shadowed = append(l.chain.Shadowed, Shadowed{Path: p, By: by, Rule: r.text})
						}
					}
					continue
				}
			}
			var paths []string
			switch {
			case e.glob != "":
				paths = globFiles(dir, e.glob)
			case e.first:
				for _, n := range e.names {
					p := filepath.Join(dir, n)
					if !exists(p) || e.nonEmpty && !nonBlankFile(l, p) {
						continue
					}
					if len(paths) == 0 {
						paths = []string{p}
					} else {
						// one file per directory: the first takes the
						// place of the others
						l.chain.Shadowed = append(l.chain.Shadowed, Shadowed{Path: p, By: paths[0], Rule: r.text})
					}
				}
			default:
				for _, n := range e.names {
					if p := filepath.Join(dir, n); exists(p) {
						paths = append(paths, p)
					}
				}
			}
			for _, p := range paths {
				f := File{Path: p, Rule: r.text, Label: r.label, Evidence: r.evidence, Scope: scopeOf(r.where, dir), rule: r.id}
				if e.meta != nil {
					// an unreadable file keeps no condition: it is listed,
					// and the manifest records it as unreadable
					if b, err := l.read(p); err == nil {
						f.Condition = e.meta(frontmatter(b))
					}
				}
				if r.lazy {
					rel, err := filepath.Rel(l.o.Dir, dir)
					if err != nil {
						rel = dir
					}
					when := r.lazyWhen
					if when == "" {
						when = "a tool touches %s"
					}
					f.Condition = fmt.Sprintf(when, filepath.ToSlash(rel)+"/")
				}
				if !l.add(f) {
					continue
				}
				if r.imports != nil {
					imp := importer{rule: r, condition: f.Condition}
					if r.confined {
						imp.root = findRoot(filepath.Dir(p), l.o.RootMarkers)
						if imp.root == "" {
							imp.root = filepath.Dir(p)
						}
					}
					if r.external && (l.o.ClaudeExternalImports == nil || !*l.o.ClaudeExternalImports) {
						imp.within = l.o.Dir
					}
					l.followImports(imp, p, []string{canonical(p)}, 1)
				}
			}
		}
	}
	return nil
}

// firstExisting returns the path of the first of names in dir that
// exists, or "".
func firstExisting(dir string, names []string) string {
	for _, n := range names {
		if p := filepath.Join(dir, n); exists(p) {
			return p
		}
	}
	return ""
}

func nonBlankFile(l *loader, p string) bool {
	b, err := l.read(p)
	return err == nil && strings.TrimSpace(string(b)) != ""
}

// importer is what the imports of one file a rule loaded share: the rule,
// the file's condition (its imports load with it), and the directory they
// must stay in ("" for anywhere).
type importer struct {
	rule      rule
	condition string
	root      string
	// within, when not "", is the directory the imports must name a
	// file in (Claude Code's working directory, for project files whose
	// external imports the user did not approve)
	within string
}

// followImports loads the imports of the file at p (at depth hops from a
// file a rule loaded), depth first in the order they appear.
func (l *loader) followImports(imp importer, p string, stack []string, depth int) {
	r := imp.rule
	b, err := l.read(p)
	if err != nil {
		return
	}
	for _, ref := range r.imports(b) {
		target := resolveImport(ref, filepath.Dir(p), l.o.Home)
		if target == "" {
			continue
		}
		if imp.root != "" && !within(real(target), real(imp.root)) {
			l.issue(Issue{Code: CodeImportMissing, Path: p, Target: "@" + ref,
				Detail: "the agent does not import a file outside the project root of the importing file"})
			continue
		}
		ct := canonical(target)
		if i := indexOf(stack, ct); i >= 0 {
			cycle := append(append([]string(nil), stack[i:]...), ct)
			l.issue(Issue{Code: CodeImportCycle, Path: p, Target: strings.Join(cycle, " → "),
				Detail: "imports are followed once; a cycle adds nothing but is likely a mistake"})
			continue
		}
		if !exists(target) {
			// "ask @alice." is a mention; "see @docs/x.md." a reference the
			// agent reads with its final period, and misses
			trimmed := strings.TrimRight(ref, ".,;:!?)]}'\"")
			detail := "the agent skips an import it cannot read"
			switch {
			case trimmed != ref && trimmed != "" && exists(resolveImport(trimmed, filepath.Dir(p), l.o.Home)):
				detail = fmt.Sprintf("the agent reads the reference with its trailing %q; write @%s", ref[len(trimmed):], trimmed)
			case !looksLikePath(trimmed):
				continue
			}
			l.issue(Issue{Code: CodeImportMissing, Path: p, Target: "@" + ref, Detail: detail})
			continue
		}
		if imp.within != "" && !within(real(target), real(imp.within)) {
			l.issue(Issue{Code: CodeImportMissing, Path: p, Target: "@" + ref,
				Detail: "Claude Code imports a file outside the working directory only once the user approved external imports for the project"})
			continue
		}
		if depth > r.hops {
			l.issue(Issue{Code: CodeImportTooDeep, Path: p, Target: "@" + ref, Limit: r.hops,
				Detail: fmt.Sprintf("the agent follows imports up to %d hops", r.hops)})
			continue
		}
		f := File{Path: target, Rule: r.text + " (imported)", Label: r.label + " (import)", Evidence: r.evidence, Scope: filepath.Dir(target),
			ImportedBy: p, Import: "@" + ref, Condition: imp.condition, rule: r.id}
		if !l.add(f) {
			continue
		}
		l.followImports(imp, target, append(stack, ct), depth+1)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// looksLikePath tells an import reference from a mention ("@alice"): a
// reference to a missing file is reported only when it has a slash, a dot
// or a leading ~.
func looksLikePath(ref string) bool {
	return strings.ContainsAny(ref, "/.") || strings.HasPrefix(ref, "~")
}

// resolveImport turns a reference into a path: ~/ is the home directory,
// an absolute path stays, anything else is relative to the importing
// file's directory.
func resolveImport(ref, dir, home string) string {
	switch {
	case ref == "":
		return ""
	case strings.HasPrefix(ref, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, ref[2:])
	case filepath.IsAbs(ref):
		return filepath.Clean(ref)
	}
	return filepath.Join(dir, ref)
}

func (l *loader) issue(i Issue) { l.chain.Issues = append(l.chain.Issues, i) }

// globFiles returns the regular files below dir matching the slash glob
// pattern, sorted.
func globFiles(dir, pattern string) []string {
	var out []string
	root := os.DirFS(dir)
	matches, err := globFS(root, pattern)
	if err != nil {
		return nil
	}
	for _, m := range matches {
		p := filepath.Join(dir, filepath.FromSlash(m))
		if exists(p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func scopeOf(w where, dir string) string {
	switch w {
	case whereManaged:
		return "managed"
	case whereCodexHome, whereUser, whereGeminiHome:
		return "user"
	}
	return dir
}

// readDirNames lists the directories in dir, sorted.
func readDirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

func runeCount(b []byte) int { return measure.Chars(b) }
func lineCount(b []byte) int { return measure.Lines(b) }

// markers are, per agent, the entries of a project directory that only
// that agent reads (AGENTS.md is read by several, so it marks none).
var markers = []struct {
	name  Name
	paths []string
}{
	{Claude, []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", ".claude/rules"}},
	{Codex, []string{"AGENTS.override.md"}},
	{Copilot, []string{".github/copilot-instructions.md", ".github/instructions"}},
	{Cursor, []string{".cursor/rules", ".cursorrules"}},
	{Gemini, []string{"GEMINI.md", ".gemini/settings.json"}},
}

// Detected is an agent whose own files a project has.
type Detected struct {
	Profile Name
	// File is the first marker found, relative to the directory.
	File string
}

// Detect returns, in the order of [Names], the agents whose own
// instruction files are in dir (CLAUDE.md for claude, GEMINI.md for gemini,
// .github/copilot-instructions.md for copilot, .cursor/rules for cursor,
// AGENTS.override.md for codex): a profile that would list what that agent
// loads by itself. It looks at names only, never at contents.
func Detect(dir string) []Detected {
	var out []Detected
	for _, m := range markers {
		for _, p := range m.paths {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
				out = append(out, Detected{Profile: m.name, File: p})
				break
			}
		}
	}
	return out
}
