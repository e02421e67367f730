package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

func TestDecodeAggregate(t *testing.T) {
	src := `
[files]
base_dir = "."
paths = ["src/**/*.py", "README.md",
         { path = "core/engine.c", view_mode = "skeleton" },
         { path = "lib/util.py", view_mode = "custom", custom_slices = [{ start_line = 10, end_line = 24, tag = "parser", comment = "hot path" }] },
         { path = "docs/big.md", auto_aggregate = false },
         { path = "api.py", view_mode = "masked", ast_mask = { "Client.send" = "def", "Client" = "sig", "_helper" = "hide" } },
         { path = "x.go", force_full = true, tier = 3, ast_signatures = true, ast_definitions = true,
           custom_slices = [{ start_line = 1, end_line = 2, content_hash = "` + strings.Repeat("ab", 32) + `",
                              fingerprint = "aaaaaa -", anchor_lines = { before = ["a"], after = ["b", "c"] } }] }]
strategy = "summarize"
summary_only = true

[screenshots]
base_dir = "shots"
paths = ["*.png"]

[output]
output_dir = ".ctx/out"
namespace = "project"

[presets.review]
description = "review set"
files = ["src/**/*.go"]
screenshots = []

[presets.all]
files = "**"
`
	c, err := Decode("ctx.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a := c.Aggregate
	f := a.Files
	if f == nil || *f.BaseDir != "." || *f.Strategy != "summarize" || !*f.SummaryOnly || len(f.Paths) != 7 {
		t.Fatalf("files: %+v", f)
	}
	if p := f.Paths[0]; p.Path != "src/**/*.py" || p.Field != "files.paths[0]" || p.Line != 4 || p.AutoAggregate != nil {
		t.Errorf("paths[0]: %+v", p)
	}
	if p := f.Paths[2]; p.ViewMode != "skeleton" || p.Line != 5 {
		t.Errorf("paths[2]: %+v", p)
	}
	if s := f.Paths[3].CustomSlices; len(s) != 1 || s[0].StartLine != 10 || s[0].EndLine != 24 || s[0].Tag != "parser" || s[0].Comment != "hot path" || s[0].Field != "files.paths[3].custom_slices[0]" {
		t.Errorf("slices: %+v", s)
	}
	if p := f.Paths[4]; p.AutoAggregate == nil || *p.AutoAggregate {
		t.Errorf("auto_aggregate: %+v", p)
	}
	if m := f.Paths[5].ASTMask; len(m) != 3 || m["Client.send"] != "def" || m["_helper"] != "hide" {
		t.Errorf("ast_mask: %v", m)
	}
	p := f.Paths[6]
	if !p.ForceFull || p.Tier != 3 || !p.ASTSignatures || !p.ASTDefinitions {
		t.Errorf("flags: %+v", p)
	}
	if s := p.CustomSlices[0]; s.ContentHash == "" || s.Fingerprint != "aaaaaa -" || len(s.AnchorBefore) != 1 || len(s.AnchorAfter) != 2 {
		t.Errorf("pinned slice: %+v", s)
	}
	if s := a.Screenshots; s == nil || *s.BaseDir != "shots" || len(s.Paths) != 1 {
		t.Errorf("screenshots: %+v", s)
	}
	if o := a.Output; o == nil || *o.OutputDir != ".ctx/out" || *o.Namespace != "project" {
		t.Errorf("output: %+v", o)
	}
	if len(a.Presets) != 2 || a.Presets[0].Name != "review" || a.Presets[0].Description != "review set" ||
		!a.Presets[0].ScreenshotsSet || a.Presets[0].Screenshots == nil || len(a.Presets[0].Files) != 1 {
		t.Fatalf("presets: %+v", a.Presets)
	}
	if p := a.Presets[1]; p.Name != "all" || p.ScreenshotsSet || len(p.Files) != 1 || p.Files[0].Path != "**" {
		t.Errorf("preset all: %+v", p)
	}
}

func TestDecodeFilesTokenLimits(t *testing.T) {
	c, err := Decode("ctx.toml", []byte("[files]\npaths = [\"a\"]\nmax_tokens = 4000\nmax_file_tokens = 500\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := c.Aggregate.Files
	if f.MaxTokens != measure.Max(4000) || f.MaxFileTokens != measure.Max(500) {
		t.Errorf("limits: %+v", f)
	}
	c, err = Decode("ctx.toml", []byte("[files]\npaths = [\"a\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f := c.Aggregate.Files; f.MaxTokens.IsSet() || f.MaxFileTokens.IsSet() {
		t.Errorf("absent limits decoded: %+v", f)
	}
}

func TestDecodeFilesIgnore(t *testing.T) {
	c, err := Decode("ctx.toml", []byte("[files]\nignore = [\"*.csv\", \"!keep.csv\"]\ndefault_ignores = false\ngitignore = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := c.Aggregate.Files
	if fmt.Sprint(f.Ignore) != "[*.csv !keep.csv]" || f.DefaultIgnores == nil || *f.DefaultIgnores || f.GitIgnore == nil || *f.GitIgnore {
		t.Errorf("decoded %+v", f)
	}
	o := c.AggregateOptions("/p", "/h")
	if fmt.Sprint(o.IgnorePatterns) != "[*.csv !keep.csv]" || !o.NoDefaultIgnores || !o.NoGitIgnore {
		t.Errorf("options %+v", o)
	}
	c, err = Decode("ctx.toml", []byte("[files]\nignore = \"*.csv\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := c.AggregateOptions("/p", "/h"); fmt.Sprint(o.IgnorePatterns) != "[*.csv]" || o.NoDefaultIgnores || o.NoGitIgnore {
		t.Errorf("absent default_ignores: %+v", o)
	}
}

func TestDecodeAggregateAbsent(t *testing.T) {
	c, err := Decode("ctx.toml", []byte("agent = \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Aggregate; a.Files != nil || a.Screenshots != nil || a.Output != nil || a.Presets != nil {
		t.Errorf("absent tables decoded: %+v", a)
	}
}

func TestDecodeAggregateErrors(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{"files = 1", "ctx.toml:1: files: must be a table, not an integer"},
		{"[files]\npath = \"x\"", "ctx.toml:2: files.path: unknown key (allowed: base_dir, paths, strategy, focus, summary_only, max_tokens, max_file_tokens, ignore, default_ignores, gitignore)"},
		{"[files]\nignore = [\"*.csv\", \"\"]", "ctx.toml:2: files.ignore[1]: must not be empty"},
		{"[files]\nignore = [\n  \"*.csv\",\n  \"data/[a-\"]", `ctx.toml:4: files.ignore[1]: invalid pattern "data/[a-": syntax error in pattern`},
		{"[files]\nignore = \"  \"", "ctx.toml:2: files.ignore: must not be empty"},
		{"[files]\nignore = 1", "ctx.toml:2: files.ignore: must be a string or an array of strings, not an integer"},
		{"[files]\ndefault_ignores = \"no\"", "ctx.toml:2: files.default_ignores: must be a boolean (true or false), not a string"},
		{"[files]\nstrategy = \"full\"\nfocus = [\"a.py\"]", `ctx.toml:3: files.focus: applies to strategy = "tier3" (which focus implies), not to strategy = "full"`},
		{"[files]\nfocus = [\"\"]", "ctx.toml:2: files.focus[0]: must not be empty"},
		{"[files]\nfocus = 1", "ctx.toml:2: files.focus: must be a string or an array of strings, not an integer"},
		{"[files]\npaths = 3", "ctx.toml:2: files.paths: must be a path or an array of paths and tables, not an integer"},
		{"[files]\npaths = [\"a\", 3]", "ctx.toml:2: files.paths[1]: must be a path or a table with a path, not an integer"},
		{"[files]\npaths = [\"\"]", "ctx.toml:2: files.paths[0]: must not be empty"},
		{"[files]\npaths = [\n  \"a\",\n  { view_mode = \"full\" }]", "ctx.toml:4: files.paths[1]: missing path"},
		{"[files]\npaths = [{ path = \"a\", mode = \"full\" }]", "ctx.toml:2: files.paths[0].mode: unknown key (allowed: path, auto_aggregate, force_full, view_mode, tier, ast_mask, custom_slices, ast_signatures, ast_definitions, selected, injected_at)"},
		{"[files]\npaths = [{ path = \"a\", view_mode = \"tree\" }]", `ctx.toml:2: files.paths[0].view_mode: must be one of full, summary, skeleton, outline, masked, none, custom, not "tree"`},
		{"[files]\npaths = [{ path = \"a\", auto_aggregate = \"no\" }]", "ctx.toml:2: files.paths[0].auto_aggregate: must be a boolean (true or false), not a string"},
		{"[files]\npaths = [{ path = \"a\", tier = 1.5 }]", "ctx.toml:2: files.paths[0].tier: must be a whole number, not 1.5"},
		{"[files]\npaths = [{ path = \"a\", tier = -1 }]", "ctx.toml:2: files.paths[0].tier: must be between 0 and 1000, not -1"},
		{"[files]\npaths = [{ path = \"a\", ast_mask = { f = \"all\" } }]", `ctx.toml:2: files.paths[0].ast_mask.f: must be def, sig or hide, not "all"`},
		{"[files]\npaths = [{ path = \"a\", ast_mask = [\"f\"] }]", "ctx.toml:2: files.paths[0].ast_mask: must be a table, not an array"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ end_line = 2 }] }]", "ctx.toml:2: files.paths[0].custom_slices[0]: missing start_line"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 0, end_line = 2 }] }]", "ctx.toml:2: files.paths[0].custom_slices[0].start_line: must be a line number (1 or more), not 0"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 5, end_line = 2 }] }]", "ctx.toml:2: files.paths[0].custom_slices[0].end_line: must not be before start_line (5), not 2"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 1, end_line = 2, content_hash = \"abc\" }] }]", "ctx.toml:2: files.paths[0].custom_slices[0].content_hash: must be 64 lowercase hex digits (BLAKE3, or SHA-256 as Manual Slop writes it)"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 1, end_line = 2, content_hash = \"" + strings.Repeat("a", 64) + "\", hash_algorithm = \"md5\" }] }]", `ctx.toml:2: files.paths[0].custom_slices[0].hash_algorithm: must be blake3 or sha256, not "md5"`},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 1, end_line = 2, hash_algorithm = \"sha256\" }] }]", "ctx.toml:2: files.paths[0].custom_slices[0].hash_algorithm: applies only with content_hash"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 1, end_line = 2, anchor_lines = \"x\" }] }]", "ctx.toml:2: files.paths[0].custom_slices[0].anchor_lines: must be a table { before, after } or a list of lines, not a string"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 1, end_line = 2, anchor_lines = [1] }] }]", "ctx.toml:2: files.paths[0].custom_slices[0].anchor_lines[0]: must be a string, not an integer"},
		{"[files]\npaths = [{ path = \"a\", selected = 1 }]", "ctx.toml:2: files.paths[0].selected: must be a boolean (true or false), not an integer"},
		{"[files]\npaths = [{ path = \"a\", injected_at = \"now\" }]", "ctx.toml:2: files.paths[0].injected_at: must be a timestamp (a number or a date-time), not a string"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 1, end_line = 2, anchor_lines = { above = [] } }] }]", "ctx.toml:2: files.paths[0].custom_slices[0].anchor_lines.above: unknown key (allowed: before, after)"},
		{"[files]\npaths = [{ path = \"a\", custom_slices = [{ start_line = 1, end_line = 2, tag = 1 }] }]", "ctx.toml:2: files.paths[0].custom_slices[0].tag: must be a string, not an integer"},
		{"[files]\nstrategy = \"all\"", `ctx.toml:2: files.strategy: must be auto, summarize, full or tier3, not "all"`},
		{"[files]\nsummary_only = 1", "ctx.toml:2: files.summary_only: must be a boolean (true or false), not an integer"},
		{"[files]\nbase_dir = \"\"", "ctx.toml:2: files.base_dir: must not be empty"},
		{"[files]\nmax_tokens = 0", "ctx.toml:2: files.max_tokens: must be a number of tokens (1 or more), or inf (or leave it out) for no limit, not 0"},
		{"[files]\nmax_file_tokens = -5", "ctx.toml:2: files.max_file_tokens: must be a number of tokens (1 or more), or inf (or leave it out) for no limit, not -5"},
		{"[files]\nmax_tokens = 1.5", "ctx.toml:2: files.max_tokens: must be a number of tokens (1 or more), or inf (or leave it out) for no limit, not 1.5"},
		{"[files]\nmax_tokens = \"lots\"", "ctx.toml:2: files.max_tokens: must be a number of tokens (1 or more), or inf (or leave it out) for no limit, not \"lots\""},
		{"[screenshots]\npaths = [1]", "ctx.toml:2: screenshots.paths[0]: must be a string, not an integer"},
		{"[screenshots]\nbase = \".\"", "ctx.toml:2: screenshots.base: unknown key (allowed: base_dir, paths)"},
		{"[output]\nnamespace = \"a/b\"", `ctx.toml:2: output.namespace: must be a non-empty name without slashes, not "a/b"`},
		{"[output]\nnamespace = 1", "ctx.toml:2: output.namespace: must be a string, not an integer"},
		{"[output]\ndir = \"x\"", "ctx.toml:2: output.dir: unknown key (allowed: output_dir, namespace, keep)"},
		{"[output]\nkeep = -1", "ctx.toml:2: output.keep: must be how many numbered outputs to keep (0 keeps them all), not -1"},
		{"[output]\nkeep = 2.5", "ctx.toml:2: output.keep: must be how many numbered outputs to keep (0 keeps them all), not 2.5"},
		{"[output]\nkeep = \"all\"", "ctx.toml:2: output.keep: must be how many numbered outputs to keep (0 keeps them all), not \"all\""},
		{"[presets.r]\nfiles = [\"a\"]\nshots = []", "ctx.toml:3: presets.r.shots: unknown key (allowed: description, files, screenshots)"},
		{"[presets]\nr = 1", "ctx.toml:2: presets.r: must be a table, not an integer"},
		{"[presets.r]\ndescription = 2", "ctx.toml:2: presets.r.description: must be a string, not an integer"},
		{"[presets.r]\nfiles = [{ path = \"a\", view_mode = \"x\" }]", `ctx.toml:2: presets.r.files[0].view_mode: must be one of full, summary, skeleton, outline, masked, none, custom, not "x"`},
	} {
		_, err := Decode("ctx.toml", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

func TestDecodePresets(t *testing.T) {
	ps, err := DecodePresets("presets.toml", []byte("[presets.b]\nfiles = [\"x\"]\n\n[presets.a]\ndescription = \"d\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintln(len(ps), ps[0].Name, ps[0].Line, ps[1].Name, ps[1].Description); got != "2 b 1 a d\n" {
		t.Errorf("got %s", got)
	}
	if _, err := DecodePresets("presets.toml", []byte("[files]\npaths = []\n")); err == nil || err.Error() != "presets.toml:1: files: unknown key (allowed: presets)" {
		t.Errorf("got %v", err)
	}
}

// inf says "no limit" for every token budget of ctx.toml, as it does for
// [budgets] and [audit]; so does leaving the key out.
func TestTokenBudgetInf(t *testing.T) {
	for _, src := range []string{"[files]\nmax_tokens = \"inf\"\nmax_file_tokens = inf\n", "[files]\n"} {
		c, err := Decode("ctx.toml", []byte(src+"[history]\nhistory = \"h\"\nmax_tokens = \"inf\"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if c.Aggregate.Files.MaxTokens.IsSet() || c.Aggregate.Files.MaxFileTokens.IsSet() || c.History.MaxTokens.IsSet() {
			t.Errorf("%q: %+v %+v", src, c.Aggregate.Files, c.History)
		}
		if o := c.AggregateOptions("/p", "/h"); o.MaxTokens.IsSet() || o.MaxFileTokens.IsSet() {
			t.Errorf("options %+v", o)
		}
	}
}

// Manual Slop's own entries load: anchor_lines as a list, a SHA-256
// content_hash, selected and injected_at.
func TestDecodeSeedShape(t *testing.T) {
	sha := strings.Repeat("0a", 32)
	src := `[files]
paths = [{ path = "a.py", view_mode = "custom", selected = true, injected_at = 1718000000.5,
  custom_slices = [{ start_line = 2, end_line = 3, tag = "t", content_hash = "` + sha + `", anchor_lines = ["def f():", "    return 1"] }] },
  { path = "b.py", injected_at = 2024-06-10T12:00:00Z }]
`
	c, err := Decode("ctx.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Aggregate.Files.Paths
	if !p[0].Selected || p[0].InjectedAt == nil || p[1].InjectedAt == nil {
		t.Errorf("selected, injected_at: %+v", p)
	}
	s := p[0].CustomSlices[0]
	if s.ContentHash != sha || len(s.AnchorContext) != 2 || s.AnchorBefore != nil || s.HashAlgorithm != "" {
		t.Errorf("slice: %+v", s)
	}
	it := p[0].FileItem()
	if a := it.CustomSlices[0].AnchorLines; len(a.Context) != 2 || a.Context[1] != "    return 1" {
		t.Errorf("item anchors: %+v", a)
	}
}

func TestDecodeTier3(t *testing.T) {
	for _, src := range []string{
		"[files]\npaths = [\"**\"]\nstrategy = \"tier3\"\nfocus = [\"app.py\", \"src/*.c\"]\n",
		"[files]\npaths = [\"**\"]\nfocus = [\"app.py\", \"src/*.c\"]\n",
	} {
		c, err := Decode("ctx.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		o := c.AggregateOptions("/p", "/h")
		if o.Strategy != "tier3" || strings.Join(o.Focus, ",") != "app.py,src/*.c" || o.Section() != "Files (Tier 3 - Focused)" {
			t.Errorf("%q: strategy %q focus %q", src, o.Strategy, o.Focus)
		}
	}
	c, err := Decode("ctx.toml", []byte("[files]\nstrategy = \"tier3\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := c.AggregateOptions("/p", "/h"); o.Section() != "Files (Tier 3 - Focused)" || o.Focus != nil {
		t.Errorf("tier3 without focus: %+v", o)
	}
}
