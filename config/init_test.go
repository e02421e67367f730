package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/profile"
)

// Every template decodes strictly and sets what it says.
func TestTemplates(t *testing.T) {
	for _, name := range append(profile.Names(), "") {
		src := Template(name)
		c, err := Decode("ctx.toml", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v\n%s", name, err, src)
		}
		// one of agent and profile: the agent defaults to the profile, so
		// that --profile OTHER does not warn of a mismatch
		if c.Agent != nil {
			t.Errorf("%q: agent %q written beside the profile", name, *c.Agent)
		}
		if (name == "" || name == profile.Generic) != (c.Profile == nil) {
			t.Errorf("%q: profile %v", name, c.Profile)
		}
		if c.Audit.LayerTokens == nil || len(c.Budgets) != 1 {
			t.Errorf("%q: audit %+v budgets %+v", name, c.Audit, c.Budgets)
		}
	}
	if l, _, _ := thresholdsFor(profile.Claude); l != 10000 {
		t.Errorf("claude layer %d", l)
	}
}

// The template fits the files measured: no budget or threshold below what
// the largest file already is.
func TestTemplateFits(t *testing.T) {
	for _, tc := range []struct {
		fit                 Fit
		lines, layer, total int
	}{
		{Fit{}, 200, 10000, 20000},
		{Fit{MaxLines: 150, MaxTokens: 2170, TotalTokens: 2170, Name: "AGENTS.md"}, 200, 10000, 20000},
		{Fit{MaxLines: 412, MaxTokens: 12000, TotalTokens: 30000, Name: "AGENTS.md"}, 500, 13200, 33000},
	} {
		c, err := Decode("ctx.toml", []byte(TemplateFor(profile.Claude, tc.fit)))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Budgets[0].MaxLines.Int(-1); got != tc.lines || got < tc.fit.MaxLines {
			t.Errorf("%+v: max_lines %d, want %d", tc.fit, got, tc.lines)
		}
		if got := c.Audit.LayerTokens.Int(-1); got != tc.layer {
			t.Errorf("%+v: layer_tokens %d, want %d", tc.fit, got, tc.layer)
		}
		if got := c.Audit.TotalTokens.Int(-1); got != tc.total {
			t.Errorf("%+v: total_tokens %d, want %d", tc.fit, got, tc.total)
		}
	}
}

func TestWriteTemplateNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	p, err := WriteTemplate(dir, profile.Codex)
	if err != nil || p != filepath.Join(dir, FileName) {
		t.Fatalf("%s %v", p, err)
	}
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), `profile = "codex"`) {
		t.Errorf("written %s", b)
	}
	os.WriteFile(p, []byte("agent = \"mine\"\n"), 0o644)
	if _, err := WriteTemplate(dir, profile.Claude); !errors.Is(err, ErrExists) {
		t.Errorf("overwrote: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "agent = \"mine\"\n" {
		t.Errorf("changed: %s", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestInitProfile(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  profile.Name
		found int
	}{
		{[]string{"AGENTS.md"}, profile.Generic, 0},
		{[]string{"CLAUDE.md", "AGENTS.md"}, profile.Claude, 1},
		{[]string{"CLAUDE.md", "GEMINI.md"}, profile.Generic, 2},
	} {
		dir := t.TempDir()
		for _, f := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		name, found := InitProfile(dir)
		if name != tc.want || len(found) != tc.found {
			t.Errorf("%v: %s, %v; want %s and %d found", tc.files, name, found, tc.want, tc.found)
		}
	}
}
