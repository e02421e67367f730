package manifest_test

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// cut is what the budget did to one row. Limits use -1 for unlimited (null).
type cut struct {
	ID        string
	Emitted   string
	Included  bool
	Reason    manifest.Reason
	Truncated bool
	Budget    string
	MaxChars  int64
	MaxLines  int64
	OmitChars int
	OmitLines int
}

const inf = -1

func limits(l measure.Limit) int64 {
	if n, ok := l.Value(); ok {
		return n
	}
	return inf
}

func TestBudgets(t *testing.T) {
	t.Parallel()
	mem := func(id, s string) discover.Extra { return text(id, "memory", s) }
	tests := []struct {
		name    string
		extras  []discover.Extra
		budgets manifest.Budgets
		want    []cut
	}{
		{
			name:    "kind pool shared in order",
			extras:  []discover.Extra{mem("m1", "abcdef"), mem("m2", "ghijkl"), mem("m3", "x"), text("other", "note", "free")},
			budgets: manifest.Budgets{budget("memory", lim(10), measure.Limit{})},
			want: []cut{
				{"m1", "abcdef", true, "included", false, "memory", 10, inf, 0, 0},
				{"m2", "ghij", true, "included", true, "memory", 4, inf, 2, 0},
				{"m3", "", false, "budget_exhausted", true, "memory", 0, inf, 1, 1},
				{"other", "free", true, "included", false, "", inf, inf, 0, 0},
			},
		},
		{
			name:    "kind pool follows the sorted order, not the declaration order",
			extras:  []discover.Extra{mem("late", "abcdef"), {ID: "early", Kind: "memory", Text: str("ghijkl"), Order: num(0)}},
			budgets: manifest.Budgets{budget("memory", lim(8), measure.Limit{})},
			want: []cut{
				{"early", "ghijkl", true, "included", false, "memory", 8, inf, 0, 0},
				{"late", "ab", true, "included", true, "memory", 2, inf, 4, 0},
			},
		},
		{
			name:    "id budget over kind budget",
			extras:  []discover.Extra{mem("m1", "abcdef"), mem("m2", "ghijkl"), mem("m3", "mnop")},
			budgets: manifest.Budgets{budget("memory", lim(3), measure.Limit{}), budget("m2", lim(100), measure.Limit{})},
			want: []cut{
				{"m1", "abc", true, "included", true, "memory", 3, inf, 3, 0},
				{"m2", "ghijkl", true, "included", false, "m2", 100, inf, 0, 0},
				{"m3", "", false, "budget_exhausted", true, "memory", 0, inf, 4, 1},
			},
		},
		{
			name:    "lines then chars",
			extras:  []discover.Extra{mem("m", "a\nb\nc\n")},
			budgets: manifest.Budgets{budget("m", lim(3), lim(2))},
			want:    []cut{{"m", "a\nb", true, "included", true, "m", 3, 2, 3, 1}},
		},
		{
			name:    "max_lines keeps the final newline of the last line",
			extras:  []discover.Extra{mem("m", "a\nb\nc\n")},
			budgets: manifest.Budgets{budget("m", measure.Limit{}, lim(2))},
			want:    []cut{{"m", "a\nb\n", true, "included", true, "m", inf, 2, 2, 1}},
		},
		{
			name:    "fewer newlines than max_lines: unchanged, pool still charged",
			extras:  []discover.Extra{mem("m1", "a\nb"), mem("m2", "c\nd\ne\n"), mem("m3", "f")},
			budgets: manifest.Budgets{budget("memory", measure.Limit{}, lim(3))},
			want: []cut{
				{"m1", "a\nb", true, "included", false, "memory", inf, 3, 0, 0},
				{"m2", "c\n", true, "included", true, "memory", inf, 1, 4, 2},
				{"m3", "", false, "budget_exhausted", true, "memory", inf, 0, 1, 1},
			},
		},
		{
			name:    "CRLF lines",
			extras:  []discover.Extra{mem("m1", "a\r\nb\r\nc\r\n"), mem("m2", "d\r\ne")},
			budgets: manifest.Budgets{budget("m1", measure.Limit{}, lim(1)), budget("m2", lim(2), measure.Limit{})},
			want: []cut{
				{"m1", "a\r\n", true, "included", true, "m1", inf, 1, 6, 2},
				// chars count code points: CR and LF are two
				{"m2", "d\r", true, "included", true, "m2", 2, inf, 2, 1},
			},
		},
		{
			name:    "multi-byte characters are never split",
			extras:  []discover.Extra{mem("m1", "café\r\nnext\n"), mem("m2", "😀😀😀"), mem("m3", "éa")},
			budgets: manifest.Budgets{budget("m1", lim(4), measure.Limit{}), budget("m2", lim(2), measure.Limit{}), budget("m3", lim(1), measure.Limit{})},
			want: []cut{
				{"m1", "café", true, "included", true, "m1", 4, inf, 7, 1},
				{"m2", "😀😀", true, "included", true, "m2", 2, inf, 1, 0},
				{"m3", "é", true, "included", true, "m3", 1, inf, 1, 0},
			},
		},
		{
			name:    "zero chars",
			extras:  []discover.Extra{mem("m", "abc")},
			budgets: manifest.Budgets{budget("m", lim(0), lim(5))},
			want:    []cut{{"m", "", false, "budget_exhausted", true, "m", 0, 5, 3, 1}},
		},
		{
			name:    "zero lines",
			extras:  []discover.Extra{mem("m", "abc")},
			budgets: manifest.Budgets{budget("m", lim(5), lim(0))},
			want:    []cut{{"m", "", false, "budget_exhausted", true, "m", 5, 0, 3, 1}},
		},
		{
			name:    "unlimited on both: recorded, nothing cut",
			extras:  []discover.Extra{mem("m", "abc\ndef")},
			budgets: manifest.Budgets{budget("memory", measure.Limit{}, measure.Limit{})},
			want:    []cut{{"m", "abc\ndef", true, "included", false, "memory", inf, inf, 0, 0}},
		},
		{
			name:    "a limit equal to the text is not a truncation",
			extras:  []discover.Extra{mem("m1", "abc\n"), mem("m2", "x")},
			budgets: manifest.Budgets{budget("memory", lim(4), lim(1))},
			want: []cut{
				{"m1", "abc\n", true, "included", false, "memory", 4, 1, 0, 0},
				{"m2", "", false, "budget_exhausted", true, "memory", 0, 0, 1, 1},
			},
		},
		{
			name: "a name that is an id and a kind is one pool",
			extras: []discover.Extra{
				text("memory", "note", "abcdef"), mem("m2", "ghijkl"), text("n", "note", "unbudgeted"),
			},
			budgets: manifest.Budgets{budget("memory", lim(8), measure.Limit{})},
			want: []cut{
				{"memory", "abcdef", true, "included", false, "memory", 8, inf, 0, 0},
				{"m2", "gh", true, "included", true, "memory", 2, inf, 4, 0},
				{"n", "unbudgeted", true, "included", false, "", inf, inf, 0, 0},
			},
		},
		{
			name: "natives, duplicates and skipped rows never consume budget",
			extras: []discover.Extra{
				{ID: "nat", Kind: "memory", Text: str("native text"), Delivery: "native", NativeEvidence: "x"},
				mem("m1", "abc"),
				mem("dup", "abc"),
				mem("empty", " \n"),
				{ID: "excl", Kind: "memory", Text: str("excluded"), Audience: []string{"codex"}},
				file("gone", "memory", "gone.md"),
				mem("m2", "de"),
				mem("m3", "f"),
			},
			budgets: manifest.Budgets{budget("memory", lim(5), measure.Limit{})},
			want: []cut{
				{"nat", "", false, "native_autoload", false, "", inf, inf, 0, 0},
				{"m1", "abc", true, "included", false, "memory", 5, inf, 0, 0},
				{"dup", "", false, "same_content", false, "", inf, inf, 0, 0},
				{"empty", "", false, "empty", false, "", inf, inf, 0, 0},
				{"excl", "", false, "audience_excluded", false, "", inf, inf, 0, 0},
				{"gone", "", false, "missing", false, "", inf, inf, 0, 0},
				{"m2", "de", true, "included", false, "memory", 2, inf, 0, 0},
				{"m3", "", false, "budget_exhausted", true, "memory", 0, inf, 1, 1},
			},
		},
		{
			name:    "an exhausted row still counts as accepted for later duplicates",
			extras:  []discover.Extra{mem("m1", "abc"), text("again", "note", "abc")},
			budgets: manifest.Budgets{budget("memory", lim(0), measure.Limit{})},
			want: []cut{
				{"m1", "", false, "budget_exhausted", true, "memory", 0, inf, 3, 1},
				{"again", "", false, "same_content", false, "", inf, inf, 0, 0},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := opts(project(t, nil), tt.extras...)
			o.Budgets = tt.budgets
			m := build(t, o)
			var got []cut
			for _, s := range m.Sources {
				got = append(got, cut{s.ID, fragment(t, m, s.ID), s.Included, s.Reason, s.Truncated, s.Budget,
					limits(s.MaxChars), limits(s.MaxLines), s.OmittedChars, s.OmittedLines})
				checkEmitted(t, s, fragment(t, m, s.ID))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("budget results =\n%+v\nwant\n%+v", got, tt.want)
			}
			// the manifest echoes the budgets in order
			if !reflect.DeepEqual(m.Budgets, tt.budgets) {
				t.Errorf("manifest budgets = %+v, want %+v", m.Budgets, tt.budgets)
			}
		})
	}
}

// checkEmitted checks the emitted sizes and hash of a row against its
// fragment: emitted_hash is set exactly for rows that reached the included
// decision, also when a budget cut them to "".
func checkEmitted(t *testing.T, s manifest.Source, frag string) {
	t.Helper()
	accepted := s.Included || s.Reason == manifest.ReasonBudgetExhausted
	if accepted != (s.EmittedHash != nil) {
		t.Errorf("%s: emitted_hash %v for reason %s", s.ID, s.EmittedHash, s.Reason)
	}
	if s.EmittedHash != nil && *s.EmittedHash != measure.Hash([]byte(frag)) {
		t.Errorf("%s: emitted_hash is not the hash of the fragment %q", s.ID, frag)
	}
	if s.EmittedBytes == nil {
		return
	}
	z := measure.Measure([]byte(frag), nil)
	if got := [4]int{*s.EmittedBytes, *s.EmittedChars, *s.EmittedLines, *s.EmittedTokens}; got != [4]int{z.Bytes, z.Chars, z.Lines, z.Tokens} {
		t.Errorf("%s: emitted sizes %v, want those of %q", s.ID, got, frag)
	}
	if s.Budget != "" && (s.OmittedChars != *s.SourceChars-z.Chars || s.OmittedLines != *s.SourceLines-z.Lines) {
		t.Errorf("%s: omitted %d/%d, want source minus emitted", s.ID, s.OmittedChars, s.OmittedLines)
	}
}

func TestBudgetExhaustedHash(t *testing.T) {
	t.Parallel()
	o := opts(project(t, nil), text("m", "memory", "abc"))
	o.Budgets = manifest.Budgets{budget("m", lim(0), measure.Limit{})}
	s := build(t, o).Sources[0]
	// BLAKE3 of the empty input (official test vector)
	const empty = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
	if s.EmittedHash == nil || *s.EmittedHash != empty || *s.EmittedBytes != 0 || s.Included {
		t.Errorf("budget_exhausted row: emitted_hash %v, bytes %v, included %v", s.EmittedHash, *s.EmittedBytes, s.Included)
	}
}

func TestBudgetOnDiscoveredKind(t *testing.T) {
	t.Parallel()
	dir := project(t, map[string]string{"AGENTS.md": "line1\nline2\nline3\n", "CLAUDE.md": "c\n"})
	o := projectOpts(dir)
	o.Budgets = manifest.Budgets{budget("project", measure.Limit{}, lim(2))}
	m := build(t, o)
	a, c := row(t, m, "project_agents"), row(t, m, "project_claude")
	if fragment(t, m, "project_agents") != "line1\nline2\n" || !a.Truncated || a.Budget != "project" || a.OmittedLines != 1 {
		t.Errorf("project_agents: %q truncated %v budget %q", fragment(t, m, "project_agents"), a.Truncated, a.Budget)
	}
	if c.Reason != "fallback_not_selected" || c.Budget != "" || c.MaxLines.IsSet() {
		t.Errorf("project_claude (not selected) used the budget: %+v", c)
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text         string
		chars, lines int64 // -1: unlimited
		want         string
	}{
		{"", inf, inf, ""},
		{"", 0, inf, ""},
		{"abc", inf, inf, "abc"},
		{"abc", 0, inf, ""},
		{"abc", inf, 0, ""},
		{"abc", 3, inf, "abc"},
		{"abc", 2, inf, "ab"},
		{"a\nb\nc", inf, 1, "a\n"},
		{"a\nb\nc", inf, 2, "a\nb\n"},
		{"a\nb\nc", inf, 3, "a\nb\nc"},
		{"a\nb\nc\n", inf, 3, "a\nb\nc\n"},
		{"a\nb\nc", 3, 2, "a\nb"},
		{"a\nb\nc", 1, 2, "a"},
		{"\n\n\n", inf, 2, "\n\n"},
		{"a\r\nb\r\n", inf, 1, "a\r\n"},
		{"a\r\nb", 2, inf, "a\r"},
		{"café\r\nnext\n", 4, inf, "café"},
		{"café\r\nnext\n", 3, inf, "caf"},
		{"café\r\nnext\n", inf, 1, "café\r\n"},
		{"日本語", 2, inf, "日本"},
		{"\U0001F600x", 1, inf, "\U0001F600"},
		{"e\u0301x", 1, inf, "e"}, // code points, not grapheme clusters
	}
	for _, tt := range tests {
		var c, l measure.Limit
		if tt.chars >= 0 {
			c = lim(tt.chars)
		}
		if tt.lines >= 0 {
			l = lim(tt.lines)
		}
		got := manifest.Cut([]byte(tt.text), c, l)
		if string(got) != tt.want {
			t.Errorf("Cut(%q, %d, %d) = %q, want %q", tt.text, tt.chars, tt.lines, got, tt.want)
		}
		if got == nil {
			t.Errorf("Cut(%q, %d, %d) = nil, want a non-nil slice", tt.text, tt.chars, tt.lines)
		}
	}
}

// FuzzCut checks Cut's invariants: the result is a prefix of the input
// (never longer), never splits a UTF-8 character, and respects the limits.
func FuzzCut(f *testing.F) {
	f.Add([]byte("café\r\nnext\n"), int64(4), int64(1))
	f.Add([]byte("a\nb\nc"), int64(-1), int64(2))
	f.Add([]byte("😀😀"), int64(1), int64(-1))
	f.Add([]byte("\xff\xfe"), int64(1), int64(1))
	f.Add([]byte(""), int64(0), int64(0))
	f.Fuzz(func(t *testing.T, text []byte, chars, lines int64) {
		var c, l measure.Limit
		if chars >= 0 {
			c = measure.Max(chars)
		}
		if lines >= 0 {
			l = measure.Max(lines)
		}
		out := manifest.Cut(text, c, l)
		if len(out) > len(text) || string(text[:len(out)]) != string(out) {
			t.Fatalf("Cut(%q) = %q, not a prefix", text, out)
		}
		if utf8.Valid(text) && !utf8.Valid(out) {
			t.Fatalf("Cut(%q) = %q splits a UTF-8 character", text, out)
		}
		if len(out) < len(text) && utf8.Valid(text) && !utf8.RuneStart(text[len(out)]) {
			t.Fatalf("Cut(%q) = %q ends inside a character", text, out)
		}
		if c.Exceeded(int64(measure.Chars(out))) {
			t.Fatalf("Cut(%q, chars %s) = %q, too many characters", text, c, out)
		}
		if l.Exceeded(int64(measure.Lines(out))) {
			t.Fatalf("Cut(%q, lines %s) = %q, too many lines", text, l, out)
		}
		if !c.IsSet() && !l.IsSet() && len(out) != len(text) {
			t.Fatalf("Cut(%q) without limits = %q", text, out)
		}
		if n, ok := c.Value(); ok && !l.IsSet() && int64(measure.Chars(text)) > n && int64(measure.Chars(out)) != n {
			t.Fatalf("Cut(%q, chars %d) = %q, not the first %d characters", text, n, out, n)
		}
	})
}
