package aggregate

import (
	"context"
	"errors"
	"fmt"
	"io"

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

	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/goroutine"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/measure"
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
)

// ParseStrategy checks s; "" is [StrategyAuto].
func ParseStrategy(s string) (Strategy, error) {
	switch st := Strategy(s); st {
	case "":
		return StrategyAuto, nil
	case StrategyAuto, StrategySummarize, StrategyFull:
		return st, nil
	}
	return "", fmt.Errorf("unknown strategy %q (want auto, summarize or full)", s)
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
	// Tier3 renders the "Files (Tier 3 - Focused)" section: focus files,
	// tier 3 items and force_full items in full, the rest as skeletons where
	// supported, else summaries (view none and custom items keep their view).
	Tier3 bool
	// Focus lists focus files by relative path or base name (never by
	// substring). A non-empty Focus implies Tier3.
	Focus []string
	// History is the discussion history, already rendered; it becomes the
	// last section, "## Discussion History".
	History string
	// OutputDir, when set, makes Run write {OutputDir}/{Namespace}_{NNN}.md.
	OutputDir string
	Namespace string
	// Concurrency bounds the parallel file workers; 0 is GOMAXPROCS.
	Concurrency int
	// MaxFileBytes caps one file's size; 0 is DefaultMaxFileBytes.
	MaxFileBytes int64
	// MaxFileTokens caps the tokens of each file block and MaxTokens those
	// of all file blocks together; the zero Limit is no limit (the
	// default). Files over a limit are degraded full → skeleton → outline →
	// summary → omitted, and Item.Degraded records it (see the package
	// documentation, "Token budget").
	MaxFileTokens measure.Limit
	MaxTokens     measure.Limit
	// Estimator counts the tokens of every file and block; nil is
	// measure.Default().
	Estimator measure.Estimator
	// Engine renders the structural views; nil is [DefaultEngine].
	Engine Engine
	// Ignore decides what globs and walks skip; nil is git's rules
	// ([NewGitIgnore] of BaseDir).
	Ignore Ignorer
	// SkipDirs are directories that globs and walks never enter (a file
	// in one named explicitly is still read). OutputDir is always one of
	// them, and config.AggregateOptions adds the configured output directory
	// even when the caller then clears OutputDir (--stdout), so earlier
	// outputs never feed back into a run.
	SkipDirs []string
	// Progress, when set, is called after each file with the number done
	// and the total, from any goroutine, one call at a time.
	Progress func(done, total int)
}

func (o Options) tier3() bool { return o.Tier3 || len(o.Focus) > 0 }

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
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	o.Engine = engineOr(o.Engine)
	if o.Estimator == nil {
		o.Estimator = measure.Default()
	}
	if o.Ignore == nil {
		o.Ignore = NewGitIgnore(abs)
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
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
// label's base name. Never a substring match.
func IsFocus(label string, focus []string) bool {
	for _, f := range focus {
		f = strings.TrimPrefix(path.Clean(filepath.ToSlash(f)), "./")
		if f == label || (!strings.Contains(f, "/") && f == path.Base(label)) {
			return true
		}
	}
	return false
}

// plan picks the view of one file and whether it is a focus file.
func plan(o Options, f FileItem, label string) (ViewMode, bool) {
	mode := f.ViewMode
	if mode == "" {
		mode = ViewFull
	}
	if o.tier3() {
		focus := IsFocus(label, o.Focus) || f.Tier == 3 || f.ForceFull
		switch {
		case focus:
			return ViewFull, IsFocus(label, o.Focus)
		case mode == ViewNone || mode == ViewCustom:
			return mode, false
		}
		return ViewSkeleton, false
	}
	if f.ForceFull {
		return ViewFull, false
	}
	if o.summary() && mode != ViewNone {
		return ViewSummary, false
	}
	return mode, false
}

// fileData is one file read from disk.
type fileData struct {
	src   []byte
	mtime time.Time
	err   string
}

func readBounded(abs, label string, limit int64) fileData {
	src, st, err := fileio.Read(abs, limit)
	var mtime time.Time
	if st != nil {
		mtime = st.ModTime().UTC()
	}
	var tl *fileio.TooLargeError
	switch {
	case err == nil:
		return fileData{src: src, mtime: mtime}
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

// BuildItems resolves the entries of opts.Files, reads the files in
// parallel and renders each one's view. The items come in entry order
// (glob matches sorted). Problems with single files become error items; the
// error is for invalid options and cancellation only.
func BuildItems(ctx context.Context, opts Options) ([]Item, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	return buildItems(ctx, o)
}

func buildItems(ctx context.Context, o Options) ([]Item, error) {
	r := &resolver{base: o.BaseDir, ign: o.Ignore, skip: o.skipSet()}
	targets, err := r.resolveAll(ctx, o.Files)
	if err != nil {
		return nil, err
	}
	items := make([]Item, len(targets))
	err = parallel(ctx, len(targets), o.Concurrency, o.Progress, func(i int) {
		items[i] = buildItem(ctx, o, targets[i])
	})
	if err != nil {
		return nil, err
	}
	if o.budgeted() {
		if err := applyBudget(ctx, o, items); err != nil {
			return nil, err
		}
	}
	return items, nil
}

func buildItem(ctx context.Context, o Options, t target) Item {
	mode, focus := plan(o, t.file, t.label)
	it := Item{
		Path:              t.label,
		Entry:             filepath.ToSlash(t.file.Path),
		ViewMode:          mode,
		RequestedViewMode: mode,
		AutoAggregate:     !t.file.NoAutoAggregate,
		ForceFull:         t.file.ForceFull,
		Tier:              t.file.Tier,
		Focus:             focus,
		Header:            "### " + codeSpan(t.label),
		file:              t.file,
		abs:               t.abs,
	}
	fail := func(msg string) Item {
		it.Status, it.Error = StatusError, msg
		it.Content, it.fence = "ERROR: "+msg, errorFence
		it.Language = languageOf(o.Engine, t.label)
		if it.AutoAggregate {
			it.Emitted = measured([]byte(it.Block()), o.Estimator)
		}
		return it
	}
	if t.err != "" {
		return fail(t.err)
	}
	d := readBounded(t.abs, t.label, o.MaxFileBytes)
	it.MTime = d.mtime
	if d.err != "" {
		return fail(d.err)
	}
	res := View(ctx, o.Engine, t.label, d.src, t.file, mode)
	it.ViewMode, it.Language, it.Fallback, it.Slices = res.Mode, res.Language, res.Fallback, res.Slices
	it.Truncated = res.Truncated
	it.Content, it.fence = res.Text, res.Fence
	it.Status = StatusOK
	if o.budgeted() {
		it.src = d.src
	}
	switch {
	case res.Binary:
		it.Status = StatusBinary
		it.Source = Measured{Sizes: measure.Sizes{Bytes: len(d.src)}, Hash: measure.Hash(d.src)}
	default:
		it.Source = measured(d.src, o.Estimator)
	}
	if res.Err != nil {
		it.Status, it.Error = StatusError, fmt.Sprintf("%s view failed: %v", mode, res.Err)
	}
	if o.tier3() && !focus {
		switch it.ViewMode {
		case ViewSkeleton:
			it.Header += " (AST Skeleton)"
		case ViewSummary:
			it.Header += " (Summary)"
		}
	}
	if it.AutoAggregate {
		it.Emitted = measured([]byte(it.Block()), o.Estimator)
	}
	return it
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
}

// Block returns the screenshot's markdown block.
func (s *Screenshot) Block() string {
	h := "### " + codeSpan(s.Path) + "\n\n"
	if s.Error != "" {
		return h + "ERROR: " + s.Error
	}
	dest := s.Path
	if strings.ContainsAny(dest, " ()<>") {
		dest = "<" + dest + ">"
	}
	return h + "![" + s.Name + "](" + dest + ")"
}

// BuildScreenshots resolves opts.Screenshots below the screenshot base
// directory (globs respect .gitignore like files) and hashes each image.
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
	r := &resolver{base: o.ScreenshotBaseDir, ign: ign, skip: o.skipSet()}
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
		} else if d := readBounded(t.abs, t.label, o.MaxFileBytes); d.err != "" {
			s.Status, s.Error = StatusError, d.err
		} else {
			s.Source = Measured{Sizes: measure.Sizes{Bytes: len(d.src)}, Hash: measure.Hash(d.src)}
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

// Result is the outcome of [Run].
type Result struct {
	// Markdown is the whole document; Static is the same without the
	// discussion history (the cacheable prefix).
	Markdown string
	Static   string
	// OutputPath is the file written, "" when Options.OutputDir is empty.
	OutputPath  string
	Items       []Item
	Screenshots []Screenshot
}

// Run builds the items and screenshots, composes the markdown and, when
// opts.OutputDir is set, writes it, followed by a newline, to the next free
// numbered file.
func Run(ctx context.Context, opts Options) (*Result, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	if o.OutputDir != "" {
		if err := checkNamespace(o.Namespace); err != nil {
			return nil, err
		}
	}
	items, err := buildItems(ctx, o)
	if err != nil {
		return nil, err
	}
	shots, err := buildScreenshots(ctx, o)
	if err != nil {
		return nil, err
	}
	res := &Result{Items: items, Screenshots: shots}
	res.Static = Markdown(o.Section(), items, shots, "")
	res.Markdown = Markdown(o.Section(), items, shots, o.History)
	if o.OutputDir != "" {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// the file ends with a newline, like the --stdout output
		p, err := WriteNumbered(ctx, o.OutputDir, o.Namespace, []byte(res.Markdown+"\n"))
		if err != nil {
			return nil, err
		}
		res.OutputPath = p
	}
	return res, nil
}

func checkNamespace(ns string) error {
	if ns == "" || ns == "." || ns == ".." || strings.ContainsAny(ns, `/\`) || strings.ContainsRune(ns, 0) {
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
// creating dir. The file is created exclusively from a fully written
// temporary file, so concurrent writers never share a number and readers
// never see a partial file; a taken number is skipped. When ctx is done
// before the file is in place, it returns the context's error and leaves
// nothing behind.
func WriteNumbered(ctx context.Context, dir, namespace string, data []byte) (string, error) {
	if err := checkNamespace(namespace); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("failed to create output directory: %w", err)
	}
	n, err := NextIncrement(dir, namespace)
	if err != nil {
		return "", err
	}
	for range maxClaims {
		p := filepath.Join(dir, OutputName(namespace, n))
		err := atomicfile.CreateExclusive(ctx, p, data, 0o644)
		if err == nil {
			return p, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return "", cerr
		}
		if !errors.Is(err, os.ErrExist) {
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
}

// WriteJSON writes the [Document] of res to w.
func (res *Result) WriteJSON(w io.Writer) error {
	doc := Document{Items: res.Items, Screenshots: res.Screenshots}
	if doc.Items == nil {
		doc.Items = []Item{}
	}
	if doc.Screenshots == nil {
		doc.Screenshots = []Screenshot{}
	}
	return jsonenc.Write(w, doc)
}

// ShownOutputPath is OutputPath as `ctx aggregate` prints it: relative to
// the working directory when it lies below it, with forward slashes.
func (res *Result) ShownOutputPath() string {
	return filepath.ToSlash(display.RelativeToWD(res.OutputPath))
}
