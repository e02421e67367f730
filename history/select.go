package history

import (
	"context"
	"sort"
)

// DropReason says why a message is not in the built context.
type DropReason string

// The reasons a message is dropped, in pipeline order.
const (
	// DropNotEligible: the message is still generating or is a fork marker.
	DropNotEligible DropReason = "not-eligible"
	// DropBeforeCompaction: the message is covered by the applied
	// compaction point's summary.
	DropBeforeCompaction DropReason = "before-compaction"
	// DropUnusedSummary: a summary message that is not the applied
	// compaction point's summary (orphaned or superseded).
	DropUnusedSummary DropReason = "unused-summary"
	// DropError: the message carries an error or error code.
	DropError DropReason = "error"
	// DropOverMessageLimit: dropped by MaxContextMessageCount.
	DropOverMessageLimit DropReason = "over-message-limit"
	// DropOverTokenBudget: dropped by MaxContextTokens.
	DropOverTokenBudget DropReason = "over-token-budget"
)

// Drop is one input message left out of the context.
type Drop struct {
	// Index is the message's position in the input slice.
	Index int `json:"index"`
	// ID is the message's id.
	ID string `json:"id"`
	// Reason says why it was dropped.
	Reason DropReason `json:"reason"`
}

// selection is the result of steps 1-3 as indices into the input.
type selection struct {
	idx        []int // input indices, in context order
	drops      []Drop
	compaction *CompactionPoint // the applied point, if any
	summary    int              // input index of the applied summary, or -1
}

// SelectContextMessages runs the selection half of the pipeline (steps 1-3:
// steering order and eligibility, compaction, error filter, message limit)
// and returns deep copies of the selected messages with their content
// untouched. It uses MaxContextMessageCount, CompactionPoints, PinSummary,
// CutAtRoundBoundary and LegacyNegativeLimits from opts and ignores the
// rest; in particular the token budget, which is measured on Build's final
// output, does not apply. Pressure estimation should measure this selection.
func SelectContextMessages(ctx context.Context, messages []Message, opts Options) ([]Message, error) {
	if err := opts.validateSelection(); err != nil {
		return nil, err
	}
	sel, err := selectIndices(ctx, messages, opts)
	if err != nil {
		return nil, err
	}
	out := make([]Message, len(sel.idx))
	for i, j := range sel.idx {
		out[i] = messages[j].Clone()
	}
	return out, nil
}

// orderSteered restores causal order for legacy steering records: a user
// message with steered set moves before the assistant message it follows
// (looking back over summary messages), unless that assistant's finish
// reason is "steered" or nothing precedes it. It works on input indices.
func orderSteered(msgs []Message) []int {
	ordered := make([]int, len(msgs))
	for i := range ordered {
		ordered[i] = i
	}
	for index := 1; index < len(ordered); index++ {
		m := &msgs[ordered[index]]
		if m.Role != RoleUser || !m.Steered {
			continue
		}
		target := index
		for target > 0 && msgs[ordered[target-1]].IsSummary {
			target--
		}
		if target == 0 {
			continue
		}
		prev := &msgs[ordered[target-1]]
		if prev.Role != RoleAssistant || prev.FinishReason == "steered" {
			continue
		}
		moved := ordered[index]
		copy(ordered[target:index+1], ordered[target-1:index])
		ordered[target-1] = moved
	}
	return ordered
}

// latestCompactionPoint returns the applicable point with the largest
// createdAt (the first on a tie), or nil. A point applies when both its
// boundary and its summary are among ids.
func latestCompactionPoint(ids map[string]bool, points []CompactionPoint) *CompactionPoint {
	var latest *CompactionPoint
	for i := range points {
		p := &points[i]
		if !ids[p.BoundaryMessageID] || !ids[p.SummaryMessageID] {
			continue
		}
		if latest == nil || p.CreatedAt > latest.CreatedAt {
			latest = p
		}
	}
	return latest
}

func selectIndices(ctx context.Context, msgs []Message, o Options) (selection, error) {
	sel := selection{summary: -1}
	if err := ctx.Err(); err != nil {
		return sel, err
	}
	drop := func(i int, r DropReason) {
		sel.drops = append(sel.drops, Drop{Index: i, ID: msgs[i].ID, Reason: r})
	}

	// 1. Order and eligibility.
	var eligible []int
	for _, i := range orderSteered(msgs) {
		if msgs[i].Generating || msgs[i].IsForkMarker {
			drop(i, DropNotEligible)
			continue
		}
		eligible = append(eligible, i)
	}
	if len(eligible) == 0 {
		sortDrops(sel.drops)
		return sel, nil
	}

	// 2. Compaction.
	ids := make(map[string]bool, len(eligible))
	for _, i := range eligible {
		ids[msgs[i].ID] = true
	}
	var ctxIdx []int
	point := latestCompactionPoint(ids, o.CompactionPoints)
	if point == nil {
		for _, i := range eligible {
			if msgs[i].IsSummary {
				drop(i, DropUnusedSummary)
				continue
			}
			ctxIdx = append(ctxIdx, i)
		}
	} else {
		cp := *point
		sel.compaction = &cp
		boundary, summary := -1, -1
		for k, i := range eligible {
			if boundary < 0 && msgs[i].ID == point.BoundaryMessageID {
				boundary = k
			}
			if summary < 0 && msgs[i].ID == point.SummaryMessageID {
				summary = i
			}
		}
		sel.summary = summary
		ctxIdx = append(ctxIdx, summary)
		for _, i := range eligible[boundary+1:] {
			// The original would list a summary not marked isSummary twice.
			if !msgs[i].IsSummary && i != summary {
				ctxIdx = append(ctxIdx, i)
			}
		}
		system := -1
		for _, i := range eligible {
			if msgs[i].Role == RoleSystem {
				system = i
				break
			}
		}
		if system >= 0 {
			present := false
			for _, i := range ctxIdx {
				if msgs[i].ID == msgs[system].ID {
					present = true
					break
				}
			}
			if !present {
				ctxIdx = append([]int{system}, ctxIdx...)
			}
		}
		in := make(map[int]bool, len(ctxIdx))
		for _, i := range ctxIdx {
			in[i] = true
		}
		for _, i := range eligible {
			switch {
			case in[i]:
			case msgs[i].IsSummary:
				drop(i, DropUnusedSummary)
			default:
				drop(i, DropBeforeCompaction)
			}
		}
	}

	// Errors never use slots of the limit.
	kept := ctxIdx[:0:0]
	for _, i := range ctxIdx {
		if msgs[i].Error != "" || msgs[i].ErrorCode != 0 {
			drop(i, DropError)
			continue
		}
		kept = append(kept, i)
	}
	ctxIdx = kept

	if err := ctx.Err(); err != nil {
		return sel, err
	}

	// 3. Message count limit.
	if n, ok := o.MaxContextMessageCount.Value(); ok && n < unlimitedCount {
		var dropped []int
		ctxIdx, dropped = applyMessageLimit(msgs, ctxIdx, int(n), o, sel.summary)
		for _, i := range dropped {
			drop(i, DropOverMessageLimit)
		}
	}
	sel.idx = ctxIdx
	sortDrops(sel.drops)
	return sel, nil
}

// pinnedHead returns how many leading entries of idx are pinned: the first
// when it is a system message, and then the applied summary when PinSummary
// is set.
func pinnedHead(msgs []Message, idx []int, o Options, summary int) int {
	n := 0
	if len(idx) > 0 && msgs[idx[0]].Role == RoleSystem {
		n = 1
	}
	if o.PinSummary && summary >= 0 && n < len(idx) && idx[n] == summary {
		n++
	}
	return n
}

// applyMessageLimit is the original's sticky window: the pinned head stays,
// and from the rest whole chunks of ceil((max+1)/4) messages are dropped
// until at most max+1 remain. With CutAtRoundBoundary the cut then moves
// forward to the next user message, if there is one.
func applyMessageLimit(msgs []Message, idx []int, maxCount int, o Options, summary int) (kept, dropped []int) {
	head := pinnedHead(msgs, idx, o, summary)
	rest := idx[head:]
	eff := maxCount + 1
	overflow := len(rest) - eff
	if overflow <= 0 {
		return idx, nil
	}
	chunk := 1
	if eff > 0 {
		chunk = max(1, (eff+3)/4)
	}
	n := (overflow + chunk - 1) / chunk * chunk
	if n > len(rest) {
		n = len(rest)
	}
	if o.CutAtRoundBoundary {
		k := n
		for k < len(rest) && msgs[rest[k]].Role != RoleUser {
			k++
		}
		if k < len(rest) {
			n = k
		}
	}
	kept = append(append([]int{}, idx[:head]...), rest[n:]...)
	return kept, append([]int{}, rest[:n]...)
}

func sortDrops(d []Drop) {
	sort.SliceStable(d, func(a, b int) bool { return d[a].Index < d[b].Index })
}
