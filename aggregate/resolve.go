package aggregate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

// IsHistoryFile reports whether name is a chat history file
// (history.toml or *_history.toml, any case), which is never aggregated.
func IsHistoryFile(name string) bool {
	l := strings.ToLower(path.Base(filepath.ToSlash(name)))
	return l == "history.toml" || strings.HasSuffix(l, "_history.toml")
}

// isGlob reports whether entry uses glob syntax.
func isGlob(entry string) bool { return strings.ContainsAny(entry, "*?[{") }

// target is one resolved file (or a resolution error) of a files entry.
type target struct {
	file     FileItem // settings; Path is the entry
	abs      string   // host path; "" for an entry error
	label    string
	explicit bool   // named directly, not through a glob or a walk
	err      string // entry error: "file not found: ..." etc.
	missing  bool   // a path, not a glob, that does not exist
	// path is the host path of an entry error that has one: a directory
	// a walk left out (it sorts among the walk's files)
	path string
}

// sortKey is the host path a walk's target sorts by.
func (t target) sortKey() string { return cmp.Or(t.abs, t.path) }

// resolver expands entries below a base directory.
type resolver struct {
	base  string // absolute, clean
	ign   Ignorer
	skip  map[string]string // absolute, clean directories walks never enter: what each is
	rules *ignoreRules      // the default and the caller's patterns
	// dropped counts the paths the ignore rules, the history file and the
	// outputs left out of walks (see leftOut)
	dropped int
	// history holds the chat history file (Options.HistoryFile),
	// as given and with its links resolved
	history map[string]bool
	// outputs are the output directories that hold the base directory
	// (output_dir = "."): walks enter them, leaving out only the numbered
	// outputs directly in them (OutputName), whose pattern this is
	outputs map[string]*regexp.Regexp
	log     ignoredLog // what the default patterns left out
	// redact, when not nil (Options.Redact), redacts labels: a file named
	// after a credential is shown and recorded under the redacted name
	redact secrets.Scanner
	only   map[string]bool // when set, keep only these files (see [Changes])
	// resolved holds the host paths that the entries resolved to
	resolved map[string]int
	// strict makes a path that does not exist an error of the run
	// ([MissingError]) rather than an error item (screenshots)
	strict bool
	// reported holds the directories a walk left out that are already
	// error items (see skippedDir), so that each is reported once
	reported map[string]bool
}

// newResolver returns the resolver of o's entries below base, with the
// repository rules ign.
func newResolver(o Options, base string, ign Ignorer) *resolver {
	r := &resolver{base: base, ign: ign, skip: map[string]string{}, history: map[string]bool{}, reported: map[string]bool{},
		outputs: map[string]*regexp.Regexp{}, rules: newIgnoreRules(!o.NoDefaultIgnores, o.IgnorePatterns), redact: o.Redact}
	for d := range o.skipSet() {
		if rel, err := filepath.Rel(d, base); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			// the output directory holds the base directory: skipping it
			// would leave nothing, so only the outputs are left out
			r.outputs[d] = outputPattern(o.Namespace)
			continue
		}
		r.skip[d] = "the output directory"
	}
	if o.AttachmentsDir != "" {
		r.skip[o.AttachmentsDir] = "the attachments directory of [history]"
		if real, err := filepath.EvalSymlinks(o.AttachmentsDir); err == nil {
			r.skip[real] = r.skip[o.AttachmentsDir]
		}
	}
	if o.HistoryFile != "" {
		r.history[o.HistoryFile] = true
		if real, err := filepath.EvalSymlinks(o.HistoryFile); err == nil {
			r.history[real] = true
		}
	}
	return r
}

// outputPattern matches the names of the numbered outputs of namespace.
func outputPattern(namespace string) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(namespace) + `_\d+\.md$`)
}

// isOutput reports whether abs is a numbered output directly in an
// output directory that holds the base directory.
func (r *resolver) isOutput(abs string) bool {
	re, ok := r.outputs[filepath.Dir(abs)]
	return ok && re.MatchString(filepath.Base(abs))
}

// isHistory reports whether abs is the chat history file: its path,
// or, for a symbolic link, where the link leads.
func (r *resolver) isHistory(abs string, link bool) bool {
	if len(r.history) == 0 {
		return false
	}
	if r.history[abs] {
		return true
	}
	if link {
		real, err := filepath.EvalSymlinks(abs)
		return err == nil && r.history[real]
	}
	return false
}

// ignored returns what the default ignore list left out of the walks,
// sorted: not the files that an entry resolved to, and under a change
// filter only the changed files and the directories holding one.
func (r *resolver) ignored() []IgnoredPath {
	var keep func(IgnoredPath) bool
	if r.only != nil {
		keep = func(p IgnoredPath) bool {
			real := realPath(p.abs)
			if !p.Dir {
				return r.only[real]
			}
			for f := range r.only {
				if strings.HasPrefix(f, real+string(filepath.Separator)) {
					return true
				}
			}
			return false
		}
	}
	return r.log.list(r.resolved, keep)
}

// skipDir returns the directory that walks never enter (the output
// directory, Options.SkipDirs, the attachments directory) holding abs or
// equal to it, as "out, the output directory".
func (r *resolver) skipDir(abs string) (string, bool) {
	for d := abs; ; {
		if what, ok := r.skip[d]; ok {
			return mdtext.Escape(r.label(d)) + ", " + what, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// label returns abs relative to the base directory with forward slashes.
func (r *resolver) label(abs string) string {
	rel, err := filepath.Rel(r.base, abs)
	if err != nil {
		return r.redacted(filepath.Base(abs))
	}
	return r.redacted(filepath.ToSlash(rel))
}

// redacted is label with its credentials replaced, when the run redacts.
func (r *resolver) redacted(label string) string {
	if r.redact == nil {
		return label
	}
	if red, found, err := r.redact.Redact(context.Background(), "", label); err == nil && len(found) > 0 {
		return red
	}
	return label
}

func (r *resolver) abs(p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.base, p)
}

// resolveAll expands every entry in order. A file reached by several
// entries (or through symbolic links) is kept once, at its first position;
// an explicit entry's settings win over a glob's or a walk's.
func (r *resolver) resolveAll(ctx context.Context, entries []FileItem) ([]target, error) {
	var out []target
	var missing []target
	seen := map[string]int{}
	for _, e := range entries {
		ts, err := r.resolve(ctx, e)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if t.missing && r.strict {
				if !t.file.Optional {
					missing = append(missing, t)
				}
				continue
			}
			if t.abs == "" {
				out = append(out, t)
				continue
			}
			key := t.abs
			if real, err := filepath.EvalSymlinks(t.abs); err == nil {
				key = real // a file reached through a link is the same file
			}
			if i, ok := seen[key]; ok {
				if t.explicit && !out[i].explicit {
					out[i].file, out[i].explicit = t.file, true
				}
				continue
			}
			seen[key] = len(out)
			out = append(out, t)
		}
	}
	if len(missing) > 0 {
		return nil, newMissingError(missing)
	}
	r.resolved = map[string]int{}
	for _, t := range out {
		if t.abs != "" {
			r.resolved[t.abs] = 0
		}
	}
	if r.only != nil {
		kept := out[:0]
		for _, t := range out {
			if t.abs == "" || r.only[realPath(t.abs)] {
				kept = append(kept, t) // entry errors stay: never hidden
			}
		}
		out = kept
	}
	return out, nil
}

// resolve expands one entry: a glob, a directory (walked) or a file. An
// entry with glob characters that names an existing path is that path.
func (r *resolver) resolve(ctx context.Context, e FileItem) ([]target, error) {
	entry := e.Path
	errT := func(label, msg string) []target {
		return []target{{file: e, label: r.redacted(label), err: r.redacted(msg)}}
	}
	if strings.TrimSpace(entry) == "" {
		return errT(entry, "empty path"), nil
	}
	if isGlob(entry) && !r.exists(entry) {
		pat := filepath.ToSlash(entry)
		base, pattern := doublestar.SplitPattern(pat)
		if !doublestar.ValidatePattern(pattern) {
			return errT(pat, "invalid glob: "+mdtext.Escape(pat)), nil
		}
		if d, ok := r.skipDir(r.abs(base)); ok {
			return errT(pat, "no files matched: "+mdtext.Escape(pat)+" (globs never enter "+d+")"), nil
		}
		dropped := r.dropped
		files, skipped, err := r.walk(ctx, r.abs(base), pattern)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 && len(skipped) == 0 {
			why, err := r.leftOut(ctx, r.abs(base), pattern, dropped)
			if err != nil {
				return nil, err
			}
			return errT(pat, "no files matched: "+mdtext.Escape(pat)+why), nil
		}
		return r.walked(e, files, skipped), nil
	}
	abs := r.abs(entry)
	label := r.label(abs)
	if IsHistoryFile(abs) {
		return errT(label, "history files are never aggregated: "+mdtext.Escape(label)), nil
	}
	if r.isHistory(abs, true) {
		return errT(label, "history files are never aggregated: "+mdtext.Escape(label)+" is the history file of [history], sent as the Discussion History"), nil
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(abs); lerr == nil {
			// a link whose target is gone: the path is there (no typo),
			// and reading it says what is wrong, as for any file
			return r.targets(e, []string{abs}, true), nil
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ts := errT(label, "file not found: "+mdtext.Escape(label))
		ts[0].missing = true
		return ts, nil
	case err != nil:
		return errT(label, "cannot read "+mdtext.Escape(label)+": "+fileio.Cause(err).Error()), nil
	case st.IsDir():
		if d, ok := r.skipDir(abs); ok {
			return errT(label, "no files matched: "+mdtext.Escape(label)+" (directory walks never enter "+d+")"), nil
		}
		dropped := r.dropped
		files, skipped, err := r.walk(ctx, abs, "**")
		if err != nil {
			return nil, err
		}
		if len(files) == 0 && len(skipped) == 0 {
			why, err := r.leftOut(ctx, abs, "**", dropped)
			if err != nil {
				return nil, err
			}
			return errT(label, "no files matched: "+mdtext.Escape(label)+why), nil
		}
		return r.walked(e, files, skipped), nil
	}
	return r.targets(e, []string{abs}, true), nil
}

// MissingError is the error of a run whose files name a path (not a glob)
// that does not exist: ctx aggregate missing.py, or a [files] entry. A
// misspelled path is bad input, never an "ERROR:" line in the document in
// place of the file; a glob that matches nothing stays an error item (a
// warning of the command). Nothing is written.
type MissingError struct {
	// Entries are the paths as written, in order; At says where each
	// was written (FileItem.At, "" for an argument).
	Entries []string
	At      []string
}

func newMissingError(ts []target) *MissingError {
	e := &MissingError{}
	for _, t := range ts {
		e.Entries = append(e.Entries, t.file.Path)
		e.At = append(e.At, t.file.At)
	}
	return e
}

// Error names the first path, where it was written, and the others:
// "ctx.toml:4: files.paths[0]: missing.py: no such file (nor b.py, c.py)".
func (e *MissingError) Error() string {
	msg := mdtext.Escape(e.Entries[0]) + ": no such file"
	if e.At[0] != "" {
		msg = e.At[0] + ": " + msg
	}
	if len(e.Entries) > 1 {
		others := make([]string, len(e.Entries)-1)
		for i, p := range e.Entries[1:] {
			others[i] = mdtext.Escape(p)
		}
		msg += " (nor " + shownList(others, BinaryShown) + ")"
	}
	return msg
}

// exists reports whether entry names an existing file or directory as it
// is written: such an entry is a path even when its name holds glob
// characters (app/[id]/page.tsx).
func (r *resolver) exists(entry string) bool {
	_, err := os.Lstat(r.abs(entry))
	return err == nil
}

func (r *resolver) targets(e FileItem, files []string, explicit bool) []target {
	out := make([]target, len(files))
	for i, f := range files {
		out[i] = target{file: e, abs: f, label: r.label(f), explicit: explicit}
	}
	return out
}

// walked returns the targets of a walk: its files, and an error item for
// each directory it left out that was not reported yet, in path order.
func (r *resolver) walked(e FileItem, files []string, skipped []skippedDir) []target {
	out := r.targets(e, files, false)
	for _, s := range skipped {
		if r.reported[s.abs] {
			continue
		}
		r.reported[s.abs] = true
		label := r.label(s.abs)
		msg := s.why
		if s.cause != "" {
			msg = "cannot read directory " + mdtext.Escape(label) + ": " + s.cause
		}
		out = append(out, target{file: e, label: label, err: r.redacted(msg), path: s.abs})
	}
	sort.SliceStable(out, func(i, j int) bool {
		return filepath.ToSlash(out[i].sortKey()) < filepath.ToSlash(out[j].sortKey())
	})
	return out
}

// MaxWalkDepth bounds how deep globs and directory walks go: a directory
// more than MaxWalkDepth levels below the directory a walk starts from is
// not entered, and is an error item that says so (a file in it named
// explicitly, or a walk that starts nearer, still reads it). Such a
// directory is no source tree; without the bound, one made 10,000 levels
// deep costs every run minutes of CPU before the system refuses its path.
const MaxWalkDepth = 256

// skippedDir is a directory that a walk did not enter although the ignore
// rules let it in: one it could not read (cause, "permission denied"), or
// one past the limits of a walk (why).
type skippedDir struct {
	abs   string
	cause string
	why   string
}

// walkLimit says why a walk does not enter the directory p, rel below
// its root: "" when it does.
func walkLimit(p, rel string) string {
	if len(p)+len(string(filepath.Separator)+".gitignore") >= maxPathBytes {
		return fmt.Sprintf("not walked: its path would be longer than the system's limit of %d bytes", maxPathBytes)
	}
	if strings.Count(rel, "/")+1 > MaxWalkDepth {
		return fmt.Sprintf("not walked: more than %d directories deep, where walks stop", MaxWalkDepth)
	}
	return ""
}

// walk returns the files below root whose slash path relative to root
// matches pattern, sorted, and the directories it left out although the
// ignore rules let them in (one that cannot be read, or past
// MaxWalkDepth or the system's limit on the length of a path). It skips
// .git directories, history files and what the ignorer ignores, and does
// not follow symbolic links to directories. A missing root yields
// nothing.
func (r *resolver) walk(ctx context.Context, root, pattern string) ([]string, []skippedDir, error) {
	return r.traverse(ctx, root, pattern, true, measure.Limit{})
}

// traverse is walk, with the ignore rules (git's, the default list and the
// caller's patterns) applied when apply is set, and stopping after limit
// files; a limited walk is an explanation, which also stops after
// maxExplainVisits paths.
func (r *resolver) traverse(ctx context.Context, root, pattern string, apply bool, limit measure.Limit) ([]string, []skippedDir, error) {
	maxDepth := -1 // unbounded
	if !strings.Contains(pattern, "**") {
		maxDepth = strings.Count(pattern, "/") + 1
	}
	var files []string
	var skipped []skippedDir
	visits := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if visits++; limit.IsSet() && visits > maxExplainVisits {
			return filepath.SkipAll // an explanation is not worth a long walk
		}
		if err != nil {
			if p == root || d == nil || d.IsDir() {
				// unreadable: nothing to list, and said so (a directory
				// gone since it was listed, or a missing root, is nothing)
				if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
					skipped = append(skipped, skippedDir{abs: p, cause: fileio.Cause(err).Error()})
				}
				return filepath.SkipDir
			}
			return nil
		}
		if p == root {
			if !d.IsDir() {
				return filepath.SkipAll
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if _, skip := r.skip[p]; skip || d.Name() == ".git" {
				return filepath.SkipDir
			}
			if apply && r.gitIgnored(root, p, true) {
				r.dropped++
				return filepath.SkipDir
			}
			if maxDepth >= 0 && strings.Count(rel, "/")+1 >= maxDepth {
				return filepath.SkipDir
			}
			if apply {
				if ex, ru := r.rules.match(r.parts(p), true); ex {
					r.note(p, true, ru)
					r.dropped++
					return filepath.SkipDir
				}
			}
			if why := walkLimit(p, rel); why != "" {
				skipped = append(skipped, skippedDir{abs: p, why: why})
				return filepath.SkipDir
			}
			return nil
		}
		link := d.Type()&fs.ModeSymlink != 0
		if link {
			st, err := os.Stat(p)
			if err != nil || st.IsDir() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		if IsHistoryFile(d.Name()) || !doublestar.MatchUnvalidated(pattern, rel) {
			return nil
		}
		if apply && (r.isOutput(p) || r.isHistory(p, link) || r.gitIgnored(root, p, false)) {
			r.dropped++
			return nil
		}
		if apply {
			if ex, ru := r.rules.match(r.parts(p), false); ex {
				r.note(p, false, ru)
				r.dropped++
				return nil
			}
		}
		if limit.Exceeded(int64(len(files)) + 1) {
			return filepath.SkipAll // limit files are listed
		}
		files = append(files, p)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	if err := ignoreErr(r.ign); err != nil {
		return nil, nil, err
	}
	sort.Slice(files, func(i, j int) bool { return filepath.ToSlash(files[i]) < filepath.ToSlash(files[j]) })
	return files, skipped, nil
}

// gitIgnored reports whether the repository rules leave p out of a walk of
// root. A walk of a directory that git ignores (named explicitly, or a
// glob's base) reads it: git's rules apply below root, never to root or
// its parents.
func (r *resolver) gitIgnored(root, p string, isDir bool) bool {
	if g, ok := r.ign.(*GitIgnore); ok {
		return g.whyBelow(root, p, isDir) != nil
	}
	return r.ign.Ignored(p, isDir)
}

// parts is p relative to the base directory, split at slashes.
func (r *resolver) parts(p string) []string {
	ps, _ := splitRel(r.base, p)
	return ps
}

// maxExplained bounds the files that leftOut looks at, and
// maxExplainVisits the paths its walk visits.
const (
	maxExplained     = 50
	maxExplainVisits = 20000
)

// leftOut says, for an entry below root that matched nothing, what left
// out the files it would have matched: when the walk dropped anything
// since dropped, it walks root again without the ignore rules (stopping
// at maxExplained files or maxExplainVisits paths) and names, for each file,
// the first rule of the walk that leaves it or a directory above it out:
// the default ignore list, the caller's ignore patterns (naming the first
// one), git (naming the first pattern, ".gitignore:3 /versions") or the
// caller's Ignorer. "" when nothing would have matched.
func (r *resolver) leftOut(ctx context.Context, root, pattern string, dropped int) (string, error) {
	if r.dropped == dropped {
		return "", nil // nothing was left out: nothing matched
	}
	files, _, err := r.traverse(ctx, root, pattern, false, measure.Max(maxExplained))
	if err != nil || len(files) == 0 {
		return "", err
	}
	var defaults, history bool
	var user, git, other, outputs string
	for _, f := range files {
		switch kind, what := r.why(root, f); kind {
		case whyOutput:
			outputs = cmp.Or(outputs, what)
		case whyHistory:
			history = true
		case whyDefault:
			defaults = true
		case whyPattern:
			user = cmp.Or(user, what)
		case whyGit:
			git = cmp.Or(git, what)
		case whyOther:
			other = "the ignore rules"
		}
	}
	var kinds, details []string
	if !defaults && user == "" && git == "" && other == "" {
		switch {
		case outputs != "":
			return " (earlier outputs are never aggregated: " + mdtext.Escape(outputs) + ")", nil
		case history:
			return " (the history file of [history] is never aggregated)", nil
		}
	}
	if defaults {
		kinds = append(kinds, "the default ignores")
	}
	if user != "" {
		kinds = append(kinds, "the ignore patterns")
		details = append(details, mdtext.Escape(user))
	}
	if git != "" {
		kinds = append(kinds, "git")
		details = append(details, mdtext.Escape(git))
	}
	if other != "" {
		kinds = append(kinds, other)
	}
	switch {
	case len(kinds) == 0:
		return "", nil
	case len(kinds) == 1 && git != "":
		return " (git ignores what it matched: " + details[0] + "; --no-gitignore reads it)", nil
	case len(details) == 0:
		return " (" + strings.Join(kinds, " and ") + " left out what it matched)", nil
	}
	return " (" + strings.Join(kinds, " and ") + " left out what it matched: " + strings.Join(details, ", ") + ")", nil
}

// What left a file out of a walk (see why).
const (
	whyNone = iota
	whyDefault
	whyPattern
	whyGit
	whyOther
	whyHistory
	whyOutput
)

// why returns what leaves f out of a walk of root, checking each directory
// between them and then f in the walk's order (git's rules, then the
// ignore patterns), and the rule: a pattern of the caller's, or git's as
// ".gitignore:3 /versions".
func (r *resolver) why(root, f string) (int, string) {
	rel, err := filepath.Rel(root, f)
	if err != nil {
		return whyNone, ""
	}
	if r.isHistory(f, true) {
		return whyHistory, ""
	}
	if r.isOutput(f) {
		return whyOutput, r.label(f)
	}
	steps := strings.Split(rel, string(filepath.Separator))
	p := root
	for i, s := range steps {
		p = filepath.Join(p, s)
		isDir := i < len(steps)-1
		if g, ok := r.ign.(*GitIgnore); ok {
			if w := g.whyBelow(root, p, isDir); w != nil {
				return whyGit, w.String()
			}
		} else if r.ign.Ignored(p, isDir) {
			return whyOther, ""
		}
		if ex, ru := r.rules.match(r.parts(p), isDir); ex && ru != nil {
			if ru.isDefault {
				return whyDefault, ru.text
			}
			return whyPattern, ru.text
		}
	}
	return whyNone, ""
}

// note records a path that a default pattern left out.
func (r *resolver) note(abs string, isDir bool, ru *rule) {
	if ru != nil && ru.isDefault {
		r.log.add(IgnoredPath{Path: r.label(abs), Dir: isDir, Pattern: ru.text, abs: abs})
	}
}

// realPath is abs with the symbolic links of its directory resolved (the
// file itself is kept, so that a link is the link git reports).
func realPath(abs string) string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return abs
	}
	return filepath.Join(dir, filepath.Base(abs))
}
