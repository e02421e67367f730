package profile

import (
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes fn allocates on the Go heap.
func allocated(fn func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	fn()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// linearAllocs fails the test unless input(2k) allocates at most about
// twice what input(k) does in fn.
func linearAllocs(t *testing.T, name string, k int, input func(k int) string, fn func([]byte)) {
	t.Helper()
	small, large := []byte(input(k)), []byte(input(2*k))
	a1 := allocated(func() { fn(small) })
	a2 := allocated(func() { fn(large) })
	t.Logf("%s: %d → %d bytes in, %d → %d KiB allocated (×%.2f)", name, len(small), len(large), a1>>10, a2>>10, float64(a2)/float64(a1))
	if float64(a2) > 2.6*float64(a1) {
		t.Errorf("%s: twice the input allocated %.2f× the bytes (%d → %d)", name, float64(a2)/float64(a1), a1, a2)
	}
}

// hostile are memory files that Markdown parsers read in time that grows
// faster than the text, each of about k units. ("dashes" of 120 KB, lists
// nested 60,000 deep on one line, took goldmark 40 s.)
var hostile = map[string]func(k int) string{
	"quotes": func(k int) string { return strings.Repeat(">", 3*k) + " @x.md\n" },
	"dashes": func(k int) string { return strings.Repeat("- ", 3*k) + "@x.md\n" },
	"links":  func(k int) string { return strings.Repeat("[a](", k) + "\n" },
	"nested": func(k int) string {
		var b strings.Builder
		for i := 0; i < k/30; i++ {
			b.WriteString(strings.Repeat("  ", i%600) + "- item @x.md\n")
		}
		return b.String()
	},
	"big":      func(k int) string { return strings.Repeat("Some prose with `code` and @docs/x.md in it.\n", k) },
	"backtick": func(k int) string { return strings.Repeat("`", 15*k) },
}

// Hostile memory files never reach the Markdown parser, and the line
// reader that reads them instead grows linearly: twice the file, about
// twice the allocations.
func TestClaudeImportsHostileLinear(t *testing.T) {
	for name, input := range hostile {
		if withinParserBounds([]byte(input(20000))) {
			t.Errorf("%s: within the parser's bounds", name)
		}
		linearAllocs(t, name, 20000, input, func(b []byte) { claudeImports(b) })
	}
}

// Within its bounds the parser grows linearly too: files at the edge of
// each bound, at two sizes.
func TestClaudeImportsParserLinear(t *testing.T) {
	edge := map[string]func(k int) string{
		"quotes":   func(k int) string { return strings.Repeat(strings.Repeat(">", parserMaxQuotes)+" q @x.md\n", k) },
		"indent":   func(k int) string { return strings.Repeat(strings.Repeat(" ", parserMaxIndent-2)+"- i @x.md\n", k) },
		"lists":    func(k int) string { return strings.Repeat(strings.Repeat("- ", parserMaxQuotes)+"l @x.md\n", k) },
		"brackets": func(k int) string { return strings.Repeat(strings.Repeat("[a](", parserMaxBracket)+"\n", k) },
		"prose":    func(k int) string { return strings.Repeat("Some prose with `code` and @docs/x.md in it.\n", k) },
	}
	for name, input := range edge {
		k := parserMaxBytes / 600
		if b := []byte(input(2 * k)); !withinParserBounds(b) {
			t.Fatalf("%s: %d bytes outside the parser's bounds", name, len(b))
		}
		linearAllocs(t, name, k, input, func(b []byte) { claudeImports(b) })
	}
}

func TestWithoutCodeLinear(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // imports found
	}{
		{"see @a.md\n", []string{"a.md"}},
		{"```\n@in-fence.md\n```\n@after.md\n", []string{"after.md"}},
		{"~~~~md\n@x.md\n~~~\n@still-in.md\n~~~~\n@out.md\n", []string{"out.md"}},
		{"> ```\n> @quoted-fence.md\n> ```\n> @quoted.md\n", []string{"quoted.md"}},
		{"a `code @no.md` b @yes.md\n", []string{"yes.md"}},
		{"a `span that\nruns @no.md over` b @yes.md\n", []string{"yes.md"}},
		{"a `unclosed @yes.md\n\nnew `para` @also.md\n", []string{"yes.md", "also.md"}},
		{"``a ` @no.md``\n", nil},
	} {
		var got []string
		for _, line := range strings.Split(string(withoutCodeLinear([]byte(c.in))), "\n") {
			for _, m := range claudeRef.FindAllStringSubmatch(line, -1) {
				got = append(got, m[1])
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: imports %q, want %q", c.in, got, c.want)
		}
		if len(withoutCodeLinear([]byte(c.in))) != len(c.in) {
			t.Errorf("%q: the length changed", c.in)
		}
	}
}

// Within the bounds the parser reads the file; a hostile line sends the
// whole file to the line reader.
func TestParserBounds(t *testing.T) {
	if !withinParserBounds([]byte("# Rules\n\n> quoted\n  - nested\n")) {
		t.Error("an ordinary file is out of bounds")
	}
	if !withinParserBounds([]byte("- - -\n1. a\n* b\n-x- y\n")) {
		t.Error("a thematic break and a list are out of bounds")
	}
	for _, s := range []string{strings.Repeat(">", 40), strings.Repeat(" ", 200) + "x", strings.Repeat("[", 100),
		strings.Repeat("- ", 40) + "x", strings.Repeat("1. ", 40) + "x", strings.Repeat("> * ", 20) + "x",
		strings.Repeat("a\n", parserMaxBytes)} {
		if withinParserBounds([]byte(s)) {
			t.Errorf("%.20q… is within bounds", s)
		}
	}
}

// An agent's own configuration nested deeper than ctx decodes, or with
// more tables than its size can hold, is skipped as a malformed one is
// (the agent would not start with it): decoding it would cost a map, or
// a node of the parser, per level.
func TestAgentConfigBounded(t *testing.T) {
	t.Parallel()
	deepKey := strings.Repeat("a.", 300) + "z = 1\n"
	deepJSON := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	dir := tree(t, map[string]string{
		"codex/config.toml":            "project_doc_max_bytes = 10\n" + deepKey,
		"gemini/.gemini/settings.json": `{"context": {"fileName": "NOTES.md"}, "x": ` + deepJSON + `}`,
		"claude/.claude.json":          `{"projects": {"/p": {"hasClaudeMdExternalIncludesApproved": true}}, "x": ` + deepJSON + `}`,
	})
	o := Options{Home: filepath.Join(dir, "none"), Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return filepath.Join(dir, "codex")
		}
		return ""
	}}
	if read := agentConfig(Codex, &o, ""); len(read) != 0 || o.CodexMaxBytes != 0 {
		t.Errorf("codex: read %v, max bytes %d", read, o.CodexMaxBytes)
	}
	o = Options{Home: filepath.Join(dir, "gemini"), Getenv: noEnv}
	if read := agentConfig(Gemini, &o, ""); len(read) != 0 || o.GeminiFileNames != nil {
		t.Errorf("gemini: read %v, names %v", read, o.GeminiFileNames)
	}
	o = Options{Home: filepath.Join(dir, "claude"), Getenv: noEnv}
	if read := agentConfig(Claude, &o, "/p"); len(read) != 0 || o.ClaudeExternalImports != nil {
		t.Errorf("claude: read %v, approved %v", read, o.ClaudeExternalImports)
	}
}
