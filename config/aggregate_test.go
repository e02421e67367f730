package config

import (
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/measure"
)

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
	if o.Keep != measure.Max(3) || o.MaxTokensAt != "ctx.toml:7: files.max_tokens" {
		t.Errorf("keep %s, max_tokens at %q", o.Keep, o.MaxTokensAt)
	}
	if o.BaseDir != "/p/src" || o.ScreenshotBaseDir != "/p/src" || o.OutputDir != "/p/.ctx/out" || o.Namespace != "proj" ||
		o.Strategy != aggregate.StrategyFull || !o.SummaryOnly || len(o.Files) != 2 || !o.Files[1].NoAutoAggregate ||
		o.Files[1].CustomSlices[0].AnchorLines.Before[0] != "x" || o.Screenshots[0] != "s.png" ||
		o.MaxTokens != measure.Max(4000) || o.MaxFileTokens != measure.Max(500) {
		t.Errorf("options: %+v", o)
	}
	o = (&Config{}).AggregateOptions("/p", "/home/u")
	if o.BaseDir != "/p" || o.Namespace != aggregate.DefaultNamespace || o.Files != nil || o.MaxTokens.IsSet() || o.MaxFileTokens.IsSet() ||
		o.Keep != measure.Max(aggregate.DefaultKeep) || o.MaxTokensAt != "" {
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
	// keep = 0 keeps every output, as inf does
	for _, keep := range []string{"0", "inf"} {
		c, err = Decode("ctx.toml", []byte("[output]\nkeep = "+keep+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if o := c.AggregateOptions("/p", "/home/u"); o.Keep.IsSet() {
			t.Errorf("keep = %s: %s", keep, o.Keep)
		}
	}
}
