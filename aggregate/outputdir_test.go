package aggregate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/testfs"
)

// An output directory that cannot hold the outputs, itself or a directory
// above it, is an OutputDirError that names the link or file and what is
// wrong with it, and the run makes nothing.
func TestOutputDirThatCannotBeMade(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
		setup           func(dir string) error
	}{
		{"a link to nothing", "out", "ctx.toml:3: output.output_dir: out is a link to gone, which does not exist",
			func(dir string) error { return os.Symlink("gone", filepath.Join(dir, "out")) }},
		{"a link to nothing above it", ".ctx/out", "ctx.toml:3: output.output_dir: .ctx/out: .ctx is a link to elsewhere/x, which does not exist",
			func(dir string) error { return os.Symlink("elsewhere/x", filepath.Join(dir, ".ctx")) }},
		{"a file above it", ".ctx/out", "ctx.toml:3: output.output_dir: .ctx/out: .ctx is a file, not a directory",
			func(dir string) error { return os.WriteFile(filepath.Join(dir, ".ctx"), nil, 0o644) }},
		{"a link to a file", "out", "ctx.toml:3: output.output_dir: out is a link to a.py, which is not a directory",
			func(dir string) error { return os.Symlink("a.py", filepath.Join(dir, "out")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.Tree(t, map[string]string{"a.py": "a = 1\n"})
			if err := tc.setup(dir); err != nil {
				t.Fatal(err)
			}
			_, err := aggregate.Run(context.Background(), aggregate.Options{BaseDir: dir, Files: []aggregate.FileItem{{Path: "a.py"}},
				OutputDir: filepath.Join(dir, tc.out), OutputDirAt: "ctx.toml:3: output.output_dir"})
			var oe *aggregate.OutputDirError
			if !errors.As(err, &oe) || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			for _, gone := range []string{"gone", "elsewhere"} {
				if _, err := os.Lstat(filepath.Join(dir, gone)); err == nil {
					t.Errorf("the run made %s", gone)
				}
			}
		})
	}
	// the default output directory, as a link to nothing
	dir := testfs.Tree(t, map[string]string{"a.py": "a = 1\n", ".ctx/": ""})
	if err := os.Symlink("gone", filepath.Join(dir, ".ctx", "out")); err != nil {
		t.Fatal(err)
	}
	_, err := aggregate.Run(context.Background(), aggregate.Options{BaseDir: dir, Files: []aggregate.FileItem{{Path: "a.py"}},
		OutputDir: filepath.Join(dir, aggregate.DefaultOutputDir)})
	if want := "output_dir .ctx/out is a link to .ctx/gone, which does not exist"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
