package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/slice"
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
		t.Errorf("no [history]: %q %q", o.HistoryFile, o.AttachmentsDir)
	}
	// the [history] history and attachments are never aggregated
	c, err := Decode("ctx.toml", []byte("[history]\nhistory = \"chat/h.json\"\nattachments = \"chat/files\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := c.AggregateOptions("/p", "/home/u"); o.HistoryFile != "/p/chat/h.json" || o.AttachmentsDir != "/p/chat/files" {
		t.Errorf("[history]: %q %q", o.HistoryFile, o.AttachmentsDir)
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

// A slice written by Slice.TOML (ctx slice add, ctx preset) decodes to the
// same slice, in each shape of anchor_lines and with either hash.
func TestSliceTOMLRoundTrip(t *testing.T) {
	src := []byte("one\ntwo \"q\"\nthree\nfour\nfive\n")
	pinned, err := slice.New(src, 2, 3, `a "tag"`, "line one\nline two")
	if err != nil {
		t.Fatal(err)
	}
	first, err := slice.New(src, 1, 1, "", "")
	if err != nil {
		t.Fatal(err)
	}
	hash := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name string
		s    slice.Slice
	}{
		{"pinned", pinned},
		{"pinned at the first line", first},
		{"unpinned", slice.Slice{StartLine: 4, EndLine: 5}},
		{"sha256 with a list", slice.Slice{StartLine: 1, EndLine: 2, ContentHash: hash, HashAlgorithm: slice.HashSHA256,
			AnchorLines: slice.Anchors{Context: []string{"before", "after"}}}},
		{"an empty list", slice.Slice{StartLine: 1, EndLine: 2, ContentHash: hash, AnchorLines: slice.Anchors{Context: []string{}}}},
		{"before only", slice.Slice{StartLine: 3, EndLine: 3, AnchorLines: slice.Anchors{Before: []string{"x"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "[files]\npaths = [{ path = \"a.py\", custom_slices = [" + tc.s.TOML() + "] }]\n"
			cfg, err := Decode("ctx.toml", []byte(doc))
			if err != nil {
				t.Fatalf("%v in\n%s", err, doc)
			}
			got := cfg.AggregateOptions("/p", "/home/u").Files[0].CustomSlices
			// an empty before or after list is none (only the list shape
			// keeps its emptiness: it says anchor_lines was written)
			for _, l := range []*[]string{&got[0].AnchorLines.Before, &got[0].AnchorLines.After} {
				if len(*l) == 0 {
					*l = nil
				}
			}
			if len(got) != 1 || !reflect.DeepEqual(got[0], tc.s) {
				t.Errorf("%s decodes to\n%#v, want\n%#v", doc, got, tc.s)
			}
		})
	}
}
