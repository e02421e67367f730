package profile

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// What the agents keep of a file they load: the text they send, which is
// not always the file's bytes.
//
//   - Claude Code 2.1.328 reads each memory file (CLAUDE.md, its rules,
//     CLAUDE.local.md, the files they import) without its frontmatter,
//     and, when the rest holds "<!--", as Markdown: each HTML comment that
//     is a block of its own at the top level of the document is left out,
//     with the line breaks after it, and the line breaks of the whole file
//     become "\n" (Claude Code's Markdown lexer reads CRLF and CR as LF). A
//     comment within a paragraph, a list, a quote or code stays. Held
//     against the agent (observe's fixture comments.txtar); the code is
//     Pht, HZr and iht of its bundle.
//   - Codex reads the first project_doc_max_bytes of its project documents
//     as UTF-8, lossily: a cut that falls within a character keeps the
//     bytes before that character and sends U+FFFD in its place.
//   - The others keep the file as it is, up to their cuts.
//
// The agents also trim the white space at both ends of a file (Claude
// Code and Gemini CLI, a BOM with it); ctx does not count that as left out.

// Kept returns the text the agent of the chain sends of its file f, whose
// bytes are b: the file without what the agent leaves out (f.Stripped
// bytes: Claude Code's frontmatter and HTML comments), cut at f.Loaded,
// with the U+FFFD Codex writes where its cut falls within a character
// (f.Loaded counts the file's bytes kept, not the three of U+FFFD).
func (c *Chain) Kept(f File, b []byte) []byte {
	if c.Profile == Claude {
		return claudeText(b)
	}
	if f.Loaded < 0 || f.Loaded > len(b) {
		return b
	}
	out := b[:f.Loaded]
	if f.replaced {
		out = append(append([]byte(nil), out...), "\uFFFD"...)
	}
	return out
}

// Cut reports whether the agent cuts the file at its size limit (Codex's
// project_doc_max_bytes), rather than keeping all of it or leaving parts
// of it out.
func (f File) Cut() bool { return f.Loaded+f.Stripped < f.Size }

// AgentText returns the text the agent of profile name makes of a file
// whose bytes are b, before any cut: b without what the agent leaves out
// (Claude Code's frontmatter and HTML comments), or b itself.
func AgentText(name Name, b []byte) []byte {
	if name == Claude {
		return claudeText(b)
	}
	return b
}

// claudeFrontmatter is the frontmatter Claude Code takes from the start of
// a memory file (its /^---\s*\n([\s\S]*?)---\s*\n?/, on the text without
// a BOM; \s is JavaScript's white space).
var claudeFrontmatter = regexp.MustCompile(`^---` + jsSpace + `*\n(?s:.*?)---` + jsSpace + `*\n?`)

// jsSpace is JavaScript's \s.
const jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

// claudeText is the text Claude Code keeps of a memory file, before it
// trims it: without its frontmatter, and without the HTML comments that
// are blocks of their own, when it has any.
func claudeText(b []byte) []byte {
	body := b
	if t := bytes.TrimPrefix(b, []byte("\uFEFF")); bytes.Contains(t[min(3, len(t)):], []byte("---")) {
		if m := claudeFrontmatter.FindIndex(t); m != nil {
			body = t[m[1]:]
		}
	}
	if !bytes.Contains(body, []byte("<!--")) {
		return body
	}
	return stripCommentBlocks(lfOnly(body))
}

// lfOnly turns CRLF and CR into LF, as Claude Code's lexer does.
func lfOnly(b []byte) []byte {
	if !bytes.ContainsRune(b, '\r') {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}

// htmlComment is an HTML comment, as Claude Code removes it from a block
// (/<!--[\s\S]*?-->/g).
var htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)

// stripCommentBlocks leaves out of the Markdown b the HTML blocks at the
// top level of the document that start with a comment and hold its end
// ("-->"), with the line breaks after them: each comment of such a block
// goes, and the block too when nothing but white space is left of it.
func stripCommentBlocks(b []byte) []byte {
	var out []byte
	at := 0
	for _, r := range commentBlocks(b) {
		raw := b[r[0]:r[1]]
		if !bytes.Contains(raw, []byte("-->")) {
			continue // an unclosed comment runs to the end and stays
		}
		out = append(out, b[at:r[0]]...)
		if rest := htmlComment.ReplaceAll(raw, nil); strings.TrimFunc(string(rest), jsTrimmed) != "" {
			out = append(out, rest...)
		}
		at = r[1]
	}
	if at == 0 {
		return b
	}
	return append(out, b[at:]...)
}

// commentBlocks returns the byte ranges of the HTML blocks of b at the top
// level of the document that start with "<!--": from the start of their
// first line to the end of their last, and the line breaks after them.
func commentBlocks(b []byte) [][2]int {
	var out [][2]int
	extend := func(start, end int) {
		for start > 0 && b[start-1] != '\n' {
			start--
		}
		for end < len(b) && b[end] == '\n' {
			end++
		}
		out = append(out, [2]int{start, end})
	}
	if !withinParserBounds(b) {
		// a file the parser would take too long to read: its lines that
		// open a comment outside fenced code, with up to three spaces
		for _, r := range commentLines(b) {
			extend(r[0], r[1])
		}
		return out
	}
	doc := goldmark.DefaultParser().Parse(text.NewReader(b))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.HTMLBlock)
		if !ok || h.HTMLBlockType != ast.HTMLBlockType2 || h.Lines().Len() == 0 {
			continue
		}
		start, end := h.Lines().At(0).Start, h.Lines().At(h.Lines().Len()-1).Stop
		if h.HasClosure() {
			end = max(end, h.ClosureLine.Stop)
		}
		extend(start, min(end, len(b)))
	}
	return out
}

// commentLines is commentBlocks read line by line, in linear time: a line
// that opens a comment (up to three spaces first) outside fenced code, to
// the line that closes it.
func commentLines(b []byte) [][2]int {
	var out [][2]int
	fence := ""
	for at := 0; at < len(b); {
		end := bytes.IndexByte(b[at:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += at + 1
		}
		line := b[at:end]
		trimmed := bytes.TrimLeft(line, " ")
		lead := len(line) - len(trimmed)
		switch {
		case fence != "":
			if bytes.HasPrefix(bytes.TrimSpace(line), []byte(fence)) {
				fence = ""
			}
		case lead <= 3 && (bytes.HasPrefix(trimmed, []byte("```")) || bytes.HasPrefix(trimmed, []byte("~~~"))):
			fence = string(trimmed[:3])
		case lead <= 3 && bytes.HasPrefix(trimmed, []byte("<!--")):
			close := bytes.Index(b[at+lead+4:], []byte("-->"))
			if close < 0 {
				return append(out, [2]int{at, len(b)})
			}
			stop := at + lead + 4 + close
			if nl := bytes.IndexByte(b[stop:], '\n'); nl >= 0 {
				end = stop + nl + 1
			} else {
				end = len(b)
			}
			out = append(out, [2]int{at, end})
		}
		at = end
	}
	return out
}

// jsTrimmed reports whether JavaScript's trim() removes r: white space,
// line terminators and the BOM.
func jsTrimmed(r rune) bool {
	return r == '\uFEFF' || r != '\u0085' && unicode.IsSpace(r)
}

// runeCut returns where Codex's cut of b at n leaves its text: n, or the
// start of the character that n falls within, and true then (Codex reads
// the bytes up to n as UTF-8 lossily, which turns the incomplete character
// at their end into U+FFFD).
func runeCut(b []byte, n int) (int, bool) {
	if n <= 0 || n >= len(b) {
		return n, false
	}
	for j := n - 1; j >= 0 && j > n-utf8.UTFMax; j-- {
		if !utf8.RuneStart(b[j]) {
			continue
		}
		if utf8.FullRune(b[j:n]) {
			return n, false
		}
		return j, true
	}
	return n, false
}
