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

// hostile are the terminal controls a repository could plant in a name:
// OSC 0 (the window title), OSC 52 (the clipboard), CSI 2J (clear the
// screen), a C1 CSI, a bell and a bidi override.
const hostile = "\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\x1b[2J\u009b31m\u202e"

// rawControl returns the first terminal control in b that is not a
// newline or tab, as text for the failure message, or "".
func rawControl(b []byte) string {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e {
			return strings.ToValidUTF8(string(b[max(0, i-40):min(len(b), i+20)]), "?")
		}
		i += n
	}
	return ""
}

// Nothing a repository controls reaches the terminal unescaped: a
// project whose ctx.toml, file names and sources hold terminal controls
// is discovered, audited in every format, measured, verified and diffed,
// and no raw control reaches stdout or stderr. (ctx render and ctx
// aggregate --stdout print the context itself, the files' own bytes, to
// the model; only their stderr is held to this.)
func TestNoTerminalControlsFromTheRepository(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	toml := func(s string) string {
		return strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`, "\u009b", `\u009b`, "\u202e", `\u202e`).Replace(s)
	}
	write("AGENTS.md", "# Agents\n\nBe careful.\n")
	write("src/ok.py", "print('ok')\n")
	write("src/evil"+hostile+".py", "print('evil')\n")
	write("CLAUDE.md", "@evil"+hostile+".md\n")
	write("ctx.toml", `[[sources]]
id = "note"
kind = "`+toml("note"+hostile)+`"
text = "a note"
[[sources]]
id = "extra"
kind = "project"
path = "`+toml("missing"+hostile+".md")+`"
[files]
paths = ["src/*.py", "`+toml("gone"+hostile+".py")+`"]
`)
	manifest := filepath.Join(t.TempDir(), "m.json")
	runs := [][]string{
		{"discover"},
		{"audit"}, {"audit", "--format", "markdown"}, {"audit", "--format", "github"}, {"audit", "--format", "sarif"},
		{"audit", "--format", "json"}, {"audit", "--profile", "claude"}, {"audit", "--profile", "all"}, {"audit", "--details"},
		{"manifest", "-o", manifest}, {"verify", manifest},
		{"stats"}, {"stats", "--format", "markdown"}, {"stats", "--format", "json"},
		{"discover", "--profile", "claude"},
	}
	for _, args := range runs {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(append([]string{"ctx"}, args...), "-C", dir), strings.NewReader(""), &stdout, &stderr)
			if code > 1 {
				t.Errorf("exit %d: %q", code, stderr.String())
			}
			if c := rawControl(stdout.Bytes()); c != "" {
				t.Errorf("stdout has a raw control: %q", c)
			}
			if c := rawControl(stderr.Bytes()); c != "" {
				t.Errorf("stderr has a raw control: %q", c)
			}
		})
	}
	// a stored manifest is input too: its agent, estimator and rows
	m, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(filepath.Dir(manifest), "tampered.json")
	bad := strings.Replace(string(m), `"agent": "generic"`, `"agent": "`+toml("claude"+hostile)+`"`, 1)
	if bad == string(m) {
		t.Fatalf("no agent to tamper with in %s", m)
	}
	if err := os.WriteFile(tampered, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"diff", manifest, manifest}, {"diff", manifest, tampered},
		{"audit", "--manifest", tampered}, {"audit", "--manifest", tampered, "--format", "markdown"},
		{"audit", "--manifest", tampered, "--format", "github"}, {"audit", "--manifest", tampered, "--format", "json"},
		{"render", "--manifest", tampered}, {"verify", tampered}} {
		var stdout, stderr bytes.Buffer
		if args[0] != "diff" {
			args = append(args, "-C", dir)
		}
		code := run(context.Background(), append([]string{"ctx"}, args...), strings.NewReader(""), &stdout, &stderr)
		if code > 1 && args[0] != "verify" { // verify refuses the agent, saying so
			t.Errorf("%s: exit %d: %q", args, code, stderr.String())
		}
		if c := rawControl(append(stdout.Bytes(), stderr.Bytes()...)); c != "" {
			t.Errorf("%s: a raw control: %q", args, c)
		}
	}
	for _, args := range [][]string{{"render"}, {"aggregate", "--stdout"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append(append([]string{"ctx"}, args...), "-C", dir), strings.NewReader(""), &stdout, &stderr); code > 1 {
			t.Errorf("%s: exit %d: %q", args, code, stderr.String())
		}
		if c := rawControl(stderr.Bytes()); c != "" {
			t.Errorf("%s: stderr has a raw control: %q", args, c)
		}
	}
	// an error that quotes a repository's string: the history file's name
	write("ctx.toml", `[history]
history = "`+toml("h"+hostile+".json")+`"
`)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"ctx", "render", "-C", dir}, strings.NewReader(""), &stdout, &stderr); code != 2 {
		t.Errorf("render with a missing history file: exit %d, %q", code, stderr.String())
	}
	if c := rawControl(stderr.Bytes()); c != "" {
		t.Errorf("the error has a raw control: %q", c)
	}
}
