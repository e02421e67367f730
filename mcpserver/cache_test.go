package mcpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/cache"
	"github.com/ctxaudit/ctx/mcpserver"
)

// With Options.Cache the tools give the same bytes, and a second call
// takes its views from the cache.
func TestCache(t *testing.T) {
	dir := project(t)
	// a file big enough to be worth an entry (small ones are not cached)
	var big strings.Builder
	for i := range 200 {
		fmt.Fprintf(&big, "def f%d(x):\n    \"\"\"Doc.\"\"\"\n    return x + %d\n\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "big.py"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cache.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	plain := connectWith(t, mcpserver.Options{Dir: dir}, nil)
	cached := connectWith(t, mcpserver.Options{Dir: dir, Cache: c}, nil)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"pack", map[string]any{"paths": []string{"src"}, "view": "skeleton", "max_tokens": 0}},
		{"pack", map[string]any{"paths": []string{"src"}, "view": "outline", "estimator": "o200k", "max_tokens": 0}},
		{"render", map[string]any{"max_tokens": 0}},
		{"audit", nil},
	}
	for round := range 2 {
		for _, tc := range calls {
			want := ok(t, tc.tool, call(t, plain, tc.tool, tc.args))
			got := ok(t, tc.tool, call(t, cached, tc.tool, tc.args))
			if !slices.Equal(got, want) {
				t.Errorf("round %d, %s %v: differs with the cache:\n%q\n%q", round, tc.tool, tc.args, got, want)
			}
		}
		if st := c.Stats(); round == 0 && st.Puts == 0 {
			t.Fatalf("the first round put nothing in the cache: %+v", st)
		} else if round == 1 && st.Hits == 0 {
			t.Fatalf("the second round found nothing in the cache: %+v", st)
		}
	}
}
