package aggregate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/internal/goldenfile"
)

// Golden files live in testdata/golden and are rewritten only with
// CTX_UPDATE=1; never edit them by hand.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

// itemsJSON renders items and screenshots with times zeroed, as goldens.
func itemsJSON(t *testing.T, items []Item, shots []Screenshot) []byte {
	t.Helper()
	for i := range items {
		items[i].MTime = time.Time{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Items       []Item       `json:"items"`
		Screenshots []Screenshot `json:"screenshots,omitempty"`
	}{items, shots}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const project = "testdata/project"

func projectSrc(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(project, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pin(t *testing.T, rel string, start, end int, tag, comment string) slice.Slice {
	t.Helper()
	s, err := slice.New(projectSrc(t, rel), start, end, tag, comment)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var codeFiles = []string{"src/app.py", "src/pkg/util.go", "native/engine.c", "native/engine.h", "native/shapes.cpp",
	"web/app.js", "web/types.ts", "native/lib.rs", "native/Main.java", "README.md", "config.toml"}

// seedHash is the SHA-256 of lines start..end of src/app.py joined by
// "\n", plus end: a slice hash as Manual Slop writes it.
func seedHash(t *testing.T, start, end int, suffix string) string {
	lines := strings.Split(string(projectSrc(t, "src/app.py")), "\n")
	return sha256Hex(strings.Join(lines[start-1:end], "\n") + suffix)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func withView(mode ViewMode, paths ...string) []FileItem {
	out := make([]FileItem, len(paths))
	for i, p := range paths {
		out[i] = FileItem{Path: p, ViewMode: mode}
	}
	return out
}

func goldenCases(t *testing.T) []struct {
	name string
	opts Options
} {
	stale := pin(t, "src/app.py", 9, 10, "stale", "")
	stale.ContentHash = strings.Repeat("0", 64)
	stale.Fingerprint = "aaaaaa bbbbbb"
	stale.AnchorLines = slice.Anchors{}
	return []struct {
		name string
		opts Options
	}{
		{"full", Options{Engine: codeview.Engine(), Files: []FileItem{{Path: "**"}}, Strategy: StrategyFull}},
		{"summarize", Options{Engine: codeview.Engine(), Files: []FileItem{{Path: "**"}}, Strategy: StrategySummarize}},
		{"summary_only", Options{Engine: codeview.Engine(), Files: withView(ViewFull, "README.md", "config.toml", "src/app.py"), SummaryOnly: true}},
		{"summary_view", Options{Engine: codeview.Engine(), Files: withView(ViewSummary, codeFiles...)}},
		{"skeleton", Options{Engine: codeview.Engine(), Files: withView(ViewSkeleton, codeFiles...)}},
		{"outline", Options{Engine: codeview.Engine(), Files: withView(ViewOutline, codeFiles...)}},
		{"masked", Options{Engine: codeview.Engine(), Files: []FileItem{
			{Path: "src/app.py", ViewMode: ViewMasked, ASTMask: map[string]MaskMode{"Client.send": "def", "Client": "sig", "_helper": "hide"}},
			{Path: "src/pkg/util.go", ViewMode: ViewMasked, ASTMask: map[string]MaskMode{"Sum": "def"}, ASTSignatures: true},
			{Path: "native/shapes.cpp", ViewMode: ViewMasked, ASTMask: map[string]MaskMode{"geo::area": "def", "geo::Box": "sig"}},
			{Path: "native/lib.rs", ViewMode: ViewMasked, ASTDefinitions: true},
			{Path: "README.md", ViewMode: ViewMasked, ASTMask: map[string]MaskMode{"x": "def"}},
		}}},
		// ast_signatures / ast_definitions outside the masked view: the
		// original's skeleton-equivalent shortcuts
		{"shortcuts", Options{Engine: codeview.Engine(), Files: []FileItem{
			{Path: "src/app.py", ASTSignatures: true},
			{Path: "src/pkg/util.go", ASTDefinitions: true},
			{Path: "native/lib.rs", ASTSignatures: true, ASTDefinitions: true},
			{Path: "README.md", ASTSignatures: true},
			{Path: "config.toml", ViewMode: ViewSummary, ASTSignatures: true},
			{Path: "native/engine.c", ASTSignatures: true, ForceFull: true},
		}}},
		// Manual Slop's slices: SHA-256 hashes, anchor_lines as a list
		{"seed_slices", Options{Engine: codeview.Engine(), Files: []FileItem{
			{Path: "src/app.py", ViewMode: ViewCustom, CustomSlices: []slice.Slice{
				{StartLine: 22, EndLine: 24, Tag: "client", ContentHash: seedHash(t, 22, 24, ""),
					AnchorLines: slice.Anchors{Context: []string{"", "", "    class Config:"}}},
				{StartLine: 32, EndLine: 33, Tag: "init", Comment: "hashed with its line ends", ContentHash: seedHash(t, 32, 33, "\n")},
				{StartLine: 27, EndLine: 28, Tag: "moved", ContentHash: seedHash(t, 29, 30, "")},
				{StartLine: 36, EndLine: 39, ContentHash: sha256Hex("an older send"),
					AnchorLines: slice.Anchors{Context: []string{"    @retry(3)", "", "    async def close(self):"}}},
			}},
		}}},
		{"none_custom", Options{Engine: codeview.Engine(), Files: []FileItem{
			{Path: "NOTES", ViewMode: ViewNone},
			{Path: "src/app.py", ViewMode: ViewCustom, CustomSlices: []slice.Slice{
				pin(t, "src/app.py", 22, 24, "client", "the class header"),
				{StartLine: 44, EndLine: 45},
				stale,
			}},
			{Path: "README.md", ViewMode: ViewCustom, CustomSlices: []slice.Slice{pin(t, "README.md", 7, 10, "fence", "contains ```")}},
			{Path: "config.toml", ViewMode: ViewNone, ForceFull: true},
			{Path: "web/app.js", NoAutoAggregate: true},
			{Path: "web/types.ts", ViewMode: ViewCustom},
		}}},
		{"tier3", Options{Engine: codeview.Engine(),
			Files: []FileItem{{Path: "src/**"}, {Path: "native/*"}, {Path: "README.md"}, {Path: "NOTES", ViewMode: ViewNone},
				{Path: "native/engine.c", Tier: 3}, {Path: "web/app.js", ForceFull: true}},
			Focus: []string{"app.py", "native/engine.h", "pp.py"},
		}},
		{"errors", Options{Engine: codeview.Engine(), Files: []FileItem{
			{Path: "src/**/*.rb"}, {Path: "history.toml"}, {Path: "data.bin"},
			{Path: "docs/*"}, {Path: "src/**/*.py"}, {Path: "src/app.py", ViewMode: ViewSummary},
		}}},
		{"limits", Options{Engine: codeview.Engine(), Files: withView(ViewFull, "NOTES", "src/app.py"), MaxFileBytes: 100}},
		{"beads", Options{Engine: codeview.Engine(),
			Files:       withView(ViewFull, "NOTES"),
			Screenshots: []string{"shots/*.png"},
			Beads:       &beads.Options{Path: "beads/testdata/beads", Name: ".beads"},
			History:     "### Discussion Excerpt 1\n\nUser: hello\n",
			// the store is package beads' test store, outside the project
			ProjectDir: "testdata", AllowOutside: []string{"beads/testdata"},
		}},
		{"sections", Options{Engine: codeview.Engine(),
			Files:       withView(ViewFull, "README.md", "NOTES"),
			Screenshots: []string{"shots/*.png", "shots/missing.png"},
			History:     "### Discussion Excerpt 1\n\nUser: hello\n\n---\n\n### Discussion Excerpt 2\n\nAI: hi\n",
		}},
	}
}

func TestGolden(t *testing.T) {
	base, err := filepath.Abs(project)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range goldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.BaseDir = project
			o.Concurrency = 3
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".md", []byte(res.Markdown))
			js := itemsJSON(t, res.Items, res.Screenshots)
			golden(t, tc.name+".json", js)
			if o.History != "" {
				golden(t, tc.name+".static.md", []byte(res.Static))
				if !strings.HasPrefix(res.Markdown, res.Static) {
					t.Error("the static markdown is not a prefix of the whole")
				}
			}
			for _, out := range [][]byte{[]byte(res.Markdown), js} {
				if bytes.Contains(out, []byte(base)) {
					t.Errorf("output contains the host path %s", base)
				}
			}
			// the same run is deterministic whatever the concurrency
			o.Concurrency = 1
			res2, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res2.Markdown != res.Markdown {
				t.Error("markdown differs between concurrency 3 and 1")
			}
		})
	}
}
