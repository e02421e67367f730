package profile

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// claudeComments is a memory file of frontmatter and HTML comments in
// every place, and claudeSent what Claude Code 2.1.328 sent of it
// (captured through ctx observe --mock, after "Contents of PATH
// (DESCRIPTION):\n\n"): the frontmatter and the comments that are blocks
// of their own at the top level go, with the line breaks after them; a
// comment in a paragraph, a list, a quote or code stays.
const (
	claudeComments = "---\ntitle: x\n---\n# Rules\nRule one. <!-- inline comment --> still here.\n<!--\nMulti-line\ncomment @./hidden.md\n-->\n" +
		"Rule two.\n<!-- one line --> trailing text\n<!-- a --> <!-- b -->\n\n```\n<!-- in code -->\n```\n- item\n<!-- after list -->\n" +
		"  <!-- indented 2 -->\n    <!-- indented 4 -->\n\n> quote\n> <!-- in quote -->\n\nInline @./inl.md and <!-- @./incomment.md --> done.\n\n" +
		"@./imported.md\n@./crlf.md\n@./unclosed.md\n"
	claudeSent = "# Rules\nRule one. <!-- inline comment --> still here.\nRule two.\n trailing text\n```\n<!-- in code -->\n```\n- item\n" +
		"    <!-- indented 4 -->\n\n> quote\n> <!-- in quote -->\n\nInline @./inl.md and <!-- @./incomment.md --> done.\n\n" +
		"@./imported.md\n@./crlf.md\n@./unclosed.md"
)

// TestClaudeText: the text Claude Code keeps of a memory file, as it sent
// it (trimmed, as it trims every file).
func TestClaudeText(t *testing.T) {
	for _, tc := range []struct{ name, file, sent string }{
		{"frontmatter and comments", claudeComments, claudeSent},
		{"a comment and CRLF: every line break is LF", "\uFEFFCRLF one.\r\n<!-- c -->\r\nCRLF two.\r\nlone\rcr\r\n", "CRLF one.\nCRLF two.\nlone\ncr"},
		{"no comment: CRLF stays", "a\r\nb\r\n", "a\r\nb"},
		{"a comment left open stays", "Before.\n<!-- never closed\nAfter. @./after.md\n", "Before.\n<!-- never closed\nAfter. @./after.md"},
		{"an imported file", "Imported start.\n<!-- imported comment -->\nImported end.\n", "Imported start.\nImported end."},
		{"a rule's frontmatter and the blank line after it", "---\ndescription: a rule\n---\n\nRule file body. <!-- x -->\n<!-- rule comment -->\nEnd.\n",
			"Rule file body. <!-- x -->\nEnd."},
		{"a comment alone", "<!-- only a note -->\n", ""},
		{"no frontmatter without a second ---", "---\nnot closed\n", "---\nnot closed"},
		{"a BOM before the frontmatter", "\uFEFF---\na: b\n---\nBody.\n", "Body."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.TrimFunc(string(claudeText([]byte(tc.file))), jsTrimmed)
			if got != tc.sent {
				t.Errorf("claudeText:\n got  %q\nwant %q", got, tc.sent)
			}
		})
	}
}

// TestClaudeImportsNotInHTML: Claude Code follows no import of a comment,
// of the frontmatter, or after a comment left open (held against Claude
// Code 2.1.328 with the files of claudeComments).
func TestClaudeImportsNotInHTML(t *testing.T) {
	got := claudeImports([]byte(claudeComments))
	want := []string{"./inl.md", "./imported.md", "./crlf.md", "./unclosed.md"}
	check(t, "imports", got, want)
	check(t, "imports after an open comment", claudeImports([]byte("Before.\n<!-- never closed\nAfter. @./after.md\n")), nil)
	check(t, "imports of the frontmatter", claudeImports([]byte("---\nsee: @./a.md\n---\n@./b.md\n")), []string{"./b.md"})
	check(t, "after a comment in its block", claudeImports([]byte("<!-- c --> see @./x.md\n")), []string{"./x.md"})
	// the same, read without the parser
	check(t, "linear", claudeImports([]byte(strings.Repeat(">", parserMaxQuotes+1)+" x\n<!-- @./no.md -->\n@./yes.md\n")), []string{"./yes.md"})
}

// TestLoadClaudeStripped: a file with comments is loaded whole, its
// Loaded the bytes of the text Claude Code keeps; Kept returns that text;
// a file of a comment alone is blank.
func TestLoadClaudeStripped(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/HEAD":       "ref: refs/heads/main\n",
		"CLAUDE.md":       "# Rules\nRule one.\n<!--\nMaintainer notes\n-->\nRule two.\n",
		"sub/x":           "",
		"CLAUDE.local.md": "<!-- nothing for the agent -->\n",
	})
	c, err := Load(context.Background(), Claude, Options{Dir: dir, Home: t.TempDir(), ManagedDir: t.TempDir(), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 2 {
		t.Fatalf("files %+v", c.Files)
	}
	f := c.Files[0]
	file, kept := "# Rules\nRule one.\n<!--\nMaintainer notes\n-->\nRule two.\n", "# Rules\nRule one.\nRule two.\n"
	if f.Size != len(file) || f.Loaded != len(kept) || f.Stripped != f.Size-len(kept) || f.Cut() || f.Blank {
		t.Errorf("CLAUDE.md: size %d loaded %d stripped %d cut %v blank %v", f.Size, f.Loaded, f.Stripped, f.Cut(), f.Blank)
	}
	if got := string(c.Kept(f, []byte(file))); got != kept {
		t.Errorf("Kept = %q", got)
	}
	if local := c.Files[1]; !local.Blank || local.Loaded != 0 {
		t.Errorf("a file of a comment alone: %+v", local)
	}
	if n, _ := c.Loaded(); n != 1 {
		t.Errorf("%d files loaded, want 1", n)
	}
}

// TestCodexCutWithinACharacter: Codex's cut at 32 KiB that falls within a
// character keeps the bytes before it, and sends U+FFFD in its place
// (held against Codex 0.169.0: observe's fixture sizes.txtar).
func TestCodexCutWithinACharacter(t *testing.T) {
	line := "Une ligne de règles accentuées: é à ü ö — fin.\n"
	text := "#Règle\n" + strings.Repeat(line, 800)
	// the byte at the cut is the start of a two-byte character
	for text[32767]&0xC0 != 0xC0 {
		text = "x" + text
	}
	dir := tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": text})
	c, err := Load(context.Background(), Codex, Options{Dir: dir, Home: t.TempDir(), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	f := c.Files[0]
	if f.Path != filepath.Join(dir, "AGENTS.md") || f.Loaded != 32767 || !f.Cut() {
		t.Fatalf("AGENTS.md: %+v", f)
	}
	kept := c.Kept(f, []byte(text))
	if string(kept) != text[:32767]+"\uFFFD" || !utf8.Valid(kept) {
		t.Errorf("Kept ends %q, %d bytes", kept[len(kept)-8:], len(kept))
	}
	// at a boundary: no U+FFFD
	for _, tc := range []struct {
		b    string
		n, k int
		cut  bool
	}{
		{"abc", 2, 2, false}, {"aé", 2, 1, true}, {"a€b", 3, 1, true}, {"a€b", 4, 4, false}, {"a😀", 4, 1, true},
		{"a\xffb", 2, 2, false}, {"", 0, 0, false}, {"abc", 3, 3, false},
	} {
		if k, cut := runeCut([]byte(tc.b), tc.n); k != tc.k || cut != tc.cut {
			t.Errorf("runeCut(%q, %d) = %d %v, want %d %v", tc.b, tc.n, k, cut, tc.k, tc.cut)
		}
	}
}

// TestCommentBlocksLinear: a file too nested for the parser is read line
// by line, with the same result on the comments of claudeComments that
// are not in a list.
func TestCommentBlocksLinear(t *testing.T) {
	deep := strings.Repeat(">", parserMaxQuotes+1) + " deep\n\n"
	got := strings.TrimFunc(string(claudeText([]byte(deep+"A.\n<!-- x -->\nB.\n```\n<!-- kept -->\n```\n"))), jsTrimmed)
	if want := strings.TrimSpace(deep) + "\n\nA.\nB.\n```\n<!-- kept -->\n```"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
