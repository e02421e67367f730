package config

import (
	"strings"
	"testing"
)

func TestRelativePaths(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want *bool
	}{
		{"", nil},
		{"relative_paths = true\n", ptr(true)},
		{"relative_paths = false\n", ptr(false)},
	} {
		c, err := Decode("ctx.toml", []byte(tc.src))
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if (c.RelativePaths == nil) != (tc.want == nil) || (c.RelativePaths != nil && *c.RelativePaths != *tc.want) {
			t.Errorf("%q: RelativePaths = %v, want %v", tc.src, c.RelativePaths, tc.want)
		}
		p := &Project{Dir: "/p", Config: c}
		if got := p.ManifestOptions().RelativePaths; got != (tc.want != nil && *tc.want) {
			t.Errorf("%q: ManifestOptions().RelativePaths = %v", tc.src, got)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"agent = \"a\"\nrelative_paths = \"yes\"\n", "ctx.toml:2: relative_paths: must be a boolean (true or false), not a string"},
		{"relative_paths = 1\n", "ctx.toml:1: relative_paths: must be a boolean (true or false), not an integer"},
		{"relative_path = true\n", "ctx.toml:1: relative_path: unknown key"},
	} {
		_, err := Decode("ctx.toml", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
