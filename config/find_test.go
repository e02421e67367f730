package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/internal/testfs"
)

// The project of a working directory is found as git finds .git: the
// nearest ctx.toml up to the repository root, never above it.
func TestFindProject(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, map[string]string{
		"ctx.toml":                   "agent = \"above the repository\"\n",
		"repo/.git/HEAD":             "ref: refs/heads/main\n",
		"repo/ctx.toml":              "profile = \"claude\"\n",
		"repo/packages/core/src/":    "",
		"repo/packages/own/ctx.toml": "profile = \"codex\"\n",
		"repo/packages/own/lib/":     "",
		"bare/.git/HEAD":             "ref: refs/heads/main\n",
		"bare/sub/":                  "",
		"loose/sub/":                 "",
	})
	for _, tc := range []struct{ wd, want string }{
		{"repo", "repo"},
		{"repo/packages/core/src", "repo"},
		{"repo/packages/own/lib", "repo/packages/own"},
		{"bare/sub", "bare/sub"},   // a repository without ctx.toml: the working directory
		{"loose/sub", "loose/sub"}, // no repository: not above the working directory
	} {
		if got := config.FindProject(filepath.Join(dir, tc.wd)); got != filepath.Join(dir, tc.want) {
			t.Errorf("%s: project %s, want %s", tc.wd, got, filepath.Join(dir, tc.want))
		}
	}

	// loaded from a subfolder: the project's ctx.toml, the agent's chain
	// from the working directory
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(filepath.Join(dir, "repo/packages/core/src")); err != nil {
		t.Fatal(err)
	}
	p, err := config.LoadProject(config.ProjectOptions{Home: filepath.Join(dir, "home"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir != filepath.Join(dir, "repo") || p.WorkDir != filepath.Join(dir, "repo/packages/core/src") {
		t.Errorf("Dir %s, WorkDir %s", p.Dir, p.WorkDir)
	}
	o := p.ManifestOptions()
	if o.Profile != "claude" || o.ProfileOptions.Dir != p.WorkDir {
		t.Errorf("profile %q from %q, want claude from the working directory", o.Profile, o.ProfileOptions.Dir)
	}
	// -C names the project itself
	p, err = config.LoadProject(config.ProjectOptions{Dir: ".", Home: filepath.Join(dir, "home")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir != filepath.Join(dir, "repo/packages/core/src") {
		t.Errorf("-C .: Dir %s", p.Dir)
	}
}
