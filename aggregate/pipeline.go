package aggregate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"

	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/measure"
)

// Run builds the items and screenshots, composes the markdown and, when
// opts.OutputDir is set, writes it, followed by a newline, to the next free
// numbered file. The Result holds the whole document (Markdown, Static) and
// every item's Content; [Stream] writes the document instead of keeping it.
func Run(ctx context.Context, opts Options) (*Result, error) {
	return run(ctx, opts, nil, true)
}

// Stream is [Run] writing the document to w as it is produced, so that
// memory follows the largest files in flight, not the project: the files
// are read and rendered in parallel and written in their order, through a
// bounded reorder window. It writes exactly what Run's Markdown holds,
// followed by a newline (what `ctx aggregate --stdout` prints), to w when w
// is not nil, and to the next free numbered file when opts.OutputDir is set
// (the file appears, whole, only when the run succeeds). The Result has the
// items, screenshots and summary, but neither Markdown nor Static, and the
// items' Content is "".
//
// Under a token budget the files are measured first, the budget decides,
// and then the blocks are written, each rendered again (or taken from
// Options.Cache) and checked against what was measured: a file that changed
// in between is an error. When ctx is done, Stream stops with its error; the
// numbered file is then not written (what went to w stays written).
func Stream(ctx context.Context, opts Options, w io.Writer) (*Result, error) {
	return run(ctx, opts, w, false)
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
	targets, err := o.fileResolver().resolveAll(ctx, o.Files)
	if err != nil {
		return nil, err
	}
	return buildFiles(ctx, o, targets, nil, true, nil)
}

// run is Run (keep) and Stream (!keep, w).
func run(ctx context.Context, opts Options, w io.Writer, keep bool) (res *Result, err error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	if o.OutputDir != "" {
		if err := checkNamespace(o.Namespace); err != nil {
			return nil, err
		}
		// a repository's ctx.toml must not write outside the project
		// (output_dir = "~/.claude/commands" would add a slash command)
		if real := fileio.RealPath(o.OutputDir); !o.bound.Allowed(real) {
			return nil, fmt.Errorf("output directory %s is outside the project (%s): outputs are written only in the project (--allow-outside, or allow_outside in the user configuration, allows it)",
				mdtext.Escape(o.OutputDir), mdtext.Escape(real))
		}
		if err := checkOutputDir(o.OutputDir, o.OutputDirAt, o.BaseDir); err != nil {
			return nil, err
		}
	}
	// what can fail for the run as a whole comes before any output
	r := o.fileResolver()
	targets, err := r.resolveAll(ctx, o.Files)
	if err != nil {
		return nil, err
	}
	shots, err := buildScreenshots(ctx, o)
	if err != nil {
		return nil, err
	}
	res = &Result{Screenshots: shots, Ignored: r.ignored(), UnmatchedFocus: o.unmatchedFocus(targets), opts: o}
	if o.Beads != nil {
		b := *o.Beads
		if b.Allow == nil {
			b.Allow = o.bound.Allowed
		}
		if b.Redact == nil {
			b.Redact = o.Redact
		}
		if res.Beads, err = beads.Read(b); err != nil {
			return nil, err
		}
	}

	var outs []io.Writer
	if w != nil {
		outs = append(outs, w)
	}
	if o.OutputDir != "" {
		// the output directory and the temporary file are made with the
		// first byte written: a run that fails before (a budget too small,
		// say) leaves nothing
		f := &lazyNumbered{ctx: ctx, dir: o.OutputDir, namespace: o.Namespace}
		defer f.close() // removes the temporary file unless it was claimed
		outs = append(outs, f)
		defer func() {
			if err == nil {
				if res.OutputPath, err = f.claim(o.Keep); err != nil {
					res = nil
				}
			}
		}()
	}
	var bw *bufio.Writer
	var out io.Writer
	if len(outs) > 0 {
		bw = bufio.NewWriterSize(io.MultiWriter(outs...), 64<<10)
		out = bw
	}
	doc := newDocument(out, keep, o.Estimator)
	// the sections after the files count against max_tokens too
	tail := []string{ScreenshotsSection(shots), res.Beads.Section(), HistorySection(o.History)}
	if o.Scan != nil && o.Redact == nil {
		if res.SectionSecrets, err = scanSections(ctx, o.Scan, tail[1], tail[2]); err != nil {
			return nil, err
		}
	}
	if res.Items, err = buildFiles(ctx, o, targets, doc, keep, tail); err != nil {
		if doc.err != nil {
			return nil, writeFailed(ctx, doc.err)
		}
		return nil, err
	}
	doc.whole(tail[0])
	doc.whole(tail[1])
	doc.markStatic()
	doc.whole(tail[2])
	// the document as it is written ends with a newline (a document of
	// nothing, written as a newline alone, counts nothing)
	if doc.sections > 0 {
		doc.toks.add([]byte("\n"), -1, -1)
	}
	res.tokens = doc.toks.result()
	if keep {
		res.Markdown = doc.keep.String()
		res.Static = res.Markdown[:doc.staticLen]
		if !builtinEstimator(o.Estimator) {
			if _, chars4 := measure.TokensForChars(o.Estimator, 0); !chars4 {
				// an estimator of the caller's: counted whole
				res.tokens = 0
				if res.Markdown != "" {
					res.tokens = o.Estimator.Tokens([]byte(res.Markdown + "\n"))
				}
			}
		}
	}
	if out == nil {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// the document ends with a newline, in a file as on stdout
	if doc.err != nil {
		return nil, writeFailed(ctx, doc.err)
	}
	if _, err := io.WriteString(bw, "\n"); err != nil {
		return nil, writeFailed(ctx, err)
	}
	if err := bw.Flush(); err != nil {
		return nil, writeFailed(ctx, err)
	}
	return res, nil
}

// built is an item and its block ("" when it has none).
type built struct {
	it    Item
	block []byte
	err   error
}

// retainLimit bounds the view texts a budgeted [Stream] keeps between
// measuring the files and writing them: texts past it are rendered again
// (or taken from the cache) when they are written. A variable for the
// tests only.
var retainLimit int64 = 32 << 20

// buildFiles renders the items of targets and writes the files section to
// doc (nil: none), in order. keep keeps every item's Content. tail are the
// sections that follow the files section in the document ("" for none),
// which max_tokens counts.
func buildFiles(ctx context.Context, o Options, targets []target, doc *document, keep bool, tail []string) ([]Item, error) {
	items := make([]Item, len(targets))
	shape := docShape{heading: "## " + o.Section() + "\n\n", tail: tail}
	if doc != nil {
		doc.section(shape.heading)
	}
	emit := func(i int, b built) error {
		if b.err != nil {
			return b.err
		}
		// nothing made with a done context is written
		if err := ctx.Err(); err != nil {
			return err
		}
		items[i] = b.it
		if doc != nil && len(b.block) > 0 {
			doc.block(b.block, b.it.Emitted)
		}
		if doc != nil {
			return doc.err
		}
		return nil
	}
	var err error
	if !o.budgeted() {
		err = ordered(ctx, len(targets), o.Concurrency, o.Progress, func(ctx context.Context, i int) built {
			it, block := buildItem(ctx, o, targets[i])
			if !keep {
				it.Content = ""
			}
			return built{it: it, block: block}
		}, emit)
	} else {
		err = renderBudgeted(ctx, o, targets, items, keep, shape, emit)
	}
	if err != nil {
		return nil, err
	}
	if doc != nil {
		if b := omittedBlock(items); b != "" {
			doc.block([]byte(b), Measured{Sizes: measure.Sizes{Tokens: -1, Chars: -1}})
		}
	}
	return items, nil
}

// renderBudgeted measures every file, applies the token budget, then renders
// and emits the blocks in order.
func renderBudgeted(ctx context.Context, o Options, targets []target, items []Item, keep bool, shape docShape, emit func(int, built) error) error {
	retained := new(retainer)
	retained.left.Store(retainLimit)
	if keep {
		retained.left.Store(1 << 62)
	}
	err := parallel(ctx, len(targets), o.Concurrency, o.Progress, func(i int) {
		it, _ := buildItem(ctx, o, targets[i])
		if it.rendered {
			if !retained.take(len(it.Content)) {
				it.Content, it.dropped = "", true
			}
		}
		items[i] = it
	})
	if err != nil {
		return err
	}
	if err := applyBudget(ctx, o, items, retained, shape); err != nil {
		return err
	}
	return ordered(ctx, len(items), o.Concurrency, nil, func(ctx context.Context, i int) built {
		it := items[i]
		block, err := o.finalBlock(ctx, &it)
		if !keep {
			it.Content = ""
		}
		it.redacted, it.ladder = nil, nil
		return built{it: it, block: block, err: err}
	}, emit)
}

// retainer counts down the bytes of text that may still be kept.
type retainer struct{ left atomic.Int64 }

func (r *retainer) take(n int) bool {
	if r.left.Add(-int64(n)) >= 0 {
		return true
	}
	r.left.Add(int64(n))
	return false
}

func (r *retainer) give(n int) { r.left.Add(int64(n)) }

// omittedBlock is the list of the files the token budget left out, the
// files section's last block: a line per file it names, in order, and the
// count of those it does not ("… and 12 more files left out", when
// max_tokens had no room for their names); "" when none was left out.
func omittedBlock(items []Item) string {
	var b []byte
	n, unlisted := 0, 0
	for i := range items {
		if it := &items[i]; it.AutoAggregate && it.Status == StatusOmitted {
			if b == nil {
				b = append(b, OmittedHeading+"\n"...)
			}
			n++
			if it.unlisted {
				unlisted++
				continue
			}
			b = append(b, "\n"+omittedLine(it)...)
		}
	}
	if unlisted > 0 {
		b = append(b, "\n"+omittedCount(n-unlisted, n)...)
	}
	return string(b)
}

// ErrChanged is the error of a budgeted [Stream] whose file changed between
// the budget's measurement and the writing of its block.
var ErrChanged = errors.New("changed while it was aggregated; run again")

// finalBlock returns the block of an item whose budget is decided: from
// its text when it was kept, else rendered again from the file (read again
// and checked against its hash) or taken from the cache, and checked
// against the block the budget measured.
func (o Options) finalBlock(ctx context.Context, it *Item) ([]byte, error) {
	if !it.AutoAggregate || it.Status == StatusOmitted {
		return nil, nil
	}
	if it.dropped {
		src, err := o.reread(it)
		if err != nil {
			return nil, err
		}
		res := o.view(ctx, o.Engine, it.Path, src, it.viewHash(), it.file, it.ViewMode)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		it.Content, it.dropped = res.Text, false
	}
	block := it.appendBlock(nil)
	if it.rendered {
		if _, h := measure.Scan(block); h != it.Emitted.Hash {
			return nil, fmt.Errorf("%s: %w", mdtext.Escape(it.Path), ErrChanged)
		}
	}
	return block, nil
}

// viewHash is the BLAKE3 of the text the item's view is made from.
func (it *Item) viewHash() string {
	if it.Redacted != nil {
		return it.Redacted.HashAfter
	}
	return it.Source.Hash
}

// reread returns the text of a rendered item again: its redacted text, or
// the file read again, which must have the hash it had.
func (o Options) reread(it *Item) ([]byte, error) {
	if it.redacted != nil {
		return it.redacted, nil
	}
	d := readBounded(it.abs, it.Path, o.MaxFileBytes, o.bound)
	if d.err != "" {
		return nil, fmt.Errorf("%s: %w (%s)", mdtext.Escape(it.Path), ErrChanged, d.err)
	}
	if _, h := measure.Scan(d.src); h != it.Source.Hash {
		return nil, fmt.Errorf("%s: %w", mdtext.Escape(it.Path), ErrChanged)
	}
	return d.src, nil
}

// buildItem reads and renders one target: the item and its block.
func buildItem(ctx context.Context, o Options, t target) (Item, []byte) {
	mode, focus := plan(o, t)
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
	fail := func(msg string) (Item, []byte) {
		it.Status, it.Error = StatusError, msg
		it.Content, it.fence = "ERROR: "+msg, errorFence
		it.Language = languageOf(o.Engine, t.label)
		var block []byte
		if it.AutoAggregate {
			block = it.appendBlock(nil)
			it.Emitted = o.measure(block)
			it.cost = o.blockCost(block, it.Emitted)
		}
		return it, block
	}
	if t.err != "" {
		return fail(t.err)
	}
	d := readBounded(t.abs, t.label, o.MaxFileBytes, o.bound)
	it.MTime = d.mtime
	if d.err != "" {
		return fail(d.err)
	}
	it.RealPath = d.outside
	if !it.AutoAggregate {
		// listed, never sent: no view is computed (the original skips the
		// view dispatch), so no view can fail or warn
		it.Status, it.Language = StatusOK, languageOf(o.Engine, t.label)
		if IsBinary(d.src) {
			it.Status = StatusBinary
			it.Source = Measured{Sizes: measure.Sizes{Bytes: len(d.src)}, Hash: measure.Hash(d.src)}
		} else {
			it.Source = o.measure(d.src)
		}
		return it, nil
	}
	text := d.src
	if o.Redact != nil {
		red, err := redact(ctx, o.Redact, t.label, d.src)
		if err != nil {
			return fail("cannot scan " + mdtext.Escape(t.label) + " for secrets: " + err.Error())
		}
		if red != nil {
			it.Redacted, text = red, []byte(red.Text)
		}
	} else if o.Scan != nil {
		found, err := scanOnly(ctx, o.Scan, t.label, d.src)
		if err != nil {
			return fail("cannot scan " + mdtext.Escape(t.label) + " for secrets: " + err.Error())
		}
		it.Secrets = found
		it.found = found
	}
	binary := IsBinary(d.src)
	if binary {
		it.Source = Measured{Sizes: measure.Sizes{Bytes: len(d.src)}, Hash: measure.Hash(d.src)}
	} else {
		it.Source = o.measure(d.src)
	}
	res := o.view(ctx, o.Engine, t.label, text, it.viewHash(), t.file, mode)
	it.ViewMode, it.Language, it.Fallback, it.Slices = res.Mode, res.Language, res.Fallback, res.Slices
	it.Truncated = res.Truncated
	it.Content, it.fence = res.Text, res.Fence
	it.Secrets = secretsIn(it.found, d.src, res.Text)
	it.Status = StatusOK
	if res.Binary {
		it.Status = StatusBinary
	}
	if res.Err != nil {
		it.Status, it.Error = StatusError, fmt.Sprintf("%s view failed: %v", mode, res.Err)
	}
	switch {
	case it.ViewMode == ViewNone && it.Status == StatusOK:
		// the original's heading of a file whose content is left out
		it.Header += " (excluded)"
	case it.Fallback != "":
		// a view that fell back says so, like the other suffixes
		it.Header += fallbackSuffix(mode)
	case o.tier3() && !focus && it.ViewMode == ViewSkeleton && it.Status == StatusOK:
		it.Header += " (AST Skeleton)"
	case o.tier3() && !focus && it.ViewMode == ViewOutline && it.Status == StatusOK:
		it.Header += " (AST Outline)"
	}
	block := it.appendBlock(nil)
	if it.ViewMode == ViewFull && it.Status == StatusOK && it.Redacted == nil {
		it.Emitted = o.measureFull(block, it.Content, it.Source.Tokens)
	} else {
		it.Emitted = o.measure(block)
	}
	it.cost = o.blockCost(block, it.Emitted)
	if o.budgeted() && it.Status == StatusOK && it.ViewMode != ViewNone {
		it.rendered = true
		if it.Redacted != nil {
			it.redacted = text
		}
	}
	return it, block
}

// fileResolver returns the resolver of o.Files: below the base directory,
// with the change filter.
func (o Options) fileResolver() *resolver {
	r := newResolver(o, o.BaseDir, o.Ignore)
	r.strict = true
	if o.Changed != nil {
		r.only = o.Changed.set()
	}
	return r
}
