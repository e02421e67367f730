package slice

import (
	"fmt"
	"strings"
	"testing"
)

// file builds a text of numbered filler lines with block inserted after
// line at (0-based count of filler lines before it).
func file(before int, block []string, after int) string {
	var l []string
	for i := 0; i < before; i++ {
		l = append(l, fmt.Sprintf("filler_before_%d()", i))
	}
	l = append(l, block...)
	for i := 0; i < after; i++ {
		l = append(l, fmt.Sprintf("filler_after_%d()", i))
	}
	return strings.Join(l, "\n") + "\n"
}

var block = []string{
	"def parse(tokens):",
	"    out = []",
	"    for t in tokens:",
	"        out.append(t.strip())",
	"    return out",
}

func TestResolve(t *testing.T) {
	orig := file(10, block, 10)
	s, err := New([]byte(orig), 11, 15, "parser", "hot path")
	if err != nil {
		t.Fatal(err)
	}
	edited := append([]string(nil), block...)
	edited[3] = "        out.append(t.strip().lower())"
	reindented := make([]string, len(block))
	for i, l := range block {
		reindented[i] = "\t" + strings.TrimLeft(l, " ")
	}
	// moved and edited, with the anchors gone
	movedEdited := strings.Join(append(append([]string{"x = 1", "y = 2"}, edited...), "z = 3"), "\n")
	tests := []struct {
		name       string
		src        string
		resolution Resolution
		start, end int
	}{
		{"unchanged", orig, ResolutionUnchanged, 11, 15},
		{"lines inserted above", file(14, block, 10), ResolutionMoved, 15, 19},
		{"lines removed above", file(3, block, 10), ResolutionMoved, 4, 8},
		{"moved to the end, anchors lost", "a()\nb()\n" + strings.Join(block, "\n") + "\n", ResolutionMoved, 3, 7},
		{"edited slightly", file(10, edited, 10), ResolutionAnchored, 11, 15},
		{"edited slightly and lines inserted above", file(12, edited, 10), ResolutionAnchored, 13, 17},
		{"whitespace changed", file(10, reindented, 10), ResolutionAnchored, 11, 15},
		{"a line added inside", file(10, append(append([]string{}, block[:2]...), append([]string{"    # note"}, block[2:]...)...), 10), ResolutionAnchored, 11, 16},
		{"moved and edited", movedEdited, ResolutionFuzzy, 3, 7},
		{"last line edited, the lines after it gone", file(10, append(append([]string{}, block[:4]...), "    return sorted(out)"), 0), ResolutionAnchored, 11, 15},
		{"deleted", file(10, nil, 10), ResolutionOrphaned, 0, 0},
		{"replaced by other code", file(10, []string{"def other():", "    return 42", "", "def more():", "    pass"}, 10), ResolutionOrphaned, 0, 0},
		{"empty file", "", ResolutionOrphaned, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Resolve([]byte(tc.src), s)
			if r.Resolution != tc.resolution || r.NewStart != tc.start || r.NewEnd != tc.end {
				t.Fatalf("got %s %d-%d (score %.2f, %s), want %s %d-%d", r.Resolution, r.NewStart, r.NewEnd, r.Score, r.Reason, tc.resolution, tc.start, tc.end)
			}
			if r.OldStart != 11 || r.OldEnd != 15 || r.Tag != "parser" || r.Comment != "hot path" {
				t.Errorf("old range or labels lost: %+v", r)
			}
			if r.Orphaned() {
				if r.Content != "" || r.Reason == "" {
					t.Errorf("orphaned slice has content %q or no reason", r.Content)
				}
				return
			}
			lines := splitLines([]byte(tc.src))
			if want := strings.Join(lines[r.NewStart-1:r.NewEnd], "\n"); r.Content != want {
				t.Errorf("content = %q, want the lines of the new range %q", r.Content, want)
			}
		})
	}
}

func TestResolveDuplicates(t *testing.T) {
	// the same text twice: the anchors pick the copy that was pinned
	src := strings.Join(append(append(append([]string{"alpha()"}, block...), "beta()", "gamma()"), block...), "\n")
	s, err := New([]byte(src), 9, 13, "", "")
	if err != nil {
		t.Fatal(err)
	}
	shifted := "new_line()\n" + src
	r := Resolve([]byte(shifted), s)
	if r.Resolution != ResolutionMoved || r.NewStart != 10 || r.NewEnd != 14 {
		t.Fatalf("got %s %d-%d, want moved 10-14", r.Resolution, r.NewStart, r.NewEnd)
	}
	// with the anchors gone too, the copies are ambiguous: never guess
	s.AnchorLines = Anchors{}
	r = Resolve([]byte(shifted), s)
	if r.Resolution != ResolutionOrphaned {
		t.Fatalf("ambiguous copies resolved to %s %d-%d", r.Resolution, r.NewStart, r.NewEnd)
	}
}

func TestResolveUnpinned(t *testing.T) {
	src := []byte("a\nb\nc\n")
	r := Resolve(src, Slice{StartLine: 2, EndLine: 3})
	if r.Resolution != ResolutionUnpinned || r.Content != "b\nc" {
		t.Fatalf("got %+v", r)
	}
	r = Resolve(src, Slice{StartLine: 2, EndLine: 9})
	if r.Resolution != ResolutionOrphaned {
		t.Fatalf("past the end: got %+v", r)
	}
	r = Resolve(src, Slice{StartLine: 3, EndLine: 2, ContentHash: "x"})
	if r.Resolution != ResolutionOrphaned {
		t.Fatalf("inverted range: got %+v", r)
	}
}

func TestNew(t *testing.T) {
	src := []byte("one\ntwo\r\nthree\n\nfive\n")
	s, err := New(src, 2, 3, "t", "c")
	if err != nil {
		t.Fatal(err)
	}
	if s.AnchorLines.Before[0] != "one" || len(s.AnchorLines.After) != 2 || s.AnchorLines.After[1] != "five" {
		t.Errorf("anchors = %+v", s.AnchorLines)
	}
	if got := strings.Fields(s.Fingerprint); len(got) != 2 {
		t.Errorf("fingerprint = %q", s.Fingerprint)
	}
	for _, r := range [][2]int{{0, 1}, {3, 2}, {5, 6}} {
		if _, err := New(src, r[0], r[1], "", ""); err == nil {
			t.Errorf("New(%d, %d) accepted", r[0], r[1])
		}
	}
}

func FuzzResolve(f *testing.F) {
	f.Add("a\nb\nc\nd\n", "x\na\nb\nc\nd\n", 2, 3)
	f.Add(file(3, block, 3), file(5, block[1:], 2), 4, 8)
	f.Add("", "a", 1, 1)
	f.Fuzz(func(t *testing.T, orig, cur string, start, end int) {
		s, err := New([]byte(orig), start, end, "", "")
		if err != nil {
			return
		}
		if r := Resolve([]byte(orig), s); r.Resolution != ResolutionUnchanged {
			t.Fatalf("the pinned file itself resolved to %s", r.Resolution)
		}
		r := Resolve([]byte(cur), s)
		lines := splitLines([]byte(cur))
		if r.Orphaned() {
			if r.Content != "" || r.NewStart != 0 {
				t.Fatalf("orphaned with content: %+v", r)
			}
			return
		}
		if r.NewStart < 1 || r.NewEnd < r.NewStart || r.NewEnd > len(lines) {
			t.Fatalf("range %d-%d outside a %d-line file", r.NewStart, r.NewEnd, len(lines))
		}
		if r.Content != strings.Join(lines[r.NewStart-1:r.NewEnd], "\n") {
			t.Fatalf("content is not the new range")
		}
	})
}

// Manual Slop's slices: a SHA-256 content_hash (of the lines joined by
// "\n", with or without a final newline) and anchor_lines as a list.
func TestResolveSeedSlice(t *testing.T) {
	orig := file(10, block, 10)
	text := strings.Join(block, "\n")
	seed := func(hash string, ctx []string) Slice {
		return Slice{StartLine: 11, EndLine: 15, Tag: "parser", ContentHash: hash, AnchorLines: Anchors{Context: ctx}}
	}
	around := []string{"filler_before_8()", "filler_before_9()", "filler_after_0()", "filler_after_1()"}
	edited := append([]string(nil), block...)
	edited[3] = "        out.append(t.strip().lower())"
	dup := strings.Join(block, "\n") + "\n" + file(10, block, 10)
	for _, tc := range []struct {
		name       string
		s          Slice
		src        string
		resolution Resolution
		start, end int
		algo       string
	}{
		{"sha256 unchanged", seed(sha256Hex(text), nil), orig, ResolutionUnchanged, 11, 15, HashSHA256},
		{"sha256 of the lines with their ends", seed(sha256Hex(text+"\n"), nil), orig, ResolutionUnchanged, 11, 15, HashSHA256},
		{"sha256 moved", seed(sha256Hex(text), nil), file(13, block, 10), ResolutionMoved, 14, 18, HashSHA256},
		{"said blake3, is sha256", Slice{StartLine: 11, EndLine: 15, ContentHash: sha256Hex(text), HashAlgorithm: HashBLAKE3}, orig, ResolutionOrphaned, 0, 0, HashBLAKE3},
		{"said sha256", Slice{StartLine: 11, EndLine: 15, ContentHash: sha256Hex(text), HashAlgorithm: HashSHA256}, orig, ResolutionUnchanged, 11, 15, HashSHA256},
		{"blake3 found first", seed(newHash(text), nil), orig, ResolutionUnchanged, 11, 15, HashBLAKE3},
		{"edited, list anchors", seed(sha256Hex(text), around), file(10, edited, 10), ResolutionAnchored, 11, 15, ""},
		{"edited and moved, list anchors", seed(sha256Hex(text), around), "a()\nb()\n" + file(10, edited, 10), ResolutionAnchored, 13, 17, ""},
		{"edited, no anchors", seed(sha256Hex(text), nil), file(10, edited, 10), ResolutionOrphaned, 0, 0, ""},
		{"edited, the list is the slice's own lines", seed(sha256Hex(text), block[:2]), file(10, edited, 10), ResolutionOrphaned, 0, 0, ""},
		{"two copies, one inside the list's anchors", seed(sha256Hex(text+"x"), around), dup, ResolutionAnchored, 16, 20, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Resolve([]byte(tc.src), tc.s)
			if r.Resolution != tc.resolution || r.NewStart != tc.start || r.NewEnd != tc.end || r.HashAlgorithm != tc.algo {
				t.Errorf("got %s %d-%d (%q, %s), want %s %d-%d (%q)", r.Resolution, r.NewStart, r.NewEnd, r.HashAlgorithm, r.Reason, tc.resolution, tc.start, tc.end, tc.algo)
			}
		})
	}
}

// newHash is the BLAKE3 of a slice text, as New pins it.
func newHash(text string) string {
	s, _ := New([]byte(text+"\n"), 1, strings.Count(text, "\n")+1, "", "")
	return s.ContentHash
}
