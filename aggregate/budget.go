package aggregate

import (
	"context"
	"fmt"
	"strings"
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

// degradable reports whether the budget may touch it: aggregated files that
// were read and rendered. Error, binary and view none blocks are one line
// each and stay as they are (they still count toward the total).
func (it *Item) degradable() bool {
	return it.AutoAggregate && it.Status == StatusOK && it.ViewMode != ViewNone && it.src != nil
}

// protected items (force_full, Tier 3 focus and tier 3 files) are exempt
// from max_file_tokens and degraded by max_tokens only when every other file
// is already omitted.
func (it *Item) protected() bool { return it.ForceFull || it.Focus || it.Tier == 3 }

// applyBudget degrades items until every unprotected block fits
// o.MaxFileTokens and the blocks together fit o.MaxTokens.
//
// Tokens are those of each item's block (Emitted.Tokens: header, blank line
// and body); the "## Files" heading and the separators are not counted. A
// step renders the next cheaper view on the ladder full → skeleton → outline
// → summary, skipping views that are not smaller than the current block,
// and after the summary the file is omitted. For max_tokens, each step
// degrades the largest block (ties: the later file), unprotected files
// first, and is repeated until the total fits.
func applyBudget(ctx context.Context, o Options, items []Item) error {
	defer func() {
		for i := range items {
			items[i].src = nil
		}
	}()
	if o.MaxFileTokens.IsSet() {
		reason := fmt.Sprintf("%s %s", reasonFileCap, o.MaxFileTokens)
		for i := range items {
			it := &items[i]
			for it.degradable() && !it.protected() && o.MaxFileTokens.Exceeded(int64(it.Emitted.Tokens)) {
				if err := ctx.Err(); err != nil {
					return err
				}
				degrade(ctx, o, it, reason)
			}
		}
	}
	if !o.MaxTokens.IsSet() {
		return nil
	}
	reason := fmt.Sprintf("%s %s", reasonTotal, o.MaxTokens)
	total := 0
	for i := range items {
		if items[i].AutoAggregate && items[i].Status != StatusOmitted {
			total += items[i].Emitted.Tokens
		}
	}
	for o.MaxTokens.Exceeded(int64(total)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		pick := -1
		for i := range items {
			it := &items[i]
			if !it.degradable() {
				continue
			}
			if pick < 0 {
				pick = i
				continue
			}
			p := &items[pick]
			switch {
			case it.protected() != p.protected():
				if !it.protected() {
					pick = i
				}
			case it.Emitted.Tokens >= p.Emitted.Tokens:
				// the largest; on a tie the later file
				pick = i
			}
		}
		if pick < 0 {
			break // nothing left to degrade: only error, binary and none blocks
		}
		before := items[pick].Emitted.Tokens
		degrade(ctx, o, &items[pick], reason)
		total += items[pick].Emitted.Tokens - before
	}
	return nil
}

// degrade moves it one step down the ladder: the first cheaper view whose
// block is smaller, or omitted.
func degrade(ctx context.Context, o Options, it *Item, reason string) {
	if it.RequestedViewMode == "" {
		it.RequestedViewMode = it.ViewMode
	}
	for r := rung(it.ViewMode) + 1; r < len(ladder); r++ {
		res := View(ctx, o.Engine, it.Path, it.src, it.file, ladder[r])
		if res.Err != nil || res.Binary {
			continue
		}
		next := *it
		next.ViewMode, next.Content, next.fence, next.Slices = res.Mode, res.Text, res.Fence, res.Slices
		next.Truncated = res.Truncated
		// a view the file does not support yields the summary; Degraded says
		// "→ summary", so res.Fallback is not recorded
		next.Header = degradedHeader(it.Path, res.Mode)
		em := measured([]byte(next.Block()), o.Estimator)
		if em.Tokens >= it.Emitted.Tokens {
			// not cheaper (a summary longer than a small skeleton, say)
			if res.Mode == ViewSummary {
				break
			}
			continue
		}
		next.Emitted = em
		next.steps = append(append([]budgetStep(nil), it.steps...), budgetStep{to: string(res.Mode), reason: reason})
		next.Degraded = formatSteps(next.RequestedViewMode, next.steps)
		*it = next
		return
	}
	it.Status = StatusOmitted
	it.Content, it.fence = "", ""
	it.Emitted = Measured{}
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
