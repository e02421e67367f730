package mdtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// parseFence reads a fenced code block as CommonMark does: an opening line
// of n >= 3 backticks and the info string, then content lines up to a
// closing line of at least n backticks (after up to 3 spaces, followed by
// spaces or tabs only), or the end. Lines end at "\n", "\r\n" or "\r".
func parseFence(md string) (info, content string, closed bool) {
	lines := splitLines(md)
	n := 0
	for n < len(lines[0]) && lines[0][n] == '`' {
		n++
	}
	info = strings.TrimSpace(lines[0][n:])
	var b strings.Builder
	for _, l := range lines[1:] {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) <= 3 {
			k := 0
			for k < len(t) && t[k] == '`' {
				k++
			}
			if k >= n && strings.Trim(t[k:], " \t") == "" {
				return info, b.String(), true
			}
		}
		b.WriteString(l + "\n")
	}
	return info, b.String(), false
}

// splitLines splits at every CommonMark line ending.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}

// The fence holds any text: parsed back, the block has the info string and
// exactly the text (with a final newline), and it closes on its last line.
func FuzzFence(f *testing.F) {
	for _, s := range []string{"", "x", "a ``` b\n", "`````", "```\n", "~~~\ncode\n~~~", "   ````\n", "line\r```\r", "\n\n"} {
		f.Add("go", s)
	}
	f.Fuzz(func(t *testing.T, info, text string) {
		if strings.ContainsAny(info, "`\r\n") || strings.TrimSpace(info) != info {
			return // callers pass a language name: FenceLanguage's letters, digits, +, -, _
		}
		md := Fence(info, text)
		gotInfo, content, closed := parseFence(md)
		want := strings.Join(splitLines(text), "\n")
		if text != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if !closed || gotInfo != info || content != want {
			t.Fatalf("Fence(%q, %q) = %q: parsed info %q, content %q, closed %v", info, text, md, gotInfo, content, closed)
		}
		if !strings.HasSuffix(md, "```") || strings.Count(md, "\n") < 1 {
			t.Fatalf("Fence(%q, %q) = %q does not end with its fence", info, text, md)
		}
	})
}

// parseSpan reads an inline code span as CommonMark does: the opening
// backtick run, the content up to a backtick run of the same length, line
// endings as spaces, and one space stripped from each end when both ends
// are spaces and the content is not only spaces. It reports false when md
// is not one whole code span.
func parseSpan(md string) (string, bool) {
	n := 0
	for n < len(md) && md[n] == '`' {
		n++
	}
	if n == 0 {
		return "", false
	}
	rest := md[n:]
	for i := 0; i < len(rest); {
		if rest[i] != '`' {
			i++
			continue
		}
		k := i
		for k < len(rest) && rest[k] == '`' {
			k++
		}
		if k-i == n {
			if k != len(rest) {
				return "", false // the span ends before the text does
			}
			c := strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(rest[:i])
			if len(c) >= 2 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
				c = c[1 : len(c)-1]
			}
			return c, true
		}
		i = k
	}
	return "", false
}

// A code span shows its text exactly, with control characters escaped:
// parsed back, it is one span on one line whose content is Escape(text)
// (one space for the empty text, since an empty span does not exist in
// markdown).
func FuzzCodeSpan(f *testing.F) {
	for _, s := range []string{"a.py", "a`b.py", "`a.py", "a``b`", " a ", "  ", "src/my file.go", "x` ", "`", "``",
		"", "a\n### SYSTEM: b", "\x1b[2J", "evil\u202etxt", "bad\xff.py"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		md := CodeSpan(s)
		if strings.ContainsAny(md, "\r\n") {
			t.Fatalf("CodeSpan(%q) = %q spans lines", s, md)
		}
		if !utf8.ValidString(md) {
			t.Fatalf("CodeSpan(%q) = %q is not valid UTF-8", s, md)
		}
		want := Escape(s)
		if want == "" {
			want = " "
		}
		got, ok := parseSpan(md)
		if !ok || got != want {
			t.Fatalf("CodeSpan(%q) = %q: parsed %q, want %q (one span: %v)", s, md, got, want, ok)
		}
	})
}
