package suggest

import (
	"reflect"
	"testing"
)

func TestNames(t *testing.T) {
	names := []string{"format", "stdout", "max-tokens", "max-file-tokens", "C", "project-dir", "preset", "focus", "view"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"formt", []string{"format"}},
		{"Format", []string{"format"}},
		{"fromat", []string{"format"}},
		{"max-tokns", []string{"max-tokens"}},
		{"max", []string{"max-tokens", "max-file-tokens"}},
		{"pre", []string{"preset"}},
		{"bogus", nil}, // focus is two edits away: too far for five letters
		{"viwe", []string{"view"}},
		{"vue", nil},
		{"mx-file-tokns", []string{"max-file-tokens"}},
		{"c", nil},
		{"x", nil},
		{"std", []string{"stdout"}},
	} {
		if got := Names(tc.typed, names); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Names(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
	cmds := []string{"discover", "manifest", "render", "audit", "schema", "version", "aggregate", "slice", "stats", "messages", "init", "verify", "diff", "help", "h"}
	for typed, want := range map[string][]string{
		"audt": {"audit"}, "agg": {"aggregate"}, "stat": {"stats"}, "dif": {"diff"}, "nosuch": nil, "ver": {"version", "verify"},
	} {
		if got := Names(typed, cmds); !reflect.DeepEqual(got, want) {
			t.Errorf("Names(%q) = %q, want %q", typed, got, want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"audit", "audt", 1}, {"format", "fromat", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"é", "e", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
