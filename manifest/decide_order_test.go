package manifest_test

import (
	"reflect"
	"testing"

	"github.com/ctxaudit/ctx/discover"
)

// TestDuplicateOrder covers which earlier row a duplicate names when
// several match: the first with the same path, else the first with the
// same content, among every earlier row (equivalent_to), the natives in
// their order (native_autoload) or the accepted rows (duplicate_of).
func TestDuplicateOrder(t *testing.T) {
	t.Parallel()
	native := func(id, p string) discover.Extra {
		return discover.Extra{ID: id, Kind: "native", Path: str(p), Delivery: "native", NativeEvidence: "test"}
	}
	nativeText := func(id, s string) discover.Extra {
		return discover.Extra{ID: id, Kind: "native", Text: str(s), Delivery: "native"}
	}
	excluded := func(e discover.Extra) discover.Extra { e.Audience = []string{"codex"}; return e }
	tests := []struct {
		name   string
		files  map[string]string
		extras []discover.Extra
		want   []decision
	}{
		{
			name:   "the first of three equal texts, not the nearest",
			extras: []discover.Extra{text("a", "n", "x"), text("b", "n", "x"), text("c", "n", "x")},
			want: []decision{
				inc("a"),
				{ID: "b", Status: "available", Reason: "same_content", Dup: "a", Equiv: "a", How: "same_content", Audience: true},
				{ID: "c", Status: "available", Reason: "same_content", Dup: "a", Equiv: "a", How: "same_content", Audience: true},
			},
		},
		{
			name:   "a later row with the same path beats an earlier one with the same content",
			files:  map[string]string{"p.md": "x", "q.md": "x"},
			extras: []discover.Extra{text("t", "n", "x"), file("q", "n", "q.md"), file("p", "n", "p.md"), file("p2", "n", "./p.md")},
			want: []decision{
				inc("t"),
				{ID: "q", Status: "available", Reason: "same_content", Dup: "t", Equiv: "t", How: "same_content", Audience: true},
				{ID: "p", Status: "available", Reason: "same_content", Dup: "t", Equiv: "t", How: "same_content", Audience: true},
				{ID: "p2", Status: "available", Reason: "same_content", Dup: "t", Equiv: "p", How: "same_path", Audience: true},
			},
		},
		{
			name:   "duplicate_of skips an excluded first copy; equivalent_to does not",
			extras: []discover.Extra{excluded(text("a", "n", "x")), text("b", "n", "x"), text("c", "n", "x")},
			want: []decision{
				{ID: "a", Status: "available", Reason: "audience_excluded"},
				{ID: "b", Status: "available", Included: true, Reason: "included", Equiv: "a", How: "same_content", Audience: true},
				{ID: "c", Status: "available", Reason: "same_content", Dup: "b", Equiv: "a", How: "same_content", Audience: true},
			},
		},
		{
			name:   "the first of two natives with the same content",
			extras: []discover.Extra{text("c", "n", "x"), nativeText("n1", "x"), nativeText("n2", "x")},
			want: []decision{
				{ID: "c", Status: "available", Reason: "native_autoload", Dup: "n1", Audience: true},
				{ID: "n1", Status: "available", Reason: "native_autoload", Equiv: "c", How: "same_content", Audience: true},
				{ID: "n2", Status: "available", Reason: "native_autoload", Equiv: "c", How: "same_content", Audience: true},
			},
		},
		{
			name:  "a native with the same path anywhere beats the first native with the same content",
			files: map[string]string{"p.md": "x"},
			extras: []discover.Extra{nativeText("n1", "x"), file("c", "n", "p.md"), nativeText("n2", "x"), native("n3", "p.md"),
				native("n4", "./p.md")},
			want: []decision{
				{ID: "n1", Status: "available", Reason: "native_autoload", Audience: true},
				{ID: "c", Status: "available", Reason: "native_autoload", Dup: "n3", Equiv: "n1", How: "same_content", Audience: true},
				{ID: "n2", Status: "available", Reason: "native_autoload", Equiv: "n1", How: "same_content", Audience: true},
				{ID: "n3", Status: "available", Reason: "native_autoload", Equiv: "c", How: "same_path", Audience: true},
				{ID: "n4", Status: "available", Reason: "native_autoload", Equiv: "c", How: "same_path", Audience: true},
			},
		},
		{
			name:   "an excluded native suppresses nothing, a later one does",
			extras: []discover.Extra{excluded(nativeText("n1", "x")), text("c", "n", "x"), nativeText("n2", "x")},
			want: []decision{
				{ID: "n1", Status: "available", Reason: "audience_excluded"},
				{ID: "c", Status: "available", Reason: "native_autoload", Dup: "n2", Equiv: "n1", How: "same_content", Audience: true},
				{ID: "n2", Status: "available", Reason: "native_autoload", Equiv: "n1", How: "same_content", Audience: true},
			},
		},
		{
			name:  "empty texts and files are equal to each other, not to a missing file",
			files: map[string]string{"e.md": ""},
			extras: []discover.Extra{file("m", "n", "gone.md"), file("e", "n", "e.md"), text("t", "n", ""),
				file("m2", "n", "gone.md")},
			want: []decision{
				{ID: "m", Status: "missing", Reason: "missing", Audience: true},
				{ID: "e", Status: "empty", Reason: "empty", Audience: true},
				{ID: "t", Status: "empty", Reason: "empty", Equiv: "e", How: "same_content", Audience: true},
				{ID: "m2", Status: "missing", Reason: "missing", Equiv: "m", How: "same_path", Audience: true},
			},
		},
		{
			name:   "a prefix is not the same content",
			extras: []discover.Extra{text("a", "n", "x"), text("b", "n", "xx"), text("c", "n", "xx")},
			want: []decision{
				inc("a"), inc("b"),
				{ID: "c", Status: "available", Reason: "same_content", Dup: "b", Equiv: "b", How: "same_content", Audience: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := project(t, tt.files)
			m := build(t, opts(dir, tt.extras...))
			if got := decisions(m); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("decisions =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}
