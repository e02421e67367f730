package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ctxaudit/ctx/measure"
)

func TestDecodeCore(t *testing.T) {
	src := `
agent = "corteza"
workspace_dir = "../workspace"
shared_path = "../GLOBAL.md"
native_paths = ["AGENTS.md"]
discover = false

[[sources]]
id = "note"
kind = "memory"
text = "A note."
order = 2.5
audience = ["claude", "codex"]
delivery = "hook"
origin = "cli"
scope = "session"
config_path = "ctx.toml"
native_evidence = "x"

[[sources]]
id = "file"
kind = "memory"
path = "notes/a.md"
audience = "claude"

[budgets.memory]
max_chars = 12
max_lines = 3

[budgets.note]
max_chars = inf

[budgets.file]
max_lines = "inf"

[audit]
layer_tokens = 2000
total_tokens = inf
`
	c, err := Decode("ctx.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if *c.Agent != "corteza" || *c.WorkspaceDir != "../workspace" || c.SharedPath.Path != "../GLOBAL.md" || c.SharedPath.Disabled {
		t.Errorf("top level: %+v", c)
	}
	if len(c.NativePaths) != 1 || *c.Discover {
		t.Errorf("native_paths/discover: %v %v", c.NativePaths, *c.Discover)
	}
	if len(c.Sources) != 2 {
		t.Fatalf("sources: %d", len(c.Sources))
	}
	s := c.Sources[0]
	if s.ID != "note" || *s.Text != "A note." || *s.Order != 2.5 || strings.Join(s.Audience, ",") != "claude,codex" ||
		s.Delivery != "hook" || s.Origin != "cli" || s.Scope != "session" || s.ConfigPath != "ctx.toml" || s.NativeEvidence != "x" || s.Line != 8 {
		t.Errorf("source 0: %+v", s)
	}
	if s := c.Sources[1]; *s.Path != "notes/a.md" || strings.Join(s.Audience, ",") != "claude" || s.Order != nil || s.Line != 20 {
		t.Errorf("source 1: %+v", s)
	}
	if len(c.Budgets) != 3 || c.Budgets[0].Name != "memory" || c.Budgets[0].MaxChars != measure.Max(12) || c.Budgets[0].MaxLines != measure.Max(3) ||
		c.Budgets[1].Name != "note" || c.Budgets[1].MaxChars.IsSet() || c.Budgets[2].MaxLines.IsSet() || c.Budgets[0].Line != 26 {
		t.Errorf("budgets: %+v", c.Budgets)
	}
	// total_tokens = inf is set, to no limit: it does not keep the default
	if c.Audit.LayerTokens == nil || *c.Audit.LayerTokens != measure.Max(2000) || c.Audit.TotalTokens == nil || c.Audit.TotalTokens.IsSet() {
		t.Errorf("audit: %v %v", c.Audit.LayerTokens, c.Audit.TotalTokens)
	}
}

func TestSharedPathFalse(t *testing.T) {
	c, err := Decode("ctx.toml", []byte("shared_path = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.SharedPath.Set || !c.SharedPath.Disabled {
		t.Errorf("got %+v", c.SharedPath)
	}
	c, err = Decode("ctx.toml", []byte(""))
	if err != nil || c.SharedPath.Set || c.Agent != nil || c.Discover != nil || c.NativePaths != nil {
		t.Errorf("empty file: %+v %v", c, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"malformed", "agent = \n", "ctx.toml:1: invalid TOML"},
		{"unknown top", "agnet = \"x\"\n", "ctx.toml:1: agnet: unknown key"},
		{"agent type", "\nagent = 3\n", "ctx.toml:2: agent: must be a string, not an integer"},
		{"agent blank", "agent = \" \"\n", "ctx.toml:1: agent: must not be empty"},
		{"agent with a terminal escape", "agent = \"claude\\u001b]0;x\\u0007\"\n", `ctx.toml:1: agent: invalid agent name "claude\x1b]0;x\a": no spaces or control characters`},
		{"shared true", "shared_path = true\n", "ctx.toml:1: shared_path: must be a path or false, not true"},
		{"shared number", "shared_path = 1\n", "shared_path: must be a path or false, not an integer"},
		{"shared blank", "shared_path = \"\"\n", "shared_path: must not be empty"},
		{"native not list", "native_paths = \"a\"\n", "native_paths: must be an array of strings, not a string"},
		{"native entry", "native_paths = [\"a\",\n  \"\"]\n", "ctx.toml:2: native_paths[1]: must not be empty"},
		{"discover", "discover = 1\n", "discover: must be a boolean"},
		{"workspace blank", "workspace_dir = \"\"\n", "workspace_dir: must not be empty"},
		{"sources not array", "sources = 1\n", "sources: must be an array of tables"},
		{"source missing id", "[[sources]]\nkind = \"k\"\ntext = \"x\"\n", "ctx.toml:1: sources[0]: missing id"},
		{"source empty id", "[[sources]]\nid = \"\"\nkind = \"k\"\ntext = \"x\"\n", "ctx.toml:2: sources[0].id: must not be empty"},
		{"source empty kind", "[[sources]]\nid = \"a\"\nkind = \" \"\ntext = \"x\"\n", "ctx.toml:3: sources[0].kind: must not be empty"},
		{"source neither", "[[sources]]\nid = \"a\"\nkind = \"k\"\n", "sources[0]: set exactly one of path and text"},
		{"source both", "[[sources]]\nid = \"a\"\nkind = \"k\"\npath = \"p\"\ntext = \"t\"\n", "ctx.toml:5: sources[0].text: set exactly one of path and text, not both"},
		{"source empty path", "[[sources]]\nid = \"a\"\nkind = \"k\"\npath = \"\"\n", "ctx.toml:4: sources[0].path: must not be empty"},
		{"source text type", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = 1\n", "sources[0].text: must be a string, not an integer"},
		{"second source", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"x\"\n[[sources]]\nid = \"b\"\nkind = \"k\"\ntext = \"x\"\nbad = 1\n", "ctx.toml:9: sources[1].bad: unknown key"},
		{"audience empty entry", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"x\"\naudience = [\"\"]\n", "sources[0].audience[0]: must not be empty"},
		{"audience empty list", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"x\"\naudience = []\n", "sources[0].audience: must not be an empty list"},
		{"audience type", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"x\"\naudience = 1\n", "sources[0].audience: must be a string or an array of strings"},
		{"delivery", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"x\"\ndelivery = \"mail\"\n", "sources[0].delivery: must be consumer, hook or native, not \"mail\""},
		{"order string", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"x\"\norder = \"1\"\n", "sources[0].order: must be a number, not a string"},
		{"order inf", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"x\"\norder = inf\n", "sources[0].order: must be a finite number"},
		{"order nan", "[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"x\"\norder = nan\n", "sources[0].order: must be a finite number"},
		{"budgets not table", "budgets = 1\n", "budgets: must be a table, not an integer"},
		{"budget not table", "[budgets]\nx = 1\n", "ctx.toml:2: budgets.x: must be a table, not an integer"},
		{"budget empty", "[budgets.x]\n", "ctx.toml:1: budgets.x: set max_chars, max_lines or max_tokens (at least one)"},
		{"budget other field", "[budgets.x]\nmax_chars = 1\nmax_words = 2\n", "ctx.toml:3: budgets.x.max_words: unknown key (allowed: max_chars, max_lines, max_tokens)"},
		{"budget negative tokens", "[budgets.x]\nmax_tokens = -1\n", "ctx.toml:2: budgets.x.max_tokens: must be a nonnegative whole number or inf, not -1"},
		{"budget fractional tokens", "[budgets.x]\nmax_tokens = 2.5\n", "budgets.x.max_tokens: must be a nonnegative whole number or inf, not 2.5"},
		{"budget string tokens", "[budgets.x]\n\nmax_tokens = \"2k\"\n", "ctx.toml:3: budgets.x.max_tokens: must be a nonnegative whole number or inf, not \"2k\""},
		{"budget boolean tokens", "[budgets.x]\nmax_tokens = true\n", "budgets.x.max_tokens: must be a nonnegative whole number or inf, not a boolean"},
		{"estimator unknown", "agent = \"a\"\nestimator = \"gpt-4o\"\n", "ctx.toml:2: estimator: unknown estimator \"gpt-4o\" (known: chars4, o200k, cl100k)"},
		{"estimator type", "estimator = 4\n", "ctx.toml:1: estimator: must be a string, not an integer"},
		{"estimator manifest name", "estimator = \"o200k_base (tiktoken BPE, special tokens as text), version 1\"\n", "estimator: unknown estimator \"o200k_base (tiktoken BPE, special tokens as text), version 1\" (known: chars4, o200k, cl100k)"},
		{"budget negative", "[budgets.x]\nmax_chars = -1\n", "budgets.x.max_chars: must be a nonnegative whole number or inf, not -1"},
		{"budget fraction", "[budgets.x]\nmax_lines = 1.5\n", "budgets.x.max_lines: must be a nonnegative whole number or inf, not 1.5"},
		{"budget string", "[budgets.x]\nmax_lines = \"ten\"\n", "budgets.x.max_lines: must be a nonnegative whole number or inf, not \"ten\""},
		{"budget -inf", "[budgets.x]\nmax_lines = -inf\n", "budgets.x.max_lines: must be a nonnegative whole number or inf, not -Inf"},
		{"budget nan", "[budgets.x]\nmax_lines = nan\n", "budgets.x.max_lines: must be a nonnegative whole number or inf, not NaN"},
		{"audit negative", "[audit]\nlayer_tokens = -1\n", "ctx.toml:2: audit.layer_tokens: must be a nonnegative whole number or inf, not -1"},
		{"audit string", "[audit]\ntotal_tokens = \"many\"\n", "audit.total_tokens: must be a nonnegative whole number or inf, not \"many\""},
		{"audit fraction", "[audit]\nlayer_tokens = 2.5\n", "ctx.toml:2: audit.layer_tokens: must be a nonnegative whole number or inf, not 2.5"},
		{"audit unknown", "[audit]\ntokens = 1\n", "audit.tokens: unknown key"},
		{"quoted key", "[budgets.\"a b\"]\nmax_chars = -1\n", "ctx.toml:2: budgets.\"a b\".max_chars: must be a nonnegative"},
		{"execution mode", "agent = \"a\"\nexecution_mode = \"mma\"\n", `ctx.toml:2: execution_mode: must be "beads" (the one mode that changes the context; leave the key out otherwise), not "mma"`},
		{"execution mode type", "execution_mode = true\n", "ctx.toml:1: execution_mode: must be a string, not a boolean"},
		{"beads path alone", "beads_path = \"b.jsonl\"\n", `ctx.toml:1: beads_path: applies only with execution_mode = "beads"`},
		{"beads path blank", "execution_mode = \"beads\"\nbeads_path = \" \"\n", "ctx.toml:2: beads_path: must not be empty (leave it out for .beads)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("ctx.toml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// Thresholds are token counts, whole numbers like every limit of
// ctx.toml: a fraction is refused (ctx 0.x took 2.5 as 2), a float
// without one is taken.
func TestFractionalThreshold(t *testing.T) {
	_, err := Decode("ctx.toml", []byte("[audit]\nlayer_tokens = 2.5\n"))
	if want := "ctx.toml:2: audit.layer_tokens: must be a nonnegative whole number or inf, not 2.5"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	c, err := Decode("ctx.toml", []byte("[audit]\nlayer_tokens = 2.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if *c.Audit.LayerTokens != measure.Max(2) {
		t.Errorf("got %v", *c.Audit.LayerTokens)
	}
}

func TestLines(t *testing.T) {
	src := "a = 1\n\n[t]\nb = { c = 1, d = [1,\n 2] }\n[[arr]]\nx = 1\n[[arr]]\n\nx = 2\n[arr.sub]\ny = 3\n"
	d, err := parseDoc("f.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		"a": 1, "t": 3, "t.b": 4, "t.b.c": 4, "t.b.d[1]": 5, "arr[0]": 6, "arr[0].x": 7,
		"arr[1]": 8, "arr[1].x": 10, "arr[1].sub.y": 12, "missing": 0, "t.b.zzz": 4,
	} {
		if got := d.Line(path); got != want {
			t.Errorf("Line(%q) = %d, want %d", path, got, want)
		}
	}
	// quoted keys, and elements of arrays over several lines (an array
	// carries no position: a nested one has its parent's line)
	src = "\"a.b\" = 1\n[\"t[1]\".\"x y\"]\nz = [1, 2,\n  3,\n  [4,\n   5], {q = 6}]\nw = [\n\"a\", \"b\"]\n"
	if d, err = parseDoc("f.toml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		`"a.b"`: 1, `"t[1]"."x y"`: 2, `"t[1]"."x y".z`: 3, `"t[1]"."x y".z[1]`: 3, `"t[1]"."x y".z[2]`: 4,
		`"t[1]"."x y".z[3]`: 3, `"t[1]"."x y".z[3][1]`: 6, `"t[1]"."x y".z[4].q`: 6, `"t[1]"."x y".z[9]`: 3,
		`"t[1]"."x y".w[0]`: 8, `"t[1]"."x y".w[1]`: 8, `"t[1]"."x y".w[1].k`: 8, `"a.b".c`: 1, "a": 0, `"t[1]`: 0,
	} {
		if got := d.Line(path); got != want {
			t.Errorf("Line(%q) = %d, want %d", path, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"agent = \"x\"\n[[sources]]\nid = \"a\"\nkind = \"k\"\ntext = \"t\"\n",
		"[budgets.a]\nmax_chars = 1\n[audit]\nlayer_tokens = inf\n",
		"estimator = \"o200k\"\n[budgets.a]\nmax_lines = 2\nmax_tokens = 30\n",
		"a = { b = [1, { c = 2 }] }\n[[x.y]]\n[x.y.z]\n",
		"shared_path = false\nnative_paths = [\"a\"]\n",
		// nesting, dense tables and long expressions are refused before
		// they are decoded
		"x = " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n",
		"x = " + strings.Repeat("{a = ", 260) + "1" + strings.Repeat("}", 260) + "\n",
		strings.Repeat("a.", 300) + "z = 1\n",
		"[" + strings.Repeat("\"a\".", 300) + "z]\n",
		strings.Repeat("[[a.b]]\nc.d = 1\n", 200),
		"x = [" + strings.Repeat("1,", 6000) + "]\n",
		"x = \"\"\"a.b.c\n\"\"\"\ny = '''\n,,'''\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode("f.toml", data)
		if err == nil && c == nil {
			t.Fatal("nil config without error")
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
	})
}

// TestEstimatorAndTokenBudgets: the estimator key reaches every stage
// (manifest, files, history, aggregate) and max_tokens reaches the budget.
func TestEstimatorAndTokenBudgets(t *testing.T) {
	dir := t.TempDir()
	toml := "agent = \"codex\"\nestimator = \"o200k\"\n[budgets.project]\nmax_tokens = 2000\n[budgets.memory]\nmax_lines = 10\nmax_tokens = \"inf\"\n" +
		"[files]\npaths = [\"a.go\"]\n[history]\nhistory = \"h.json\"\n"
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProject(ProjectOptions{Dir: dir, Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	o := p.ManifestOptions()
	est := measure.O200kBase()
	if o.Estimator != est || o.Files == nil || o.Files.Estimator != est || o.History == nil || o.History.Options.Estimator != est {
		t.Errorf("estimator not set on every stage: %v %+v %+v", o.Estimator, o.Files, o.History)
	}
	if a := p.AggregateOptions(); a.Estimator != est {
		t.Errorf("AggregateOptions().Estimator = %v", a.Estimator)
	}
	if b := o.Budgets[0]; b.Name != "project" || b.MaxTokens != measure.Max(2000) || b.MaxChars.IsSet() || b.MaxLines.IsSet() || b.Where != p.where(3) {
		t.Errorf("budgets.project = %+v", b)
	}
	if b := o.Budgets[1]; b.MaxTokens.IsSet() || b.MaxLines != measure.Max(10) {
		t.Errorf("budgets.memory = %+v (max_tokens inf is no limit)", b)
	}
	// without the key every stage keeps the default (nil)
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("agent = \"codex\"\n[files]\npaths = [\"a.go\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err = LoadProject(ProjectOptions{Dir: dir, Home: dir}); err != nil {
		t.Fatal(err)
	}
	if o := p.ManifestOptions(); o.Estimator != nil || o.Files.Estimator != nil {
		t.Errorf("no estimator key, but %v / %v", o.Estimator, o.Files.Estimator)
	}
}

func TestBeadsOptions(t *testing.T) {
	c, err := Decode("ctx.toml", []byte("agent = \"a\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.BeadsOptions("/p", "/h") != nil {
		t.Error("Beads options without execution_mode")
	}
	c, err = Decode("ctx.toml", []byte("execution_mode = \"beads\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := c.BeadsOptions("/p", "/h")
	if b == nil || b.Path != filepath.Join("/p", ".beads") || b.Name != ".beads" || b.MustExist {
		t.Errorf("default store: %+v", b)
	}
	if o := c.AggregateOptions("/p", "/h"); o.Beads == nil || o.Beads.Path != b.Path {
		t.Errorf("aggregate options: %+v", o.Beads)
	}
	c, err = Decode("ctx.toml", []byte("execution_mode = \"beads\"\n\nbeads_path = \"~/b/issues.jsonl\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	b = c.BeadsOptions("/p", "/h")
	if b.Path != "/h/b/issues.jsonl" || b.Name != "~/b/issues.jsonl" || !b.MustExist || b.Where != "ctx.toml:3: beads_path" {
		t.Errorf("beads_path: %+v", b)
	}
}

// The line index answers as counting the newlines before each offset does,
// whatever the order of the questions.
func TestLineIndex(t *testing.T) {
	data := []byte("a\n\nbc\r\nd\n\n\nefg\nh")
	want := func(off int) int { return 1 + bytes.Count(data[:off], []byte{'\n'}) }
	li := newLineIndex(data)
	ask := func(off int) {
		t.Helper()
		if got := li.line(unstable.Range{Offset: uint32(off)}); got != want(off) {
			t.Errorf("line(%d) = %d, want %d", off, got, want(off))
		}
	}
	for off := 0; off <= len(data); off++ {
		ask(off)
	}
	for off := len(data); off >= 0; off-- {
		ask(off)
	}
	for _, off := range []int{5, 0, 16, 2, 2, 9, 1, 15} {
		ask(off)
	}
	if l := newLineIndex(nil).line(unstable.Range{}); l != 1 {
		t.Errorf("empty file: line %d", l)
	}
}
