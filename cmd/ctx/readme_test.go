package main

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The walkthrough of README.md is run by testdata/script/readme.txtar.
const (
	readmeFile   = "../../README.md"
	readmeScript = "testdata/script/readme.txtar"
	// readmeProject is the directory of the script that holds the README's
	// example project
	readmeProject = "todo/"
)

// readmeFileMark names the file that the fenced block after it shows.
var readmeFileMark = regexp.MustCompile(`^<!-- file: (\S+) -->$`)

// readmeBlock is a fenced code block of README.md.
type readmeBlock struct {
	line int    // of the opening fence, 1-based
	lang string // the info string
	file string // from a file mark on the line before, else ""
	text string
}

func readmeBlocks(t *testing.T, text string) []readmeBlock {
	t.Helper()
	var blocks []readmeBlock
	var cur *readmeBlock
	var mark string
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur != nil {
			if strings.HasPrefix(line, "```") {
				blocks = append(blocks, *cur)
				cur = nil
			} else {
				cur.text += line + "\n"
			}
			continue
		}
		if lang, ok := strings.CutPrefix(line, "```"); ok {
			cur = &readmeBlock{line: n, lang: strings.TrimSpace(lang), file: mark}
			mark = ""
			continue
		}
		if m := readmeFileMark.FindStringSubmatch(line); m != nil {
			mark = m[1]
		} else if strings.TrimSpace(line) != "" {
			mark = ""
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a code block that is never closed", readmeFile, cur.line)
	}
	return blocks
}

// readmeCommand returns the ctx command of a line of a shell block, without
// a prompt or a trailing comment; "" for another line.
func readmeCommand(line string) string {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
	if i := strings.Index(line, " #"); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	if line != "ctx" && !strings.HasPrefix(line, "ctx ") {
		return ""
	}
	return strings.Join(strings.Fields(line), " ")
}

// TestReadme keeps README.md and its test together: every ctx command of
// its shell blocks is run by readme.txtar (as `exec ctx ...` or
// `! exec ctx ...`), and every file it shows (a block after a
// `<!-- file: NAME -->` mark) is the script's todo/NAME, byte for byte, and
// the other way round. A command or a file edited in one and not in the
// other fails here; what the commands print is checked by the script.
func TestReadme(t *testing.T) {
	data, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile(readmeScript)
	if err != nil {
		t.Fatal(err)
	}
	run := map[string]bool{}
	exec := regexp.MustCompile(`^(?:!\s+)?exec\s+(ctx(?:\s.*)?)$`)
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if m := exec.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			run[strings.Join(strings.Fields(m[1]), " ")] = true
		}
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, readmeProject); ok {
			files[name] = string(f.Data)
		}
	}

	commands, shown := 0, map[string]bool{}
	for _, b := range readmeBlocks(t, string(data)) {
		if b.file != "" {
			shown[b.file] = true
			want, ok := files[b.file]
			switch {
			case !ok:
				t.Errorf("%s:%d shows %s, which %s does not have as %s%s", readmeFile, b.line, b.file, readmeScript, readmeProject, b.file)
			case want != b.text:
				t.Errorf("%s:%d: %s differs from %s%s in %s:\nREADME:\n%s\nscript:\n%s", readmeFile, b.line, b.file, readmeProject, b.file, readmeScript, b.text, want)
			}
			continue
		}
		if b.lang != "sh" {
			continue
		}
		for i, line := range strings.Split(b.text, "\n") {
			c := readmeCommand(line)
			if c == "" {
				continue
			}
			commands++
			if !run[c] {
				t.Errorf("%s:%d: %q is not run by %s (add `exec %s` with its checks)", readmeFile, b.line+1+i, c, readmeScript, c)
			}
		}
	}
	for name := range files {
		if !shown[name] {
			t.Errorf("%s has %s%s, which %s does not show (<!-- file: %s --> before its block)", readmeScript, readmeProject, name, readmeFile, name)
		}
	}
	// the check can fail: the walkthrough has commands and files
	if commands < 10 || len(shown) < 4 {
		t.Errorf("found %d ctx commands and %d files in %s: is the parsing broken?", commands, len(shown), readmeFile)
	}
}

func TestReadmeCommand(t *testing.T) {
	for line, want := range map[string]string{
		"ctx audit":                      "ctx audit",
		"$ ctx audit  --check   # fails": "ctx audit --check",
		"  ctx version":                  "ctx version",
		"go install ./cmd/ctx  # ctx":    "",
		"ctxt audit":                     "",
		"# ctx audit":                    "",
	} {
		if got := readmeCommand(line); got != want {
			t.Errorf("readmeCommand(%q) = %q, want %q", line, got, want)
		}
	}
}
