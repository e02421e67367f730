package profile

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// Hostile memory files are read in about linear time: the Markdown parser
// only within its bounds, the line reader beyond them.
func TestClaudeImportsHostileLinear(t *testing.T) {
	var nested strings.Builder
	for i := 0; i < 3000; i++ {
		nested.WriteString(strings.Repeat("  ", i%600) + "- item @x.md\n")
	}
	for name, s := range map[string]string{
		"quotes":   strings.Repeat(">", 300000) + " @x.md\n",
		"dashes":   strings.Repeat("- ", 300000) + "@x.md\n",
		"links":    strings.Repeat("[a](", 100000) + "\n",
		"nested":   nested.String(),
		"big":      strings.Repeat("Some prose with `code` and @docs/x.md in it.\n", 100000),
		"backtick": strings.Repeat("`", 300000),
	} {
		start := time.Now()
		claudeImports([]byte(s))
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("%s: %d bytes took %v", name, len(s), took)
		}
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
	for _, s := range []string{strings.Repeat(">", 40), strings.Repeat(" ", 200) + "x", strings.Repeat("[", 100),
		strings.Repeat("a\n", parserMaxBytes)} {
		if withinParserBounds([]byte(s)) {
			t.Errorf("%.20q… is within bounds", s)
		}
	}
}
