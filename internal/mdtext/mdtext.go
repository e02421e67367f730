// Package mdtext holds the markdown rules that several ctx pipelines share:
// the code fence and inline code span that can hold any text, and the
// heading of the chat history's section and the name it is scanned under.
package mdtext

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/termsafe"
)

// HistoryHeading starts the chat history's section, in the aggregate
// document, in `ctx history --format markdown` and in the rendered
// context. It is Manual Slop's title of the section.
const HistoryHeading = "## Discussion History"

// HistoryScanName is the name the chat history is scanned for secrets
// under, its messages (package history) and its section (the aggregate
// document, the manifest's section): the path a secrets allowlist's paths
// match. It was "discussion_history" before.
const HistoryScanName = "history"

// LongestRun returns the length of the longest run of the byte c in s.
func LongestRun(s string, c byte) int {
	longest := 0
	for {
		i := strings.IndexByte(s, c)
		if i < 0 {
			return longest
		}
		s = s[i:]
		run := 1
		for run < len(s) && s[run] == c {
			run++
		}
		longest = max(longest, run)
		s = s[run:]
	}
}

// Fence wraps text in a code fence of backticks longer than the longest
// backtick run inside it (at least three), with info as the info string. A
// newline is added before the closing fence when text does not end with one.
func Fence(info, text string) string {
	return string(AppendFence(nil, info, text))
}

// AppendFence appends [Fence](info, text) to dst.
func AppendFence(dst []byte, info, text string) []byte {
	n := max(3, LongestRun(text, '`')+1)
	fence := func() {
		for range n {
			dst = append(dst, '`')
		}
	}
	dst = slices.Grow(dst, 2*n+len(info)+len(text)+2)
	fence()
	dst = append(dst, info...)
	dst = append(dst, '\n')
	dst = append(dst, text...)
	if text != "" && !strings.HasSuffix(text, "\n") {
		dst = append(dst, '\n')
	}
	fence()
	return dst
}

// CodeSpan renders s as one inline code span: in single backticks, or,
// when s holds backticks, in a longer run. It is padded with a space on
// each side when s starts or ends with a backtick, or starts and ends with
// a space (markdown strips one space from each end of such a span), so that
// the span shows s exactly. Control characters are escaped ([Escape]), so
// that the span stays on its line; an empty s is a span of one space.
func CodeSpan(s string) string {
	s = Escape(s)
	if s == "" {
		return "` `" // "``" would open a span, not hold an empty one
	}
	ticks := strings.Repeat("`", LongestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "" {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// Escape shows the characters of s that could add lines, move the cursor,
// recolour a terminal or reorder text as escapes, so that a name is data
// and never layout: \n, \r, \t, other control characters as \xHH, DEL and
// the C1 controls as \u00HH, and the line and paragraph separators and
// bidirectional controls as \uHHHH. A byte that is not part of valid UTF-8
// (a file name on Linux may hold any byte) is shown as \xHH too, so the
// result is always valid UTF-8 and two names that differ only in such
// bytes are shown apart. Everything else, backslashes and U+FFFD included,
// is left as it is, so an ordinary name is shown byte for byte.
func Escape(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, needsEscape) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune) bool { return termsafe.IsControl(r) }
