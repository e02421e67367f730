package aggregate

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/secrets"
)

// Reasons recorded in Item.Degraded.
const (
	reasonFileCap = "max_file_tokens"
	reasonTotal   = "max_tokens"
)

// ladder is the degradation order of the token budget; "omitted" follows
// the last rung.
var ladder = []ViewMode{ViewFull, ViewSkeleton, ViewOutline, ViewSummary}

// rung returns the position of mode on the ladder: masked and custom views
// (curated by hand) sit with the skeleton, so their next step is the
// outline.
func rung(mode ViewMode) int {
	switch mode {
	case ViewFull:
		return 0
	case ViewSkeleton, ViewMasked, ViewCustom:
		return 1
	case ViewOutline:
		return 2
	}
	return 3
}

func (o Options) budgeted() bool { return o.MaxTokens.IsSet() || o.MaxFileTokens.IsSet() }

// budgetStep is one degradation of an item.
type budgetStep struct {
	to     string // a view mode, or "omitted"
	reason string // "max_file_tokens N" or "max_tokens N"
}

// degradable reports whether the budget may give it a cheaper view:
// aggregated files that were read and rendered.
func (it *Item) degradable() bool {
	return it.AutoAggregate && it.Status == StatusOK && it.ViewMode != ViewNone && it.rendered
}

// omittable reports whether max_tokens may leave it out: every block but an
// error's (binary files and view none blocks have no cheaper view, and go
// straight to omitted).
func (it *Item) omittable() bool {
	return it.AutoAggregate && (it.Status == StatusOK || it.Status == StatusBinary)
}

// protected items (force_full, Tier 3 focus and tier 3 files) are exempt
// from max_file_tokens and degraded by max_tokens only when every other file
// is already omitted.
func (it *Item) protected() bool { return it.ForceFull || it.Focus || it.Tier == 3 }

// applyBudget degrades items until every unprotected block fits
// o.MaxFileTokens and the whole document fits o.MaxTokens.
//
// max_file_tokens counts each item's block (Emitted.Tokens: header, blank
// line and body). max_tokens counts the document as it is written
// ([docBudget]: the files heading, the blocks, the separators, the list
// of what was left out, the sections of shape and the final newline). A
// step renders the next cheaper view on the ladder full → skeleton →
// outline → summary, skipping views that are not smaller than the current
// block, and after the summary the file is omitted (a binary file or a
// view none block is omitted at once). For max_tokens, each step degrades
// the largest block (ties: the later file), unprotected files first, and
// is repeated until the document fits with the omitted files counted; then
// they are listed by name as far as the room left allows. A budget that
// what it cannot leave out exceeds is a [BudgetError].
//
// The cheaper views of a file are rendered together, from one parse, the
// first time the file is degraded, and only their sizes are kept (their
// texts while retained allows); the largest block is found with a heap, so
// that a step costs a logarithm of the files, not a scan of them. The
// views of the next files to degrade are rendered in parallel.
func applyBudget(ctx context.Context, o Options, items []Item, retained *retainer, shape docShape) error {
	if o.MaxFileTokens.IsSet() {
		reason := fmt.Sprintf("%s %s", reasonFileCap, o.MaxFileTokens)
		over := func(it *Item) bool {
			return it.degradable() && !it.protected() && o.MaxFileTokens.Exceeded(int64(it.Emitted.Tokens))
		}
		var todo []int
		for i := range items {
			if over(&items[i]) {
				todo = append(todo, i)
			}
		}
		if err := o.ladders(ctx, items, todo, retained); err != nil {
			return err
		}
		for _, i := range todo {
			for it := &items[i]; over(it); {
				if err := ctx.Err(); err != nil {
					return err
				}
				degrade(it, reason, retained)
			}
		}
	}
	if !o.MaxTokens.IsSet() {
		return nil
	}
	reason := fmt.Sprintf("%s %s", reasonTotal, o.MaxTokens)
	doc := newDocBudget(o, items, shape)
	h := &budgetHeap{items: items}
	for i := range items {
		if items[i].omittable() {
			h.idx = append(h.idx, i)
		}
	}
	heap.Init(h)
	batch := max(minWindow, windowPerWorker*o.Concurrency)
	needsLadder := func(i int) bool { return items[i].degradable() && items[i].ladder == nil }
	for doc.over() && h.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if needsLadder(h.idx[0]) {
			// the next files to degrade get their views together
			var next, todo []int
			for len(next) < batch && h.Len() > 0 {
				i := heap.Pop(h).(int)
				next = append(next, i)
				if needsLadder(i) {
					todo = append(todo, i)
				}
			}
			for _, i := range next {
				heap.Push(h, i)
			}
			if err := o.ladders(ctx, items, todo, retained); err != nil {
				return err
			}
		}
		i := heap.Pop(h).(int)
		before := items[i].cost
		degrade(&items[i], reason, retained)
		doc.changed(i, before)
		if items[i].omittable() {
			heap.Push(h, i)
		}
	}
	if doc.over() {
		return doc.tooSmall(o)
	}
	doc.fill()
	return nil
}

// budgetHeap orders the degradable items as max_tokens picks them:
// unprotected first, then the largest block, then the later file.
type budgetHeap struct {
	items []Item
	idx   []int
}

func (h *budgetHeap) Len() int { return len(h.idx) }
func (h *budgetHeap) Less(a, b int) bool {
	x, y := &h.items[h.idx[a]], &h.items[h.idx[b]]
	if px, py := x.protected(), y.protected(); px != py {
		return py
	}
	if x.Emitted.Tokens != y.Emitted.Tokens {
		return x.Emitted.Tokens > y.Emitted.Tokens
	}
	return h.idx[a] > h.idx[b]
}
func (h *budgetHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *budgetHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *budgetHeap) Pop() any {
	n := len(h.idx) - 1
	i := h.idx[n]
	h.idx = h.idx[:n]
	return i
}

// ladderViews are the cheaper views of an item: rungs[r] is the view of
// ladder[r] (a view that fell back says so in its mode), for the rungs
// after the one the item was rendered on.
type ladderViews struct {
	rungs [4]rungView
}

// rungView is one cheaper view, measured as the block a degraded item
// would have.
type rungView struct {
	ok        bool // rendered: no error
	mode      ViewMode
	fence     string
	truncated string
	slices    []slice.Result
	emitted   Measured
	cost      segCost // of the block in the document (under max_tokens)
	text      string  // the view's text when kept is set
	kept      bool
	secrets   []secrets.Finding // those of the item's that the view holds
}

// ladders renders the cheaper views of the items at idx, in parallel.
func (o Options) ladders(ctx context.Context, items []Item, idx []int, retained *retainer) error {
	errs := make([]error, len(idx))
	err := parallel(ctx, len(idx), o.Concurrency, nil, func(k int) {
		errs[k] = o.ladder(ctx, &items[idx[k]], retained)
	})
	return errors.Join(append([]error{err}, errs...)...)
}

// ladder renders the cheaper views of it from one parse of its text, read
// again (and checked) unless it was redacted.
func (o Options) ladder(ctx context.Context, it *Item, retained *retainer) error {
	src, err := o.reread(it)
	if err != nil {
		return err
	}
	lang, structured := o.Engine.Detect(it.Path)
	eng, done := sharedParse(o.Engine, lang, src)
	defer done()
	if isShared(eng) && structured {
		// one parse for all the views (another engine is gated per view)
		if err := o.gate.acquire(ctx, len(src)); err != nil {
			return err
		}
		defer o.gate.release(len(src))
	}
	l := &ladderViews{}
	for r := rung(it.ViewMode) + 1; r < len(ladder); r++ {
		res := o.view(ctx, eng, it.Path, src, it.viewHash(), it.file, ladder[r])
		if res.Err != nil || res.Binary {
			continue
		}
		next := *it
		next.ViewMode, next.Content, next.fence = res.Mode, res.Text, res.Fence
		next.Header = degradedHeader(it.Path, res.Mode)
		block := next.appendBlock(nil)
		v := rungView{ok: true, mode: res.Mode, fence: res.Fence, truncated: res.Truncated, slices: res.Slices,
			emitted: o.measure(block), secrets: secretsIn(it.found, src, res.Text)}
		v.cost = o.blockCost(block, v.emitted)
		if retained.take(len(res.Text)) {
			v.text, v.kept = res.Text, true
		}
		l.rungs[r] = v
	}
	if err := ctx.Err(); err != nil {
		l.release(0, len(l.rungs)-1, retained)
		return err
	}
	it.ladder = l
	return nil
}

// release lets go of the kept texts of the rungs from to to.
func (l *ladderViews) release(from, to int, retained *retainer) {
	for r := from; r <= to && r < len(l.rungs); r++ {
		if v := &l.rungs[r]; v.kept {
			retained.give(len(v.text))
			v.text, v.kept = "", false
		}
	}
}

// degrade moves it one step down the ladder: the first cheaper view whose
// block is smaller, or omitted. it.ladder holds the views of a rendered
// item; any other (binary, view none) is omitted at once.
func degrade(it *Item, reason string, retained *retainer) {
	if it.RequestedViewMode == "" {
		it.RequestedViewMode = it.ViewMode
	}
	if it.rendered {
		if !it.dropped {
			retained.give(len(it.Content))
		}
		if l := it.ladder; l != nil {
			for r := rung(it.ViewMode) + 1; r < len(ladder); r++ {
				v := &l.rungs[r]
				if !v.ok {
					continue
				}
				if v.emitted.Tokens >= it.Emitted.Tokens {
					// not cheaper (a summary longer than a small skeleton, say)
					if v.mode == ViewSummary {
						break
					}
					continue
				}
				it.ViewMode, it.fence, it.Slices, it.Truncated = v.mode, v.fence, v.slices, v.truncated
				it.Content, it.dropped = v.text, !v.kept
				it.Secrets = v.secrets
				v.text, v.kept = "", false
				// a view the file does not support yields the summary; Degraded says
				// "→ summary", so a fallback is not recorded
				it.Header = degradedHeader(it.Path, v.mode)
				it.Emitted, it.cost = v.emitted, v.cost
				it.steps = append(append([]budgetStep(nil), it.steps...), budgetStep{to: string(v.mode), reason: reason})
				it.Degraded = formatSteps(it.RequestedViewMode, it.steps)
				// the views up to the new one's rung are never used
				l.release(0, rung(v.mode), retained)
				return
			}
			l.release(0, len(l.rungs)-1, retained)
		}
	}
	it.Status = StatusOmitted
	it.Content, it.fence, it.dropped = "", "", false
	it.Emitted, it.cost = Measured{}, segCost{}
	it.steps = append(it.steps, budgetStep{to: string(StatusOmitted), reason: reason})
	it.Degraded = formatSteps(it.RequestedViewMode, it.steps)
}

// degradedHeader is the block heading of a degraded file, which tells the
// reader that the view is not the one asked for:
// "### `{label}` ({View}; token budget)".
func degradedHeader(label string, mode ViewMode) string {
	name := string(mode)
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return "### " + codeSpan(label) + " (" + name + "; token budget)"
}

// formatSteps renders the degradation of an item:
// "full → skeleton → omitted (max_tokens 4000)", or with both reasons
// "full → skeleton (max_file_tokens 500) → summary (max_tokens 4000)".
func formatSteps(from ViewMode, steps []budgetStep) string {
	var b strings.Builder
	b.WriteString(string(from))
	for i, s := range steps {
		b.WriteString(" → " + s.to)
		if i == len(steps)-1 || steps[i+1].reason != s.reason {
			b.WriteString(" (" + s.reason + ")")
		}
	}
	return b.String()
}
