package manifest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"

	"github.com/ctxaudit/ctx/internal/testlane"
)

func tokenBudget(name string, chars, lines, tokens measure.Limit) manifest.NamedBudget {
	return manifest.NamedBudget{Name: name, Budget: manifest.Budget{MaxChars: chars, MaxLines: lines, MaxTokens: tokens}}
}

// tokenCut is what a token budget did to one row; -1 is an absent field.
type tokenCut struct {
	ID            string
	Emitted       string
	Reason        manifest.Reason
	Budget        string
	MaxTokens     int64
	OmittedTokens int
}

func TestTokenBudgets(t *testing.T) {
	t.Parallel()
	mem := func(id, s string) discover.Extra { return text(id, "memory", s) }
	tests := []struct {
		name    string
		est     measure.Estimator
		extras  []discover.Extra
		budgets manifest.Budgets
		want    []tokenCut
	}{
		{
			name:    "chars4: a kind pool shared in order, cut at a multiple of 4 characters",
			est:     measure.CharsDiv4{},
			extras:  []discover.Extra{mem("m1", "abcdefghij"), mem("m2", "klmnopqrstuvwxyz"), mem("m3", "z"), text("n", "note", "free")},
			budgets: manifest.Budgets{tokenBudget("memory", noLimit, noLimit, lim(5))},
			want: []tokenCut{
				{"m1", "abcdefghij", "included", "memory", 5, 0},
				{"m2", "klmnopqr", "included", "memory", 2, 2},
				{"m3", "", "budget_exhausted", "memory", 0, 1},
				{"n", "free", "included", "", -1, -1},
			},
		},
		{
			name:    "o200k: cut between two tokens",
			est:     measure.O200kBase(),
			extras:  []discover.Extra{mem("m", "Hello, world! 😀 done")},
			budgets: manifest.Budgets{tokenBudget("m", noLimit, noLimit, lim(4))},
			want:    []tokenCut{{"m", "Hello, world!", "included", "m", 4, 2}},
		},
		{
			name:    "cl100k: CJK",
			est:     measure.Cl100kBase(),
			extras:  []discover.Extra{mem("m", "中文字符")},
			budgets: manifest.Budgets{tokenBudget("m", noLimit, noLimit, lim(2))},
			want:    []tokenCut{{"m", "中文", "included", "m", 2, 1}},
		},
		{
			name: "o200k: a character split over tokens is kept whole or not at all",
			est:  measure.O200kBase(),
			// 👨 is two tokens: one token keeps nothing
			extras:  []discover.Extra{mem("m1", "👨\u200d👩 family"), mem("m2", "👨\u200d👩 family")},
			budgets: manifest.Budgets{tokenBudget("m1", noLimit, noLimit, lim(1)), tokenBudget("m2", noLimit, noLimit, lim(3))},
			want: []tokenCut{
				{"m1", "", "budget_exhausted", "m1", 1, 6},
				{"m2", "", "same_content", "", -1, -1},
			},
		},
		{
			name: "lines, then chars, then tokens",
			est:  measure.O200kBase(),
			// lines: "line one\nline two\n"; chars: "line one\nlin"; tokens: "line one"
			extras:  []discover.Extra{mem("m", "line one\nline two\nline three\n")},
			budgets: manifest.Budgets{tokenBudget("m", lim(12), lim(2), lim(2))},
			want:    []tokenCut{{"m", "line one", "included", "m", 2, 7}},
		},
		{
			name:    "a token limit that fits changes nothing",
			est:     measure.O200kBase(),
			extras:  []discover.Extra{mem("m1", "Hello, world!"), mem("m2", "again")},
			budgets: manifest.Budgets{tokenBudget("memory", noLimit, noLimit, lim(5))},
			want: []tokenCut{
				{"m1", "Hello, world!", "included", "memory", 5, 0},
				{"m2", "again", "included", "memory", 1, 0},
			},
		},
		{
			name:   "only rows under a token budget get its fields",
			est:    measure.CharsDiv4{},
			extras: []discover.Extra{mem("m1", "abcdefgh"), text("n1", "note", "ijklmnop")},
			budgets: manifest.Budgets{
				tokenBudget("memory", noLimit, noLimit, lim(1)),
				tokenBudget("note", lim(3), noLimit, noLimit),
			},
			want: []tokenCut{
				{"m1", "abcd", "included", "memory", 1, 1},
				{"n1", "ijk", "included", "note", -1, -1},
			},
		},
		{
			name:    "max_tokens 0",
			est:     measure.O200kBase(),
			extras:  []discover.Extra{mem("m", "abc")},
			budgets: manifest.Budgets{tokenBudget("m", noLimit, noLimit, lim(0))},
			want:    []tokenCut{{"m", "", "budget_exhausted", "m", 0, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := opts(project(t, nil), tt.extras...)
			o.Budgets, o.Estimator = tt.budgets, tt.est
			m := build(t, o)
			if m.Estimator != tt.est.Name() {
				t.Errorf("estimator = %q, want %q", m.Estimator, tt.est.Name())
			}
			var got []tokenCut
			for _, s := range m.Sources {
				c := tokenCut{s.ID, fragment(t, m, s.ID), s.Reason, s.Budget, -1, -1}
				if n, ok := s.MaxTokens.Value(); ok {
					c.MaxTokens = n
				}
				if s.OmittedTokens != nil {
					c.OmittedTokens = *s.OmittedTokens
				}
				got = append(got, c)
				if s.EmittedTokens != nil && *s.EmittedTokens != tt.est.Tokens([]byte(fragment(t, m, s.ID))) {
					t.Errorf("%s: emitted_tokens %d, not the estimator's count of the fragment", s.ID, *s.EmittedTokens)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("token budget results =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestNoTokenBudgetNoFields: without max_tokens, rows and budgets have
// exactly the original's fields.
func TestNoTokenBudgetNoFields(t *testing.T) {
	t.Parallel()
	o := opts(project(t, nil), text("m", "memory", "abcdef"), text("n", "note", "free"))
	o.Budgets = manifest.Budgets{budget("memory", lim(3), noLimit)}
	b := encode(t, build(t, o))
	for _, key := range []string{"max_tokens", "omitted_tokens"} {
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("a manifest without token budgets has %q:\n%s", key, b)
		}
	}
	if !bytes.Contains(b, []byte("\"memory\": {\n      \"max_chars\": 3,\n      \"max_lines\": null\n    }")) {
		t.Errorf("the budget is not written as before:\n%s", b)
	}
	o.Budgets = manifest.Budgets{tokenBudget("memory", lim(3), noLimit, lim(7))}
	b = encode(t, build(t, o))
	if !bytes.Contains(b, []byte("\"memory\": {\n      \"max_chars\": 3,\n      \"max_lines\": null,\n      \"max_tokens\": 7\n    }")) ||
		!bytes.Contains(b, []byte("\"omitted_lines\": 0,\n      \"max_tokens\": 7,\n      \"omitted_tokens\": 1\n")) {
		t.Errorf("the token budget's fields are not after the others:\n%s", b)
	}
	if bytes.Count(b, []byte("omitted_tokens")) != 1 {
		t.Errorf("omitted_tokens is written for a row without a token budget:\n%s", b)
	}
}

func TestTokenBudgetInvalid(t *testing.T) {
	t.Parallel()
	o := opts(project(t, nil), text("x", "k", "1"))
	o.Budgets = manifest.Budgets{tokenBudget("k", noLimit, noLimit, lim(-2))}
	_, err := manifest.Build(context.Background(), o)
	if err == nil || err.Error() != "budgets.k: max_tokens must be nonnegative" {
		t.Errorf("error = %v", err)
	}
	// a stored row with one of the two token fields is not a manifest
	o.Budgets = manifest.Budgets{tokenBudget("k", noLimit, noLimit, lim(5))}
	b := encode(t, build(t, o))
	bad := bytes.Replace(b, []byte(",\n      \"omitted_tokens\": 0"), nil, 1)
	if _, err := manifest.Decode(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "omitted_tokens") {
		t.Errorf("Decode of a row with max_tokens but no omitted_tokens: %v", err)
	}
}

// TestTokenBudgetsNeverExceeded builds random sources under random budgets
// with every estimator: a pool's rows never emit more tokens than its
// max_tokens, each row records what was left, and fragments are prefixes of
// their sources.
func TestTokenBudgetsNeverExceeded(t *testing.T) {
	t.Parallel()
	pieces := []string{" ", "\n", "\r\n", "\t", "word", "Hello", "'s", "42", "3.14", ".", "<|endoftext|>", "é", "e\u0301",
		"中文", "😀", "👨\u200d👩\u200d👧", "func f() {\n\treturn\n}\n", "    ", "x  \n  \n"}
	r := rand.New(rand.NewSource(8))
	dir := project(t, nil)
	for _, name := range measure.EstimatorNames() {
		est, err := measure.ParseEstimator(name)
		if err != nil {
			t.Fatal(err)
		}
		for round := range testlane.Rounds(60, 4) {
			var extras []discover.Extra
			texts := map[string]string{}
			for i := range 1 + r.Intn(5) {
				var b strings.Builder
				for range 1 + r.Intn(25) {
					b.WriteString(pieces[r.Intn(len(pieces))])
				}
				id := fmt.Sprintf("s%d", i)
				kind := []string{"memory", "note"}[r.Intn(2)]
				// a round number makes every text distinct
				texts[id] = fmt.Sprintf("%d.%d ", round, i) + b.String()
				extras = append(extras, text(id, kind, texts[id]))
			}
			pool := func() measure.Limit {
				if r.Intn(4) == 0 {
					return noLimit
				}
				return lim(int64(r.Intn(40)))
			}
			budgets := manifest.Budgets{tokenBudget("memory", pool(), pool(), lim(int64(r.Intn(60))))}
			if r.Intn(2) == 0 {
				budgets = append(budgets, tokenBudget("s0", noLimit, noLimit, lim(int64(r.Intn(20)))))
			}
			o := opts(dir, extras...)
			o.Budgets, o.Estimator = budgets, est
			m, err := manifest.Build(context.Background(), o)
			if err != nil {
				if strings.Contains(err.Error(), "matches no source") {
					continue // no memory source this round
				}
				t.Fatal(err)
			}
			encode(t, m)
			left := map[string]int64{}
			for _, b := range budgets {
				left[b.Name], _ = b.MaxTokens.Value()
			}
			for _, s := range m.Sources {
				frag := fragment(t, m, s.ID)
				if !strings.HasPrefix(texts[s.ID], frag) {
					t.Fatalf("%s: fragment %q is not a prefix of %q", s.ID, frag, texts[s.ID])
				}
				if s.Budget == "" {
					continue
				}
				n, ok := s.MaxTokens.Value()
				if !ok || n != left[s.Budget] {
					t.Fatalf("%s (%s): max_tokens %v, want what was left: %d", name, s.ID, s.MaxTokens, left[s.Budget])
				}
				if int64(*s.EmittedTokens) > n {
					t.Fatalf("%s (%s): %q is %d tokens, over the %d left", name, s.ID, frag, *s.EmittedTokens, n)
				}
				if *s.OmittedTokens != max(*s.SourceTokens-*s.EmittedTokens, 0) {
					t.Fatalf("%s (%s): omitted_tokens %d, source %d, emitted %d", name, s.ID, *s.OmittedTokens, *s.SourceTokens, *s.EmittedTokens)
				}
				left[s.Budget] -= int64(*s.EmittedTokens)
			}
		}
	}
}

// TestOneEstimatorForEveryCount: the manifest's estimator counts the
// sources, the files, the history and the sections; another estimator for
// one stage is an error.
func TestOneEstimatorForEveryCount(t *testing.T) {
	t.Parallel()
	dir := project(t, map[string]string{
		"AGENTS.md": "# Rules\nRun go test. 中文 😀\n",
		"a.go":      "package a\n\nfunc A() int { return 42 }\n",
		"h.json":    `{"messages": [{"id": "u", "role": "user", "contentParts": [{"type": "text", "text": "Hello, 世界"}]}]}`,
	})
	o := opts(dir)
	o.Discover.NoDiscover = false
	f := aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "a.go"}}}
	o.Files = &f
	o.History = &manifest.HistoryOptions{Path: filepath.Join(dir, "h.json")}
	est := measure.O200kBase()
	o.SetEstimator(est)
	if o.Estimator != est || o.Files.Estimator != est || o.History.Options.Estimator != est || f.Estimator != nil {
		t.Fatalf("SetEstimator did not set every stage (or changed the caller's options)")
	}
	m := build(t, o)
	if m.Estimator != measure.O200kBaseName {
		t.Errorf("estimator = %q", m.Estimator)
	}
	if s := row(t, m, "project_agents"); *s.SourceTokens != est.Tokens([]byte("# Rules\nRun go test. 中文 😀\n")) {
		t.Errorf("source_tokens %d, not o200k's", *s.SourceTokens)
	}
	if len(m.Sections) != 2 {
		t.Fatalf("%d sections, want files and history", len(m.Sections))
	}
	for _, sec := range m.Sections {
		if sec.Tokens != est.Tokens([]byte(sec.Text)) {
			t.Errorf("section %s: %d tokens, o200k counts %d", sec.ID, sec.Tokens, est.Tokens([]byte(sec.Text)))
		}
	}
	if fr := m.Files[0]; *fr.SourceTokens != est.Tokens([]byte("package a\n\nfunc A() int { return 42 }\n")) {
		t.Errorf("file source_tokens %d, not o200k's", *fr.SourceTokens)
	}

	// a stage with another estimator
	bad := o
	bf := *o.Files
	bf.Estimator = measure.CharsDiv4{}
	bad.Files = &bf
	_, err := manifest.Build(context.Background(), bad)
	var ee *manifest.EstimatorError
	if !errors.As(err, &ee) || ee.Stage != "files" || ee.Got != (measure.CharsDiv4{}).Name() || ee.Manifest != measure.O200kBaseName {
		t.Errorf("Build with files counted by chars4: %v", err)
	}
	bad = o
	bad.Estimator = nil // the default, chars4
	bad.Files = nil
	if _, err := manifest.Build(context.Background(), bad); !errors.As(err, &ee) || ee.Stage != "history" {
		t.Errorf("Build with the history counted by o200k in a chars4 manifest: %v", err)
	}
}

func TestCutTokens(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text   string
		tokens int64 // -1: unlimited
		est    measure.Estimator
		want   string
	}{
		{"abcdefgh", inf, measure.CharsDiv4{}, "abcdefgh"},
		{"abcdefgh", 0, measure.CharsDiv4{}, ""},
		{"abcdefgh", 1, measure.CharsDiv4{}, "abcd"},
		{"abcdefgh", 1, nil, "abcd"},
		{"Hello, world! 😀 done", 3, measure.O200kBase(), "Hello, world"},
		{"中文字符", 1, measure.Cl100kBase(), "中"},
	} {
		var l measure.Limit
		if tt.tokens >= 0 {
			l = lim(tt.tokens)
		}
		if got := manifest.CutTokens([]byte(tt.text), l, tt.est); string(got) != tt.want || got == nil {
			t.Errorf("CutTokens(%q, %d) = %q, want %q", tt.text, tt.tokens, got, tt.want)
		}
	}
}
