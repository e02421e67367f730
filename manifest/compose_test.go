package manifest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/render"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	return testfs.Tree(t, files)
}

func TestRowStatus(t *testing.T) {
	for _, tc := range []struct {
		it   aggregate.Item
		want aggregate.Status
	}{
		{aggregate.Item{Status: "ok", AutoAggregate: true}, "ok"},
		{aggregate.Item{Status: "error", AutoAggregate: true}, "error"},
		// an excluded file that is missing is still an error
		{aggregate.Item{Status: "error"}, "error"},
		{aggregate.Item{Status: "ok"}, "excluded"},
		{aggregate.Item{Status: "binary"}, "excluded"},
		{aggregate.Item{Status: "binary", AutoAggregate: true}, "binary"},
		{aggregate.Item{Status: "omitted", AutoAggregate: true, Degraded: "full → omitted (max_tokens 1)"}, "omitted"},
		{aggregate.Item{Status: "ok", AutoAggregate: true, Degraded: "full → skeleton (max_tokens 1)", Fallback: "x"}, "degraded"},
		{aggregate.Item{Status: "ok", AutoAggregate: true, Fallback: "skeleton view not supported"}, "fallback"},
	} {
		if got := tc.it.RowStatus(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.it, got, tc.want)
		}
	}
}

// TestFileRows checks the conversion and the provenance rule: every block
// of the section has a row whose emitted hash is the block's, and the
// section is the blocks joined as ctx aggregate joins them.
func TestFileRows(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.py":        "def a():\n    return 1\n",
		"bin.dat":     "x\x00y",
		"skip.txt":    "kept out\n",
		"lib/u.py":    "def u():\n    pass\n",
		"shots/s.png": "png bytes",
	})
	pinned := slice.Slice{StartLine: 1, EndLine: 1, Tag: "gone", ContentHash: strings.Repeat("0", 64)}
	res, err := aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(),
		BaseDir: dir,
		Files: []aggregate.FileItem{{Path: "a.py"}, {Path: "bin.dat"}, {Path: "missing/*.py"},
			{Path: "skip.txt", NoAutoAggregate: true},
			{Path: "lib/u.py", ViewMode: aggregate.ViewCustom, CustomSlices: []slice.Slice{pinned, {StartLine: 2, EndLine: 2}}}},
		ScreenshotBaseDir: filepath.Join(dir, "shots"), Screenshots: []string{"*.png", "none/*.png"},
	})
	if err != nil {
		t.Fatal(err)
	}
	rows := manifest.FileRows(res)
	if len(rows) != 7 {
		t.Fatalf("%d rows", len(rows))
	}
	byPath := map[string]manifest.FileRow{}
	for _, r := range rows {
		byPath[r.Path] = r
	}
	a := byPath["a.py"]
	if a.Status != "ok" || a.Entry != "a.py" || a.ViewMode != "full" || a.SourceBytes == nil || *a.SourceBytes != 22 ||
		*a.SourceLines != 2 || *a.SourceHash != measure.Hash([]byte("def a():\n    return 1\n")) || a.RequestedViewMode != "" {
		t.Errorf("a.py: %+v", a)
	}
	if b := byPath["bin.dat"]; b.Status != "binary" || b.SourceBytes == nil || *b.SourceBytes != 3 || b.SourceHash == nil ||
		b.SourceChars != nil || b.SourceLines != nil || b.SourceTokens != nil {
		t.Errorf("bin.dat: %+v", b)
	}
	if m := byPath["missing/*.py"]; m.Status != "error" || m.Error != "no files matched: missing/*.py" || m.SourceBytes != nil ||
		m.SourceHash != nil || m.SourceTokens != nil || m.EmittedBytes == 0 {
		t.Errorf("missing/*.py: %+v", m)
	}
	if s := byPath["skip.txt"]; s.Status != "excluded" || s.SourceBytes == nil || s.EmittedBytes != 0 || s.EmittedHash != measure.Hash(nil) {
		t.Errorf("skip.txt: %+v", s)
	}
	u := byPath["lib/u.py"]
	if len(u.Slices) != 2 {
		t.Fatalf("slices: %+v", u.Slices)
	}
	if s := u.Slices[0]; s.Tag != "gone" || s.Resolution != "orphaned" || s.NewStartLine != 0 || s.ContentHash != "" {
		t.Errorf("orphaned slice: %+v", s)
	}
	if s := u.Slices[1]; s.Resolution != "unpinned" || s.StartLine != 2 || s.NewStartLine != 2 || s.ContentHash != measure.Hash([]byte("    pass")) {
		t.Errorf("unpinned slice: %+v", s)
	}
	if s := byPath["s.png"]; s.Kind != "screenshot" || s.Status != "ok" || s.Entry != "*.png" || *s.SourceBytes != 9 || s.SourceChars != nil {
		t.Errorf("screenshot: %+v", s)
	}
	if s := byPath["none/*.png"]; s.Kind != "screenshot" || s.Status != "error" || s.SourceHash != nil {
		t.Errorf("screenshot error: %+v", s)
	}

	// provenance: the rows' blocks rebuild the section
	var files, shots []string
	for i, r := range rows {
		if r.EmittedBytes == 0 {
			continue
		}
		var block string
		if r.Kind == "screenshot" {
			block = res.Screenshots[i-len(res.Items)].Block()
			shots = append(shots, block)
		} else {
			block = res.Items[i].Block()
			files = append(files, block)
		}
		if measure.Hash([]byte(block)) != r.EmittedHash || len(block) != r.EmittedBytes {
			t.Errorf("%s: the emitted hash is not the block's", r.Path)
		}
	}
	const sep = "\n\n---\n\n"
	want := "## Files\n\n" + strings.Join(files, sep) + sep + "## Screenshots\n\n" + strings.Join(shots, sep)
	if res.Static != want {
		t.Errorf("the blocks do not rebuild the section:\n%s\n---- want\n%s", res.Static, want)
	}
}

func TestBuildFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{"src/a.py": "A = 1\n", "AGENTS.md": "rules\n"})
	none := func(string) string { return "" }
	opts := manifest.Options{
		Discover: discover.Options{Agent: "codex", ProjectDir: dir, SharedMode: discover.SharedDisabled, Getenv: none},
		Files:    &aggregate.Options{Engine: codeview.Engine(), BaseDir: filepath.Join(dir, "src"), Files: []aggregate.FileItem{{Path: "a.py"}}},
	}
	m, err := manifest.Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].Path != "a.py" || len(m.Sections) != 1 || m.Sections[0].ID != manifest.SectionFiles {
		t.Fatalf("files %+v, sections %+v", m.Files, m.Sections)
	}
	sec := "## Files\n\n### `a.py`\n\n```py\nA = 1\n```\n"
	if m.Sections[0].Text != sec || m.Sections[0].Hash != measure.Hash([]byte(sec)) {
		t.Errorf("section %q", m.Sections[0].Text)
	}
	// render: the fragments, then the section
	if got := render.Text(m); got != "rules\n\n\n"+sec {
		t.Errorf("render %q", got)
	}

	// no files: nothing is added
	opts.Files = nil
	if m2, err := manifest.Build(context.Background(), opts); err != nil || m2.Files != nil || m2.Sections != nil {
		t.Errorf("without files: %v, %+v", err, m2)
	}

	// cancellation stops the run
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts.Files = &aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "src/a.py"}}}
	if _, err := manifest.Build(ctx, opts); err == nil {
		t.Error("a cancelled context did not stop Build")
	}
}

// Relative paths in the options are relative to the project directory,
// not to the working directory of the process; the base directory of the
// files defaults to the project directory.
func TestBuildPathsRelativeToProject(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"src/main.go":       "package main\n",
		"chat/history.json": `{"messages": [{"id": "u", "role": "user", "contentParts": [{"type": "text", "text": "hi"}]}]}`,
	})
	t.Chdir(t.TempDir())
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{Agent: "a", ProjectDir: dir, SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
		Files:    &aggregate.Options{Engine: codeview.Engine(), Files: []aggregate.FileItem{{Path: "src/main.go"}}},
		History:  &manifest.HistoryOptions{Path: "chat/history.json", AttachmentsDir: "chat"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].Status != aggregate.StatusOK || m.History == nil || m.History.MessagesOut != 1 || m.History.File != "chat/history.json" {
		t.Errorf("files %+v history %+v", m.Files, m.History)
	}
}

// A view cut by a limit of codeview is recorded in its row (and the
// manifest stays valid and round-trips: build validates and decodes it).
func TestBuildFilesTruncated(t *testing.T) {
	deep := strings.Repeat("namespace n {\n", 200) + strings.Repeat("}\n", 200)
	dir := writeTree(t, map[string]string{"deep.cpp": deep, "AGENTS.md": "rules\n"})
	none := func(string) string { return "" }
	m := build(t, manifest.Options{
		Discover: discover.Options{Agent: "codex", ProjectDir: dir, SharedMode: discover.SharedDisabled, Getenv: none},
		Files:    &aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "deep.cpp", ViewMode: aggregate.ViewOutline}}},
	})
	if len(m.Files) != 1 || m.Files[0].Truncated != "symbols nested deeper than 64 levels are not listed" || m.Files[0].Status != "ok" {
		t.Fatalf("row %+v", m.Files)
	}
}

// [files] max_tokens bounds the files section as the manifest records it
// (and ctx render prints it): headings, separators, the list of what was
// left out and the screenshots included, in the manifest's estimator.
func TestBuildFilesWithinBudget(t *testing.T) {
	files := map[string]string{"AGENTS.md": "rules\n", "shots/ui.png": "png"}
	for i := range 40 {
		files[fmt.Sprintf("src/m%02d.py", i)] = strings.Repeat(fmt.Sprintf("def f%d(x):\n    return x * %d\n\n", i, i), 1+i%9)
	}
	dir := writeTree(t, files)
	none := func(string) string { return "" }
	for _, name := range []string{"chars4", "o200k", "cl100k"} {
		est, err := measure.ParseEstimator(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, max := range []int64{60, 200, 1000} {
			opts := manifest.Options{
				Discover: discover.Options{Agent: "codex", ProjectDir: dir, SharedMode: discover.SharedDisabled, Getenv: none},
				Files: &aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "src"}}, MaxTokens: measure.Max(max),
					Screenshots: []string{"shots/*.png"}},
			}
			opts.SetEstimator(est)
			m, err := manifest.Build(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			sec := m.Sections[len(m.Sections)-1]
			if sec.ID != manifest.SectionFiles || !strings.Contains(sec.Text, "## Screenshots") {
				t.Fatalf("%s %d: sections %+v", name, max, m.Sections)
			}
			if n := est.Tokens([]byte(sec.Text)); int64(n) > max || sec.Tokens != n {
				t.Errorf("%s max_tokens %d: the files section is %d tokens (recorded %d)", name, max, n, sec.Tokens)
			}
		}
	}
}
