package manifest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/measure"
)

// linearDuplicate is the definition rowIndex implements: the first of
// cands with the same path as r, else the first with the same content.
func linearDuplicate(r *row, cands []*row) (*row, Reason) {
	for _, o := range cands {
		if !r.c.IsText() && !o.c.IsText() && r.canonical != "" && r.canonical == o.canonical {
			return o, ReasonSamePath
		}
	}
	for _, o := range cands {
		if r.hasBytes && o.hasBytes && bytes.Equal(r.raw, o.raw) {
			return o, ReasonSameContent
		}
	}
	return nil, ""
}

// randomRow is a text or a file, with or without bytes and a canonical
// path, drawn from few paths and contents so that they repeat.
func randomRow(rng *rand.Rand, i int) *row {
	r := &row{c: discover.Candidate{ID: fmt.Sprint(i)}}
	if rng.IntN(3) == 0 {
		t := fmt.Sprint(rng.IntN(4))
		r.c.Text = &t
	} else {
		r.c.Path = fmt.Sprint("p", rng.IntN(5))
		if rng.IntN(4) > 0 {
			r.canonical = r.c.Path
		}
	}
	if r.c.IsText() || rng.IntN(3) > 0 {
		r.hasBytes = true
		r.raw = []byte(fmt.Sprint(rng.IntN(4)))
		if r.c.IsText() {
			r.raw = []byte(*r.c.Text)
		}
		r.sum = measure.Sum(r.raw)
	}
	return r
}

// The index finds what comparing with every earlier row finds, for rows in
// random orders.
func TestRowIndexMatchesLinearSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		x := newRowIndex()
		var cands []*row
		for i := range 30 {
			r := randomRow(rng, i)
			wo, wh := linearDuplicate(r, cands)
			got, gh := x.duplicate(r)
			if got != wo || gh != wh {
				t.Fatalf("round %d row %d: index finds %v %q, linear search %v %q", round, i, got, gh, wo, wh)
			}
			if rng.IntN(4) > 0 { // not every row is added (natives, accepted rows)
				x.add(r)
				cands = append(cands, r)
			}
		}
	}
}

// Two contents with the same digest (which BLAKE3 makes impossible to
// find, so the test forges it) are still told apart by their bytes.
func TestRowIndexDigestCollision(t *testing.T) {
	mk := func(id, s string) *row {
		return &row{c: discover.Candidate{ID: id, Text: &s}, hasBytes: true, raw: []byte(s), sum: measure.Digest{1}}
	}
	a, b, c := mk("a", "one"), mk("b", "two"), mk("c", "two")
	x := newRowIndex()
	x.add(a)
	if o, _ := x.duplicate(b); o != nil {
		t.Errorf("b: duplicate of %s", o.c.ID)
	}
	x.add(b)
	if o, how := x.duplicate(c); o != b || how != ReasonSameContent {
		t.Errorf("c: %v %q, want b same_content", o, how)
	}
}

// sourceRows are n rows as ctx.toml's [[sources]] give them: files, some
// with the same path, texts, some with the same content, a few natives.
func sourceRows(n int) []row {
	rows := make([]row, n)
	for i := range rows {
		r := &rows[i]
		r.c = discover.Candidate{ID: fmt.Sprint("s", i), Delivery: discover.DeliveryConsumer, Audience: []string{"*"}}
		if i%10 == 0 {
			r.c.Delivery = discover.DeliveryNative
		}
		if i%2 == 0 {
			t := fmt.Sprint("text ", i%(n/3))
			r.c.Text = &t
			r.raw = []byte(t)
		} else {
			r.c.Path = fmt.Sprint("/p/s", i%(n/2), ".md")
			r.canonical = r.c.Path
			r.raw = []byte(fmt.Sprint("file ", i))
		}
		r.hasBytes, r.measured, r.status = true, true, StatusAvailable
		r.sum = measure.Sum(r.raw)
	}
	return rows
}

// Deciding ten times the rows looks at about ten times the rows (comparing
// each row with every earlier one looked at a hundred times as many).
func TestDecideScalesLinearly(t *testing.T) {
	small, large := decide(sourceRows(1000), "a", nil), decide(sourceRows(10000), "a", nil)
	t.Logf("rows looked at: %d → %d (×%.1f)", small, large, float64(large)/float64(small))
	if r := float64(large) / float64(small); r > 12 {
		t.Errorf("10× the rows: %.1f× the work", r)
	}
}
