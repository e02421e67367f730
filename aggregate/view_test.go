package aggregate

import (
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/slice"
)

// An orphaned slice shows its last known range and a marker, never the
// lines it had.
func TestRenderOrphanedSlice(t *testing.T) {
	orig := "a()\ndef parse(tokens):\n    return tokens\nb()\n"
	s, err := slice.New([]byte(orig), 2, 3, "parser", "hot path")
	if err != nil {
		t.Fatal(err)
	}
	for _, cur := range []string{"a()\nb()\n", "a()\ndef other():\n    return 42\nb()\n", ""} {
		r := slice.Resolve([]byte(cur), s)
		if !r.Orphaned() {
			t.Fatalf("%q: got %s %d-%d, want orphaned", cur, r.Resolution, r.NewStart, r.NewEnd)
		}
		out := renderSlice(r)
		if !strings.HasPrefix(out, "[Slice: parser] (hot path)\nLines 2-3: ORPHANED (not shown: ") || strings.Contains(out, "def parse") {
			t.Errorf("%q: orphaned render = %q", cur, out)
		}
	}
}
