package report

import (
	"strings"
)

// section is the text of a markdown document from one heading to the
// next, heading line included; the text before the first heading is a
// section of level 0.
type section struct {
	Level int
	Title string
	Line  int // 1-based line of the heading
	Text  string
}

// splitSections splits text at its ATX headings (up to three spaces, one
// to six #, then a space, a tab or the end of the line), leaving out the
// lines inside fenced code blocks (``` or ~~~, closed by a fence of the
// same character at least as long). The sections' texts joined are text;
// the part before the first heading is left out when it is blank.
func splitSections(text string) []section {
	var out []section
	cur := section{Line: 1}
	start := 0
	fence := ""
	line := 0
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		line++
		l := strings.TrimRight(text[off:next], "\r\n")
		if fence != "" {
			if closesFence(l, fence) {
				fence = ""
			}
		} else if f := opensFence(l); f != "" {
			fence = f
		} else if level, title, ok := atxHeading(l); ok {
			cur.Text = text[start:off]
			if cur.Level > 0 || strings.TrimSpace(cur.Text) != "" {
				out = append(out, cur)
			}
			cur, start = section{Level: level, Title: title, Line: line}, off
		}
		off = next
	}
	cur.Text = text[start:]
	if cur.Level > 0 || strings.TrimSpace(cur.Text) != "" {
		out = append(out, cur)
	}
	return out
}

// indent strips up to three leading spaces; ok is false with four or more
// (an indented code block).
func indent(l string) (string, bool) {
	for i := 0; i < 4; i++ {
		if !strings.HasPrefix(l, " ") {
			return l, true
		}
		l = l[1:]
	}
	return l, false
}

// atxHeading reads l as an ATX heading: its level and its title without
// the closing #s.
func atxHeading(l string) (int, string, bool) {
	l, ok := indent(l)
	if !ok {
		return 0, "", false
	}
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(l) && l[n] != ' ' && l[n] != '\t') {
		return 0, "", false
	}
	title := strings.TrimSpace(l[n:])
	// a closing sequence: #s preceded by a space (or the whole title)
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		title = strings.TrimSpace(t)
	}
	return n, title, true
}

// opensFence returns the fence that l opens ("```", "~~~~", ...), or "".
func opensFence(l string) string {
	l, ok := indent(l)
	if !ok || len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return ""
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	if n < 3 || (l[0] == '`' && strings.Contains(l[n:], "`")) {
		return ""
	}
	return l[:n]
}

// closesFence reports whether l closes fence: the same character, at
// least as many, nothing else but spaces.
func closesFence(l, fence string) bool {
	l, ok := indent(l)
	if !ok {
		return false
	}
	l = strings.TrimRight(l, " \t")
	return len(l) >= len(fence) && strings.Trim(l, fence[:1]) == ""
}
