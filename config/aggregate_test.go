package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/measure"
)

func TestPresets(t *testing.T) {
	user := t.TempDir()
	if err := os.MkdirAll(filepath.Join(user, "ctx"), 0o755); err != nil {
		t.Fatal(err)
	}
	global := "[presets.review]\ndescription = \"global review\"\nfiles = [\"**/*.go\"]\n\n[presets.docs]\nfiles = [\"docs/**\"]\nscreenshots = [\"a.png\"]\n"
	if err := os.WriteFile(PresetsFile(user), []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Decode("ctx.toml", []byte("[presets.review]\ndescription = \"project review\"\nfiles = [{ path = \"a.py\", view_mode = \"skeleton\" }]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := cfg.Presets(user)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(aggregate.PresetNames(ps), ","); got != "docs,review" {
		t.Fatalf("names %s", got)
	}
	r := ps["review"]
	if r.Scope != aggregate.ScopeProject || r.Description != "project review" || len(r.Files) != 1 || r.Files[0].ViewMode != aggregate.ViewSkeleton {
		t.Errorf("project preset does not override the global one: %+v", r)
	}
	d := ps["docs"]
	if d.Scope != aggregate.ScopeUser || !d.ScreenshotsSet {
		t.Errorf("global preset: %+v", d)
	}
	o := d.Apply(aggregate.Options{Engine: codeview.Engine(), Files: []aggregate.FileItem{{Path: "x"}}, Screenshots: []string{"old.png"}})
	if len(o.Files) != 1 || o.Files[0].Path != "docs/**" || o.Screenshots[0] != "a.png" {
		t.Errorf("applied: %+v", o)
	}
	o = r.Apply(aggregate.Options{Engine: codeview.Engine(), Screenshots: []string{"old.png"}})
	if o.Screenshots[0] != "old.png" {
		t.Errorf("a preset without screenshots replaced them: %+v", o)
	}
	// no global file, and a broken one
	if ps, err := (&Config{}).Presets(t.TempDir()); err != nil || len(ps) != 0 {
		t.Errorf("no global file: %v %v", ps, err)
	}
	os.WriteFile(PresetsFile(user), []byte("[presets.x]\nfiles = 3\n"), 0o644)
	if _, err := (&Config{}).Presets(user); err == nil || !strings.Contains(err.Error(), "presets.toml:2: presets.x.files: must be") {
		t.Errorf("broken global file: %v", err)
	}
}

func TestAggregateOptions(t *testing.T) {
	cfg, err := Decode("ctx.toml", []byte(`
[files]
base_dir = "src"
paths = ["a.py", { path = "b.py", auto_aggregate = false, custom_slices = [{ start_line = 1, end_line = 1, anchor_lines = { before = ["x"] } }] }]
strategy = "full"
summary_only = true
max_tokens = 4000
max_file_tokens = 500
[screenshots]
paths = "s.png"
[output]
namespace = "proj"
keep = 3
`))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.AggregateOptions("/p", "/home/u")
	if o.Keep != 3 || o.MaxTokensAt != "ctx.toml:7: files.max_tokens" {
		t.Errorf("keep %d, max_tokens at %q", o.Keep, o.MaxTokensAt)
	}
	if o.BaseDir != "/p/src" || o.ScreenshotBaseDir != "/p/src" || o.OutputDir != "/p/.ctx/out" || o.Namespace != "proj" ||
		o.Strategy != aggregate.StrategyFull || !o.SummaryOnly || len(o.Files) != 2 || !o.Files[1].NoAutoAggregate ||
		o.Files[1].CustomSlices[0].AnchorLines.Before[0] != "x" || o.Screenshots[0] != "s.png" ||
		o.MaxTokens != measure.Max(4000) || o.MaxFileTokens != measure.Max(500) {
		t.Errorf("options: %+v", o)
	}
	o = (&Config{}).AggregateOptions("/p", "/home/u")
	if o.BaseDir != "/p" || o.Namespace != aggregate.DefaultNamespace || o.Files != nil || o.MaxTokens.IsSet() || o.MaxFileTokens.IsSet() ||
		o.Keep != aggregate.DefaultKeep || o.MaxTokensAt != "" {
		t.Errorf("defaults: %+v", o)
	}
	// the output directory is skipped also when a caller clears OutputDir
	if len(o.SkipDirs) != 1 || o.SkipDirs[0] != "/p/.ctx/out" {
		t.Errorf("SkipDirs = %v", o.SkipDirs)
	}
	if o.HistoryFile != "" || o.AttachmentsDir != "" {
		t.Errorf("no [discussion]: %q %q", o.HistoryFile, o.AttachmentsDir)
	}
	// the [discussion] history and attachments are never aggregated
	c, err := Decode("ctx.toml", []byte("[discussion]\nhistory = \"chat/h.json\"\nattachments = \"chat/files\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := c.AggregateOptions("/p", "/home/u"); o.HistoryFile != "/p/chat/h.json" || o.AttachmentsDir != "/p/chat/files" {
		t.Errorf("[discussion]: %q %q", o.HistoryFile, o.AttachmentsDir)
	}
	// keep = 0 keeps every output
	c, err = Decode("ctx.toml", []byte("[output]\nkeep = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := c.AggregateOptions("/p", "/home/u"); o.Keep != 0 {
		t.Errorf("keep = 0: %d", o.Keep)
	}
}
