package aggregate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/goroutine"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

// Strategy selects how the files section is rendered.
type Strategy string

// The strategies.
const (
	// StrategyAuto renders the summary section when SummaryOnly is set, else
	// each file in its own view. It is the default.
	StrategyAuto Strategy = "auto"
	// StrategySummarize renders every file as a summary.
	StrategySummarize Strategy = "summarize"
	// StrategyFull renders each file in its own view, ignoring SummaryOnly.
	StrategyFull Strategy = "full"
	// StrategyTier3 renders the "Files (Tier 3 - Focused)" section, as
	// Options.Tier3 does: the focus files (Options.Focus) in full, the rest
	// in a structural view.
	StrategyTier3 Strategy = "tier3"
)

// ParseStrategy checks s; "" is [StrategyAuto].
func ParseStrategy(s string) (Strategy, error) {
	switch st := Strategy(s); st {
	case "":
		return StrategyAuto, nil
	case StrategyAuto, StrategySummarize, StrategyFull, StrategyTier3:
		return st, nil
	}
	return "", fmt.Errorf("unknown strategy %q (want auto, summarize, full or tier3)", s)
}

// Defaults.
const (
	// DefaultMaxFileBytes caps the size of one file read.
	DefaultMaxFileBytes = 4 << 20
	// DefaultNamespace names the output files when none is configured.
	DefaultNamespace = "ctx"
)

// Options configure a pipeline run.
type Options struct {
	// BaseDir is the directory that relative entries and labels start from;
	// "" is the working directory.
	BaseDir string
	// Files are the entries, in order.
	Files []FileItem
	// ScreenshotBaseDir is the base of Screenshots; "" is BaseDir.
	ScreenshotBaseDir string
	// Screenshots are image paths or globs.
	Screenshots []string
	Strategy    Strategy
	SummaryOnly bool
	// Tier3 renders the "Files (Tier 3 - Focused)" section (as Strategy
	// StrategyTier3 does): focus files, tier 3 items and force_full items
	// in full; the rest as outlines for C and C++ source files (the
	// original's signature/outline treatment; headers get their skeleton,
	// which is their signatures), as skeletons for the other languages the
	// engine parses, else summaries (view none and custom items keep their
	// view).
	Tier3 bool
	// Focus lists the focus files, each matched against an item's entry,
	// its relative path, its base name (for a focus without a slash) or its
	// absolute path, never by substring (see [FocusMatches]). A non-empty
	// Focus implies Tier3; Result.UnmatchedFocus lists those that matched
	// no file.
	Focus []string
	// Beads, when set, adds the Beads section ("## Beads Mode: Progress
	// Track", execution_mode = "beads") from the project's Beads store,
	// between the screenshots and the history; nil adds none.
	Beads *beads.Options
	// History is the chat history, already rendered; it becomes the
	// last section, "## Discussion History".
	History string
	// OutputDir, when set, makes Run write {OutputDir}/{Namespace}_{NNN}.md.
	// An output directory that the run makes (or that holds nothing but
	// numbered outputs) gets a .gitignore of "*" ([OutputIgnore]), so that
	// git and other packers leave the outputs alone.
	OutputDir string
	// OutputDirAt says where OutputDir was set, for the [OutputDirError]
	// of a directory that cannot hold the outputs: "ctx.toml:5:
	// output.output_dir"; "" names it output_dir.
	OutputDirAt string
	Namespace   string
	// Keep bounds how many numbered outputs of Namespace the output
	// directory keeps: after a run writes its file, the older ones past
	// the newest Keep are removed (only regular files named
	// {Namespace}_{N}.md, never another file). The file just written is
	// always kept, so Max(0) keeps it alone, as Max(1) does. The zero Limit
	// keeps them all; config.AggregateOptions sets Max([DefaultKeep])
	// unless [output] keep says otherwise.
	Keep measure.Limit
	// Concurrency bounds the parallel file workers; 0 is GOMAXPROCS.
	Concurrency int
	// MaxFileBytes caps one file's size, a safety cap: 0 (or less) is
	// DefaultMaxFileBytes; it cannot be turned off.
	MaxFileBytes int64
	// ProjectDir bounds what is read: a file whose real path (every link
	// resolved) lies outside it, and outside every directory of
	// AllowOutside, is an error item ("outside the project") and is not
	// read; "" is BaseDir. An entry given as an absolute path or with ".."
	// is no exception, nor is a link inside the project.
	ProjectDir string
	// AllowOutside lists the directories outside ProjectDir whose files
	// may be read ("/" allows every file); an item read from one records
	// its real path (Item.RealPath).
	AllowOutside []string
	// MaxFileTokens caps the tokens of each file block and MaxTokens those
	// of all file blocks together; the zero Limit is no limit (the
	// default). Files over a limit are degraded full → skeleton → outline →
	// summary → omitted, and Item.Degraded records it (see the package
	// documentation, "Token budget").
	MaxFileTokens measure.Limit
	MaxTokens     measure.Limit
	// MaxTokensAt says where MaxTokens was set, for the [BudgetError] of a
	// budget too small: "ctx.toml:9: files.max_tokens", "--max-tokens";
	// "" names it "max_tokens".
	MaxTokensAt string
	// Estimator counts the tokens of every file and block; nil is
	// measure.Default().
	Estimator measure.Estimator
	// Engine renders the structural views; nil is [TextEngine], which has
	// none (a skeleton falls back to the text summary). codeview.Engine is
	// the tree-sitter engine, which config.Project gives every run.
	Engine Engine
	// Cache keeps views, token counts and symbol counts between runs (see
	// [Cache]); nil, the default, keeps nothing. The output is the same
	// with or without it. ctx sets package cache's directory.
	Cache Cache
	// Ignore decides what globs and walks skip; nil is git's rules
	// ([NewGitIgnore] of BaseDir). A walk of a directory that git
	// ignores, named explicitly or as a glob's base, reads it: git's rules
	// apply below it.
	Ignore Ignorer
	// NoGitIgnore turns git's rules off (Ignore is then not used): for a
	// tree inside a repository that ignores it (--no-gitignore, gitignore
	// = false in [files]).
	NoGitIgnore bool
	// NoDefaultIgnores turns off the default ignore list ([DefaultIgnores]:
	// lock files, .env files, private keys, dependency, build and cache
	// directories), which globs and walks otherwise apply after Ignore. What
	// the list leaves out is in Result.Ignored.
	NoDefaultIgnores bool
	// IgnorePatterns are more patterns in gitignore syntax, relative to the
	// base directory, applied after the default list (so "!go.sum" keeps a
	// file the list leaves out). A file named explicitly is always read.
	IgnorePatterns []string
	// Changed, when set, keeps only the files it lists ([ChangedFiles]):
	// the entries are resolved as usual and the files that did not change
	// are dropped (entries that match nothing stay, as errors).
	Changed *Changes
	// SkipDirs are directories that globs and walks never enter (a file
	// in one named explicitly is still read). OutputDir is always one of
	// them, and config.AggregateOptions adds the configured output directory
	// even when the caller then clears OutputDir (--stdout), so earlier
	// outputs never feed back into a run.
	SkipDirs []string
	// HistoryFile is the chat history file (history of [history])
	// and AttachmentsDir its attachments directory: like history.toml they
	// are never aggregated (they are sent as the Discussion History). Globs
	// and walks leave the file out and never enter the directory, and an
	// entry naming the history file is an error item.
	HistoryFile    string
	AttachmentsDir string
	// Progress, when set, is called after each file with the number done
	// and the total, from any goroutine, one call at a time.
	Progress func(done, total int)
	// Redact, when not nil, replaces every credential it finds in a text
	// file with "[REDACTED:rule]" before the file's view is made, so that
	// no view holds one; Item.Redacted records them.
	Redact secrets.Scanner
	// Scan, when not nil and Redact is nil, looks for credentials in every
	// text file packed, and in the Beads and Discussion History sections,
	// and leaves them: Item.Secrets and Result.SectionSecrets record them
	// (the rule, line and column, never the secret) and
	// Result.UnredactedSecrets lists them, so that a pack never holds a
	// credential without a word.
	Scan secrets.Scanner

	bound *fileio.Boundary // ProjectDir and AllowOutside, set by normalized
	gate  *gate            // the bytes parsed at once, set by normalized
}

// OrProject returns o with the whole base directory as its one entry
// (".", walked with .gitignore and the ignore lists) when o.Files is
// empty: what ctx aggregate and ctx stats take without [files] paths or
// arguments, as repomix packs the directory it runs in.
func (o Options) OrProject() Options {
	if len(o.Files) == 0 {
		o.Files = []FileItem{{Path: "."}}
	}
	return o
}

func (o Options) tier3() bool { return o.Tier3 || o.Strategy == StrategyTier3 || len(o.Focus) > 0 }

func (o Options) summary() bool {
	return o.Strategy == StrategySummarize || ((o.Strategy == StrategyAuto || o.Strategy == "") && o.SummaryOnly)
}

// Section returns the title of the files section for o.
func (o Options) Section() string {
	switch {
	case o.tier3():
		return "Files (Tier 3 - Focused)"
	case o.summary():
		return "Files (Summary)"
	}
	return "Files"
}

func (o Options) normalized() (Options, error) {
	if o.Strategy == "" {
		o.Strategy = StrategyAuto
	}
	if _, err := ParseStrategy(string(o.Strategy)); err != nil {
		return o, err
	}
	base := o.BaseDir
	if base == "" {
		base = "."
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return o, fmt.Errorf("failed to resolve base directory: %w", err)
	}
	o.BaseDir = abs
	if o.ScreenshotBaseDir == "" {
		o.ScreenshotBaseDir = abs
	} else if o.ScreenshotBaseDir, err = filepath.Abs(o.ScreenshotBaseDir); err != nil {
		return o, fmt.Errorf("failed to resolve screenshot base directory: %w", err)
	}
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.GOMAXPROCS(0)
	}
	if o.MaxTokens.Negative() || o.MaxFileTokens.Negative() {
		return o, fmt.Errorf("token limits must not be negative (max_tokens %s, max_file_tokens %s)", o.MaxTokens, o.MaxFileTokens)
	}
	if o.Keep.Negative() {
		return o, fmt.Errorf("keep must not be negative, not %s", o.Keep)
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	project := o.ProjectDir
	if project == "" {
		project = abs
	}
	o.bound = fileio.NewBoundary(project, o.AllowOutside)
	o.gate = newGate(parseGate)
	o.Engine = engineOr(o.Engine)
	if o.Estimator == nil {
		o.Estimator = measure.Default()
	}
	switch {
	case o.NoGitIgnore:
		o.Ignore = noIgnore{}
	case o.Ignore == nil:
		o.Ignore = NewGitIgnore(abs)
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	for _, p := range o.IgnorePatterns {
		if err := CheckIgnorePattern(p); err != nil {
			return o, fmt.Errorf("ignore pattern %q: %w", p, err)
		}
	}
	skip := append([]string(nil), o.SkipDirs...)
	if o.OutputDir != "" {
		skip = append(skip, o.OutputDir)
	}
	o.SkipDirs = nil
	for _, d := range skip {
		if d, err := filepath.Abs(d); err == nil {
			o.SkipDirs = append(o.SkipDirs, d)
		}
	}
	for _, p := range []*string{&o.HistoryFile, &o.AttachmentsDir} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return o, fmt.Errorf("failed to resolve %s: %w", *p, err)
			}
		}
	}
	return o, nil
}

// skipSet returns o.SkipDirs (absolute, clean) as a set.
func (o Options) skipSet() map[string]bool {
	m := make(map[string]bool, len(o.SkipDirs))
	for _, d := range o.SkipDirs {
		m[d] = true
	}
	return m
}

// IsFocus reports whether label (a relative slash path) is one of focus:
// equal to a focus path, or, for a focus entry without a slash, to the
// label's base name. Never a substring match. [FocusMatches] also matches
// the entry and the absolute path, as the pipeline does.
func IsFocus(label string, focus []string) bool {
	for _, f := range focus {
		if FocusMatches(f, label, "", "") {
			return true
		}
	}
	return false
}

// FocusMatches reports whether focus names a file, as the original's Tier 3
// matches a focus path against the file's entry, name and path: focus is
// the [files] entry that reached the file (entry, as written), its label
// (the path relative to the base directory), its base name (for a focus
// without a slash) or, for an absolute focus, its absolute path abs.
// Paths are compared cleaned, with forward slashes; never by substring
// (the original's substring match made a.py match data.py). entry and abs
// may be "".
func FocusMatches(focus, label, entry, abs string) bool {
	clean := func(p string) string { return strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "./") }
	f := clean(focus)
	switch {
	case f == label:
		return true
	case entry != "" && f == clean(entry):
		return true
	case !strings.Contains(f, "/") && f == path.Base(label):
		return true
	case abs != "" && filepath.IsAbs(focus) && filepath.Clean(focus) == abs:
		return true
	}
	return false
}

// isFocus reports whether one of o.Focus names the target.
func (o Options) isFocus(t target) bool {
	for _, f := range o.Focus {
		if FocusMatches(f, t.label, t.file.Path, t.abs) {
			return true
		}
	}
	return false
}

// unmatchedFocus returns the focus entries that name no target.
func (o Options) unmatchedFocus(targets []target) []string {
	var out []string
	for _, f := range o.Focus {
		found := false
		for _, t := range targets {
			if t.err == "" && FocusMatches(f, t.label, t.file.Path, t.abs) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, f)
		}
	}
	return out
}

// tier3View is the view of a file that is not a focus file in Tier 3. The
// original gives Python files their skeleton and C and C++ files "the AST
// signature/outline": here the outline for C and C++ source files and the
// skeleton, which is their signatures, for headers (.h, .hh, .hpp, .hxx,
// .h++); the skeleton for the other languages the engine parses (a summary
// where it parses none).
func tier3View(eng Engine, label string) ViewMode {
	lang, ok := eng.Detect(label)
	if !ok || (lang != "c" && lang != "cpp") {
		return ViewSkeleton
	}
	switch strings.ToLower(path.Ext(label)) {
	case ".h", ".hh", ".hpp", ".hxx", ".h++":
		return ViewSkeleton
	}
	return ViewOutline
}

// plan picks the view of one file and whether it is a focus file.
func plan(o Options, t target) (ViewMode, bool) {
	f := t.file
	mode := f.ViewMode
	if mode == "" {
		mode = ViewFull
	}
	if o.tier3() {
		isFocus := o.isFocus(t)
		switch {
		case isFocus || f.Tier == 3 || f.ForceFull:
			return ViewFull, isFocus
		case mode == ViewNone || mode == ViewCustom:
			return mode, false
		}
		return tier3View(o.Engine, t.label), false
	}
	if f.ForceFull {
		return ViewFull, false
	}
	if o.summary() && mode != ViewNone {
		return ViewSummary, false
	}
	return shortcut(mode, f), false
}

// shortcut applies ast_definitions and ast_signatures to a file in the
// full view: they are the original's skeleton-equivalent shortcuts, so
// ast_signatures gives the skeleton and ast_definitions the masked view
// with every top-level definition (definitions win when both are set).
// Other views are left as they are (in the masked view the flags are the
// defaults of the mask).
func shortcut(mode ViewMode, f FileItem) ViewMode {
	switch {
	case mode != ViewFull:
		return mode
	case f.ASTDefinitions:
		return ViewMasked
	case f.ASTSignatures:
		return ViewSkeleton
	}
	return mode
}

// fileData is one file read from disk.
type fileData struct {
	src   []byte
	mtime time.Time
	err   string
	// outside is the file's real path when it lies outside the project
	// (in a directory allowed outside it); "" otherwise
	outside string
}

// readBounded reads the file of a target within the boundary b (nil: any
// file).
func readBounded(abs, label string, limit int64, b *fileio.Boundary) fileData {
	label = mdtext.Escape(label) // for the messages
	var src []byte
	var st fs.FileInfo
	var real string
	var err error
	if b == nil {
		src, st, err = fileio.Read(abs, limit)
	} else {
		src, st, real, err = fileio.ReadAllowed(abs, limit, b.Allowed)
	}
	var mtime time.Time
	if st != nil {
		mtime = st.ModTime().UTC()
	}
	var tl *fileio.TooLargeError
	var oe *fileio.OutsideError
	switch {
	case err == nil:
		d := fileData{src: src, mtime: mtime}
		if b != nil && !b.Inside(real) {
			d.outside = real
		}
		return d
	case errors.As(err, &oe):
		return fileData{err: fmt.Sprintf("outside the project: %s is %s (--allow-outside, or allow_outside in the user configuration, reads it)", label, oe.Real)}
	case errors.Is(err, os.ErrNotExist):
		return fileData{err: "file not found: " + label}
	case errors.Is(err, fileio.ErrIsDir):
		return fileData{err: "is a directory: " + label}
	case errors.Is(err, fileio.ErrNotRegular):
		return fileData{err: "not a regular file: " + label}
	case errors.As(err, &tl) && tl.Size >= 0:
		return fileData{mtime: mtime, err: fmt.Sprintf("file too large: %s is %d bytes, the limit is %d", label, tl.Size, limit)}
	case errors.As(err, &tl):
		return fileData{mtime: mtime, err: fmt.Sprintf("file too large: %s grew past the limit of %d bytes", label, limit)}
	}
	return fileData{err: "cannot read " + label + ": " + fileio.Cause(err).Error()}
}

// parallel runs fn(i) for i in [0, n) on at most workers goroutines and
// stops early when ctx is done. Results are stored by index by fn itself.
// A panic of fn is raised again in the caller's goroutine once every worker
// is done (an unrecovered panic in a worker would end the process).
func parallel(ctx context.Context, n, workers int, progress func(done, total int), fn func(i int)) error {
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		done   int
		next   = make(chan int)
		panics goroutine.Catcher
	)
	defer panics.Repanic()
	for w := 0; w < min(workers, max(n, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				panics.Do(func() { fn(i) })
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		}()
	}
	var err error
loop:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		}
	}
	close(next)
	wg.Wait()
	return err
}

// Screenshot is one resolved screenshot.
type Screenshot struct {
	// Path is relative to the screenshot base directory, slash-separated.
	Path   string `json:"path"`
	Entry  string `json:"entry"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
	// Source measures the image file: bytes and hash.
	Source Measured `json:"source"`
	// Emitted measures the markdown block.
	Emitted Measured `json:"emitted"`
	// RealPath is the image's real path when it lies outside the project
	// (in a directory of Options.AllowOutside); a screenshot outside the
	// project and every allowed directory is an error, as a file is.
	RealPath string `json:"real_path,omitempty"`
}

// Block returns the screenshot's markdown block.
func (s *Screenshot) Block() string {
	h := "### " + codeSpan(s.Path) + "\n\n"
	if s.Error != "" {
		return h + "ERROR: " + mdtext.Escape(s.Error)
	}
	dest := mdtext.Escape(s.Path)
	if strings.ContainsAny(dest, " ()<>") {
		dest = "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(dest) + ">"
	}
	name := strings.NewReplacer("[", `\[`, "]", `\]`).Replace(mdtext.Escape(s.Name))
	return h + "![" + name + "](" + dest + ")"
}

// BuildScreenshots resolves opts.Screenshots below the screenshot base
// directory (globs respect .gitignore like files) and hashes each image,
// within the project as files are (Options.ProjectDir, AllowOutside).
func BuildScreenshots(ctx context.Context, opts Options) ([]Screenshot, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	return buildScreenshots(ctx, o)
}

func buildScreenshots(ctx context.Context, o Options) ([]Screenshot, error) {
	if len(o.Screenshots) == 0 {
		return nil, nil
	}
	ign := o.Ignore
	if o.ScreenshotBaseDir != o.BaseDir && isGitIgnore(o.Ignore) {
		ign = NewGitIgnore(o.ScreenshotBaseDir)
	}
	r := newResolver(o, o.ScreenshotBaseDir, ign)
	entries := make([]FileItem, len(o.Screenshots))
	for i, s := range o.Screenshots {
		entries[i] = FileItem{Path: s}
	}
	targets, err := r.resolveAll(ctx, entries)
	if err != nil {
		return nil, err
	}
	out := make([]Screenshot, len(targets))
	err = parallel(ctx, len(targets), o.Concurrency, nil, func(i int) {
		t := targets[i]
		s := Screenshot{Path: t.label, Entry: filepath.ToSlash(t.file.Path), Name: path.Base(t.label), Status: StatusOK}
		if t.err != "" {
			s.Status, s.Error = StatusError, t.err
		} else if d := readBounded(t.abs, t.label, o.MaxFileBytes, o.bound); d.err != "" {
			s.Status, s.Error = StatusError, d.err
		} else {
			s.Source = Measured{Sizes: measure.Sizes{Bytes: len(d.src)}, Hash: measure.Hash(d.src)}
			s.RealPath = d.outside
		}
		s.Emitted = measured([]byte(s.Block()), o.Estimator)
		out[i] = s
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// isGitIgnore reports whether ign is the default git ignorer (so that a different
// screenshot base gets its own repository rules).
func isGitIgnore(ign Ignorer) bool {
	_, ok := ign.(*GitIgnore)
	return ok
}

// Result is the outcome of [Run] and [Stream].
type Result struct {
	// Markdown is the whole document; Static is the same without the
	// chat history (the cacheable prefix). Both are "" in a Result
	// of [Stream], which wrote the document instead.
	Markdown string
	Static   string
	// OutputPath is the file written, "" when Options.OutputDir is empty.
	OutputPath string
	// Items are the files, in the document's order. In a Result of
	// [Stream] their Content is "": the text was written, not kept.
	Items       []Item
	Screenshots []Screenshot
	// Ignored lists what the default ignore list left out of the globs and
	// walks of the files, sorted by path (a directory once, not its files).
	Ignored []IgnoredPath
	// Beads is what was read for the Beads section; nil without
	// Options.Beads.
	Beads *beads.Store
	// UnmatchedFocus lists the entries of Options.Focus that name no file:
	// with them Tier 3 renders every file but tier 3 and force_full ones in
	// a structural view, which is rarely what was meant (ctx aggregate
	// warns).
	UnmatchedFocus []string
	// SectionSecrets are the credentials Options.Scan found in the Beads
	// and Discussion History sections, in the document's order: Path is
	// the section's name ("Beads", "Discussion History") and a Finding's
	// line is the section's line.
	SectionSecrets []FileSecret

	opts   Options // normalized, for Summary
	tokens int     // the document's tokens, counted as it was written
}

// Summary counts the run for people ([Summary.Write]), and the tokens of
// the whole document, counted as it was written.
func (res *Result) Summary() Summary { return summarize(res.opts, res) }

func checkNamespace(ns string) error {
	if ns == "" || ns == "." || ns == ".." || strings.ContainsAny(ns, `/\`) || mdtext.Escape(ns) != ns {
		return fmt.Errorf("invalid output namespace %q", ns)
	}
	return nil
}

// NextIncrement returns 1 + the largest N of the files {namespace}_{N}.md
// directly in dir, or 1 when there are none (or dir does not exist).
func NextIncrement(dir, namespace string) (int, error) {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(namespace) + `_(\d+)\.md$`)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 1, nil
		}
		return 0, fmt.Errorf("failed to list output directory: %w", err)
	}
	next := 1
	for _, e := range ents {
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if n, err := strconv.Atoi(m[1]); err == nil && n+1 > next {
			next = n + 1
		}
	}
	return next, nil
}

// OutputName is the file name of output number n: {namespace}_{n:03d}.md.
func OutputName(namespace string, n int) string {
	return fmt.Sprintf("%s_%03d.md", namespace, n)
}

// maxClaims bounds the attempts at claiming an output number.
const maxClaims = 10000

// WriteNumbered writes data to the next free {namespace}_{NNN}.md in dir,
// creating dir (with a .gitignore, [OutputIgnore], as a run does). The file is created exclusively from a fully written
// temporary file, so concurrent writers never share a number and readers
// never see a partial file; a taken number is skipped. When ctx is done
// before the file is in place, it returns the context's error and leaves
// nothing behind.
func WriteNumbered(ctx context.Context, dir, namespace string, data []byte) (string, error) {
	w, created, err := createNumbered(ctx, dir, namespace)
	if err != nil {
		return "", err
	}
	defer w.Close()
	if _, err := w.Write(data); err != nil {
		return "", writeFailed(ctx, err)
	}
	p, err := claimNumbered(ctx, w, dir, namespace)
	if err != nil {
		return "", err
	}
	return p, ignoreOutputDir(context.WithoutCancel(ctx), dir, namespace, created, p)
}

// createNumbered starts the temporary file of a numbered output in dir,
// which it creates (created: it did not exist).
func createNumbered(ctx context.Context, dir, namespace string) (w *atomicfile.Writer, created bool, err error) {
	if err := checkNamespace(namespace); err != nil {
		return nil, false, err
	}
	_, serr := os.Stat(dir)
	created = errors.Is(serr, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, fmt.Errorf("failed to create output directory: %w", err)
	}
	w, err = atomicfile.CreateTemp(ctx, dir, namespace+".md", 0o644)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, false, cerr
		}
		return nil, false, fmt.Errorf("failed to write output: %w", err)
	}
	return w, created, nil
}

// writeFailed is the error of a failed write: the context's when it is
// done, "failed to write output: ..." for the numbered file, else the
// writer's own.
func writeFailed(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	var we *atomicfile.WriteError
	if errors.As(err, &we) {
		return fmt.Errorf("failed to write output: %w", err)
	}
	return err
}

// claimNumbered links the written temporary file w to the next free
// {namespace}_{NNN}.md of dir and returns its path.
func claimNumbered(ctx context.Context, w *atomicfile.Writer, dir, namespace string) (string, error) {
	n, err := NextIncrement(dir, namespace)
	if err != nil {
		return "", err
	}
	for range maxClaims {
		p := filepath.Join(dir, OutputName(namespace, n))
		err := w.Link(p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, os.ErrExist) {
			if cerr := ctx.Err(); cerr != nil {
				return "", cerr
			}
			return "", fmt.Errorf("failed to write output: %w", err)
		}
		n++
	}
	return "", fmt.Errorf("failed to claim an output number in %s after %d attempts", dir, maxClaims)
}

// GroupFilesByDir groups items by the directory of their label ("." for
// the base directory), directories sorted, items in their order.
func GroupFilesByDir(items []Item) []DirGroup {
	groups := groupByDir(items, func(it Item) string { return it.Path })
	out := make([]DirGroup, len(groups))
	for i, g := range groups {
		out[i] = DirGroup{Dir: g.dir, Items: g.items}
	}
	return out
}

// dirGroup is one directory's share of a list, in list order.
type dirGroup[T any] struct {
	dir   string
	items []T
}

// groupByDir groups list by the directory of each element's slash path,
// directories sorted, elements in their order.
func groupByDir[T any](list []T, pathOf func(T) string) []dirGroup[T] {
	idx := map[string]int{}
	var out []dirGroup[T]
	for _, e := range list {
		d := path.Dir(pathOf(e))
		i, ok := idx[d]
		if !ok {
			i = len(out)
			idx[d] = i
			out = append(out, dirGroup[T]{dir: d})
		}
		out[i].items = append(out[i].items, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

// DirGroup is one directory of [GroupFilesByDir].
type DirGroup struct {
	Dir   string
	Items []Item
}

// Document is the JSON document of a run (`ctx aggregate --format json`):
// every item and screenshot, with its view text, sizes and hashes.
type Document struct {
	Items       []Item       `json:"items"`
	Screenshots []Screenshot `json:"screenshots"`
	// Ignored is what the default ignore list left out (Result.Ignored).
	Ignored []IgnoredPath `json:"ignored"`
	Summary Summary       `json:"summary"`
	// Beads is what was read for the Beads section, when configured.
	Beads *beads.Store `json:"beads,omitempty"`
	// SectionSecrets are the credentials the scan found in the Beads and
	// Discussion History sections (Result.SectionSecrets): the section's
	// name, and the rule, line (of the section) and column, never the
	// secret.
	SectionSecrets []SectionSecret `json:"section_secrets,omitempty"`
}

// SectionSecret is a credential in a section of the document, as
// [Document] lists it.
type SectionSecret struct {
	Section string `json:"section"`
	secrets.Finding
}

// WriteJSON writes the [Document] of res to w.
func (res *Result) WriteJSON(w io.Writer) error {
	doc := Document{Items: res.Items, Screenshots: res.Screenshots, Ignored: res.Ignored, Summary: res.Summary(), Beads: res.Beads}
	for _, f := range res.SectionSecrets {
		doc.SectionSecrets = append(doc.SectionSecrets, SectionSecret{Section: f.Path, Finding: f.Finding})
	}
	if doc.Items == nil {
		doc.Items = []Item{}
	}
	if doc.Screenshots == nil {
		doc.Screenshots = []Screenshot{}
	}
	if doc.Ignored == nil {
		doc.Ignored = []IgnoredPath{}
	}
	return jsonenc.Write(w, doc)
}

// ShownOutputPath is OutputPath as `ctx aggregate` prints it: relative to
// the working directory when it lies below it, with forward slashes.
func (res *Result) ShownOutputPath() string {
	return filepath.ToSlash(display.RelativeToWD(res.OutputPath))
}
