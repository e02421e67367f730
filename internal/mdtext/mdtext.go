// Package mdtext holds the markdown rules that several ctx pipelines share:
// the code fence and inline code span that can hold any text, and the
// heading of the discussion history section.
package mdtext

import "strings"

// HistoryHeading starts the discussion history section, in the aggregate
// document, in `ctx messages --format markdown` and in the rendered context.
const HistoryHeading = "## Discussion History"

// LongestRun returns the length of the longest run of the byte c in s.
func LongestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// Fence wraps text in a code fence of backticks longer than the longest
// backtick run inside it (at least three), with info as the info string. A
// newline is added before the closing fence when text does not end with one.
func Fence(info, text string) string {
	f := strings.Repeat("`", max(3, LongestRun(text, '`')+1))
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return f + info + "\n" + text + f
}

// CodeSpan renders s as one inline code span: in single backticks, or,
// when s holds backticks, in a longer run. It is padded with a space on
// each side when s starts or ends with a backtick, or starts and ends with
// a space (markdown strips one space from each end of such a span), so that
// the span shows s exactly. s must not be empty or hold line endings
// (markdown turns them into spaces).
func CodeSpan(s string) string {
	ticks := strings.Repeat("`", LongestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "" {
		s = " " + s + " "
	}
	return ticks + s + ticks
}
