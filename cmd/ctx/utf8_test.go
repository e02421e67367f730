package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// A file name that is not UTF-8 (Linux allows any byte but "/" and NUL)
// is shown with its invalid bytes as \xHH in every text that ctx prints
// about it: the audit in each format, ctx stats in each format, and the
// warnings on stderr. What is printed is valid UTF-8, so a terminal, a CI
// log or a JSON reader never receives a broken byte, and two names that
// differ only in their invalid bytes stay apart in text. JSON strings hold
// the U+FFFD replacement character instead (encoding/json's rule).
func TestInvalidUTF8NamesEscaped(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("AGENTS_GLOBAL_MD", "")
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", name, err)
		}
	}
	write("bad\xff.py", "print('bad')\n")
	write("ok.py", "print('ok')\n")
	write("AGENTS.md", "# Agents\n")
	// a budget of one token gives every file a finding, so that the
	// github and sarif formats, which list findings only, name it
	write("ctx.toml", "[files]\npaths = [\"*.py\"]\nmax_file_tokens = 1\n")
	for _, args := range [][]string{
		{"audit"}, {"audit", "--format", "markdown"}, {"audit", "--format", "github"}, {"audit", "--details"},
		{"audit", "--format", "sarif"}, {"audit", "--format", "json"},
		{"stats"}, {"stats", "--format", "markdown"}, {"stats", "--tree"}, {"stats", "--top", "5"},
		{"stats", "--format", "json"},
		{"aggregate", "--stdout"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(append([]string{"ctx"}, args...), "-C", dir), strings.NewReader(""), &stdout, &stderr)
			if code > 1 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			out := stdout.String()
			if args[0] == "aggregate" {
				out = "" // the document is the files' own text, for the model; its headings are held below
			}
			for what, text := range map[string]string{"stdout": out, "stderr": stderr.String()} {
				if !utf8.ValidString(text) {
					i := strings.IndexFunc(text, func(r rune) bool { return r == utf8.RuneError })
					t.Errorf("%s is not valid UTF-8 near %q", what, strings.ToValidUTF8(text[max(0, i-40):min(len(text), i+20)], "?"))
				}
			}
			switch last := args[len(args)-1]; {
			case args[0] == "aggregate":
			case last == "json" && args[0] == "stats":
				// the path as it is, which JSON can only hold as UTF-8
				if !strings.Contains(out, `"path": "bad\ufffd.py"`) {
					t.Errorf("the JSON does not hold bad\\ufffd.py:\n%s", out)
				}
			case last == "json" || last == "sarif":
				// the audit's paths are shown for people, escaped
				if !strings.Contains(out, `bad\\xff.py`) {
					t.Errorf("the JSON does not hold bad\\\\xff.py:\n%s", out)
				}
			case !strings.Contains(out, `bad\xff.py`):
				t.Errorf("stdout does not show bad\\xff.py:\n%s", out)
			}
		})
	}
	// the document's heading and a warning on stderr name the file escaped
	var stdout, stderr bytes.Buffer
	write("bad\xfe.py", "\x00\x01binary")
	write("ctx.toml", "[files]\npaths = [\"*.py\"]\n")
	run(context.Background(), []string{"ctx", "aggregate", "--stdout", "-C", dir}, strings.NewReader(""), &stdout, &stderr)
	if !strings.Contains(stdout.String(), "### `bad\\xff.py`") {
		t.Errorf("the document's heading does not show bad\\xff.py:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), `bad\xfe.py: binary file`) || !utf8.ValidString(stderr.String()) {
		t.Errorf("stderr does not name bad\\xfe.py escaped:\n%q", stderr.String())
	}
}
