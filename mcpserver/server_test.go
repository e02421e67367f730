package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/mcpserver"

	"github.com/ctxaudit/ctx/internal/testwait"
)

// tools lists the tools by name.
func tools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

func TestInitializeAndList(t *testing.T) {
	dir := project(t)
	cs := connect(t, dir, nil)
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "ctx" || init.Capabilities.Tools == nil || init.Capabilities.Resources == nil {
		t.Fatalf("initialize: %+v", init)
	}
	if init.Instructions == "" {
		t.Error("no instructions for the model")
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: description, input schema and output schema are required", tl.Name)
		}
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s: not marked read-only", tl.Name)
		}
		// one type per property: some clients take no type lists
		if in, _ := json.Marshal(tl.InputSchema); bytes.Contains(in, []byte(`"type":[`)) {
			t.Errorf("%s: an input property has a list of types: %s", tl.Name, in)
		}
	}
	slices.Sort(names)
	if want := []string{"audit", "pack", "render", "stats", "verify"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	// the tool list is sent into every session's context: keep it small
	list, _ := json.Marshal(res.Tools)
	if len(list) > 12000 {
		t.Errorf("the tool list is %d bytes of JSON, over 12000", len(list))
	}
	rl, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rl.Resources {
		uris = append(uris, r.URI)
	}
	if want := []string{mcpserver.ManifestURI, mcpserver.SchemaURI}; !slices.Equal(uris, want) {
		t.Errorf("resources %v, want %v", uris, want)
	}
}

// TestSameAsCommand calls every tool and reads every resource, and
// compares each with the output of the command that does the same job:
// the same bytes where they overlap.
func TestSameAsCommand(t *testing.T) {
	dir := project(t)
	runCtx(t, "manifest", "--relative", "-o", filepath.Join(dir, "ctx.manifest.json"), "-C", dir)
	cs := connect(t, dir, nil)
	byName := tools(t, cs)

	t.Run("audit", func(t *testing.T) {
		for _, tc := range []struct {
			args map[string]any
			cmd  []string
		}{
			{nil, []string{"-C", dir}},
			{map[string]any{"profile": "codex", "estimator": "o200k", "layer_tokens": 10, "total_tokens": 100},
				[]string{"-C", dir, "--profile", "codex", "--estimator", "o200k", "--layer-tokens", "10", "--total-tokens", "100"}},
			// 0 is a threshold of zero in both
			{map[string]any{"layer_tokens": 0}, []string{"-C", dir, "--layer-tokens", "0"}},
			// a directory inside the project, with its own (absent) ctx.toml
			{map[string]any{"dir": "src"}, []string{"-C", filepath.Join(dir, "src")}},
		} {
			res := call(t, cs, "audit", tc.args)
			got := ok(t, "audit", res)
			want := runCtx(t, append([]string{"audit", "--format", "json"}, tc.cmd...)...)
			if len(got) != 1 || got[0] != string(want) {
				t.Errorf("audit %v: text differs from ctx audit --format json %v:\n--- tool\n%s\n--- ctx\n%s", tc.args, tc.cmd, strings.Join(got, "\n"), want)
			}
			if !reflect.DeepEqual(decode(t, structuredJSON(t, res)), decode(t, want)) {
				t.Errorf("audit %v: structured content differs from ctx audit --format json", tc.args)
			}
			validOutput(t, byName["audit"], res)
		}
	})

	t.Run("render", func(t *testing.T) {
		res := call(t, cs, "render", map[string]any{"max_tokens": 0})
		got := ok(t, "render", res)
		want := runCtx(t, "render", "-C", dir)
		// the text, and the note that it was redacted
		if len(got) != 2 || got[0] != string(want) || !strings.Contains(got[1], "credentials are redacted") {
			t.Errorf("render differs from ctx render:\n--- tool\n%q\n--- ctx\n%q", got, want)
		}
		validOutput(t, byName["render"], res)

		// a stored manifest, as ctx render --manifest
		res = call(t, cs, "render", map[string]any{"manifest": "ctx.manifest.json"})
		got = ok(t, "render", res)
		want = runCtx(t, "render", "-C", dir, "--manifest", filepath.Join(dir, "ctx.manifest.json"))
		if got[0] != string(want) {
			t.Errorf("render of the stored manifest differs from ctx render --manifest:\n--- tool\n%q\n--- ctx\n%q", got[0], want)
		}

		// cut at max_tokens: a prefix at a token boundary, and a note
		res = call(t, cs, "render", map[string]any{"max_tokens": 20})
		got = ok(t, "render", res)
		full := runCtx(t, "render", "-C", dir)
		if len(got) != 2 || got[0] == "" || !strings.HasPrefix(string(full), got[0]) || len(got[0]) >= len(full) {
			t.Fatalf("render cut at 20 tokens: %q", got)
		}
		if !strings.Contains(got[1], "cut at 20 of ") || !strings.Contains(got[1], "max_tokens 20") {
			t.Errorf("no note on the cut: %q", got[1])
		}
		var out struct {
			Text        string   `json:"text"`
			Tokens      int      `json:"tokens"`
			TotalTokens int      `json:"total_tokens"`
			Truncated   bool     `json:"truncated"`
			Notes       []string `json:"notes"`
		}
		if err := json.Unmarshal(structuredJSON(t, res), &out); err != nil {
			t.Fatal(err)
		}
		if !out.Truncated || out.Tokens > 20 || out.TotalTokens <= 20 || out.Text != got[0] || len(out.Notes) != 2 {
			t.Errorf("structured output of the cut: %+v", out)
		}
		validOutput(t, byName["render"], res)
	})

	t.Run("pack", func(t *testing.T) {
		for _, tc := range []struct {
			args map[string]any
			cmd  []string
		}{
			{map[string]any{"paths": []string{"src/**/*.py", "src/lib/util.go"}, "view": "outline", "max_tokens": 0},
				[]string{"--view", "outline", "--max-tokens", "0", "src/**/*.py", "src/lib/util.go"}},
			{map[string]any{"paths": []string{"src"}, "max_tokens": 150, "max_file_tokens": 120},
				[]string{"--max-tokens", "150", "--max-file-tokens", "120", "src"}},
			// [files] of ctx.toml with its own budget
			{nil, nil},
		} {
			res := call(t, cs, "pack", tc.args)
			got := ok(t, "pack", res)
			md := runCtx(t, append([]string{"aggregate", "--stdout", "--no-history", "--quiet", "-C", dir}, tc.cmd...)...)
			if got[0] != string(md) {
				t.Errorf("pack %v: markdown differs from ctx aggregate --stdout %v:\n--- tool\n%s\n--- ctx\n%s", tc.args, tc.cmd, got[0], md)
			}
			doc := runCtx(t, append([]string{"aggregate", "--format", "json", "--quiet", "-C", dir}, tc.cmd...)...)
			var want, have struct {
				Items   []map[string]any `json:"items"`
				Ignored any              `json:"ignored"`
				Summary any              `json:"summary"`
			}
			if err := json.Unmarshal(doc, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(structuredJSON(t, res), &have); err != nil {
				t.Fatal(err)
			}
			for _, it := range want.Items {
				delete(it, "content") // the markdown holds the text
			}
			if !reflect.DeepEqual(have.Items, want.Items) || !reflect.DeepEqual(have.Summary, want.Summary) || !reflect.DeepEqual(have.Ignored, want.Ignored) {
				t.Errorf("pack %v: rows differ from ctx aggregate --format json %v:\n--- tool\n%v\n%v\n--- ctx\n%v\n%v", tc.args, tc.cmd, have.Items, have.Summary, want.Items, want.Summary)
			}
			validOutput(t, byName["pack"], res)
		}
		// the budget's work is in the rows and the notes
		res := call(t, cs, "pack", map[string]any{"paths": []string{"src"}, "max_tokens": 150, "max_file_tokens": 120})
		got := ok(t, "pack", res)
		if len(got) != 2 || !strings.Contains(got[1], "token budget max_tokens 150, max_file_tokens 120: 2 degraded") || !strings.Contains(got[0], "(Skeleton; token budget)") {
			t.Errorf("pack under a budget does not say what it did: %q", got)
		}
	})

	t.Run("pack default budget", func(t *testing.T) {
		// without max_tokens in [files], the tool's default budget
		// applies, and the notes say so
		if err := os.WriteFile(filepath.Join(dir, "src", "huge.txt"), bytes.Repeat([]byte("word "), 5*mcpserver.DefaultMaxTokens), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(dir, "src", "huge.txt"))
		plain := connect(t, filepath.Join(dir, "src"), nil)
		res := call(t, plain, "pack", nil)
		got := ok(t, "pack", res)
		want := runCtx(t, "aggregate", "--stdout", "--no-history", "--quiet", "--max-tokens", "20000", "-C", filepath.Join(dir, "src"))
		if got[0] != string(want) {
			t.Errorf("pack with the default budget differs from ctx aggregate --max-tokens 20000")
		}
		if !strings.Contains(got[1], "max_tokens is 20000 by default here") || !strings.Contains(got[1], "1 degraded") {
			t.Errorf("the default budget is not stated: %q", got[1])
		}
	})

	t.Run("verify", func(t *testing.T) {
		check := func(drift bool) {
			res := call(t, cs, "verify", nil)
			got := ok(t, "verify", res)
			want := runCtx(t, "verify", "--format", "json", "-C", dir, filepath.Join(dir, "ctx.manifest.json"))
			if got[0] != string(want) {
				t.Errorf("verify differs from ctx verify --format json:\n--- tool\n%s\n--- ctx\n%s", got[0], want)
			}
			if drift != (len(got) == 2 && strings.Contains(got[1], "drifted from ctx.manifest.json")) {
				t.Errorf("verify (drift %v): %q", drift, got[1:])
			}
			validOutput(t, byName["verify"], res)
		}
		check(false)
		if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Rules\nChanged.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		check(true)
	})

	t.Run("stats", func(t *testing.T) {
		for _, tc := range []struct {
			args map[string]any
			cmd  []string
		}{
			{nil, nil},
			{map[string]any{"top": 2, "estimator": "cl100k"}, []string{"--top", "2", "--estimator", "cl100k"}},
			{map[string]any{"tree_threshold": 50, "sort": "tokens", "paths": []string{"src", "docs/*.md"}},
				[]string{"--tree-threshold", "50", "--sort", "tokens", "src", "docs/*.md"}},
		} {
			res := call(t, cs, "stats", tc.args)
			got := ok(t, "stats", res)
			want := runCtx(t, append([]string{"stats", "--format", "json", "-C", dir}, tc.cmd...)...)
			if got[0] != string(want) {
				t.Errorf("stats %v differs from ctx stats --format json %v:\n--- tool\n%s\n--- ctx\n%s", tc.args, tc.cmd, got[0], want)
			}
			if !reflect.DeepEqual(decode(t, structuredJSON(t, res)), decode(t, want)) {
				t.Errorf("stats %v: structured content differs", tc.args)
			}
			validOutput(t, byName["stats"], res)
		}
	})

	t.Run("resources", func(t *testing.T) {
		for uri, args := range map[string][]string{
			mcpserver.ManifestURI: {"manifest", "-C", dir},
			mcpserver.SchemaURI:   {"schema"},
		} {
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("%s: %v", uri, err)
			}
			want := runCtx(t, args...)
			if len(res.Contents) != 1 || res.Contents[0].Text != string(want) {
				t.Errorf("%s differs from ctx %s", uri, strings.Join(args, " "))
			}
		}
	})
}

// TestErrorResults checks that bad input is a tool error with a message
// (never a protocol error), and that no path leaves the project.
func TestErrorResults(t *testing.T) {
	dir := project(t)
	outside := filepath.Join(filepath.Dir(dir), "outside", "secret.txt")
	cs := connect(t, dir, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"pack", map[string]any{"paths": []string{"../outside/secret.txt"}}, "outside the project directory"},
		{"pack", map[string]any{"paths": []string{outside}}, "outside the project directory"},
		{"pack", map[string]any{"paths": []string{"elsewhere/secret.txt"}}, "outside the project directory"},
		{"pack", map[string]any{"paths": []string{"elsewhere/*.txt"}}, "outside the project directory"},
		{"pack", map[string]any{"paths": []string{"src/*/../../../outside/*"}}, "outside the project directory"},
		{"pack", map[string]any{"paths": []string{"src/*/../../.."}}, "outside the project directory"},
		{"pack", map[string]any{"paths": []string{"src"}, "view": "bogus"}, "view: enum: bogus does not equal any of"},
		{"pack", map[string]any{"paths": []string{"src"}, "view": "masked"}, "view: enum: masked"},
		{"pack", map[string]any{"view": "skeleton"}, "view: applies to the paths given"},
		{"pack", map[string]any{"paths": []string{""}}, "paths: must not be empty"},
		{"pack", map[string]any{"max_tokens": -1}, "max_tokens: must be at least 0, not -1"},
		{"stats", map[string]any{"top": 0}, "top: must be at least 1, not 0"},
		{"audit", map[string]any{"layer_tokens": -1}, "layer_tokens: must be at least 0, not -1"},
		// token counts are whole numbers: a fraction is refused, clearly
		{"audit", map[string]any{"layer_tokens": 1.5}, "layer_tokens: must be a whole number, not 1.5"},
		{"audit", map[string]any{"total_tokens": -2.5}, "total_tokens: must be a whole number, not -2.5"},
		{"pack", map[string]any{"max_tokens": 0.5}, "max_tokens: must be a whole number, not 0.5"},
		{"stats", map[string]any{"paths": []string{"/etc"}}, "outside the project directory"},
		{"stats", map[string]any{"top": 1, "tree": true}, "top and tree cannot be used together"},
		{"stats", map[string]any{"max_bytes": 10}, "over max_bytes 10"},
		{"audit", map[string]any{"dir": ".."}, "outside the project directory"},
		{"audit", map[string]any{"dir": "elsewhere"}, "outside the project directory"},
		{"audit", map[string]any{"profile": "nobody"}, "profile: enum"},
		{"audit", map[string]any{"extra": true}, `unexpected additional properties ["extra"]`},
		{"audit", map[string]any{"max_bytes": 100}, "over max_bytes 100"},
		{"render", map[string]any{"manifest": "elsewhere/secret.txt"}, "outside the project directory"},
		{"render", map[string]any{"manifest": outside}, "outside the project directory"},
		{"render", map[string]any{"manifest": "README.md"}, "README.md"},
		{"verify", map[string]any{"manifest": "../outside/secret.txt"}, "outside the project directory"},
		{"verify", nil, "ctx.manifest.json: cannot read"},
	} {
		res := call(t, cs, tc.tool, tc.args)
		got := strings.Join(texts(t, res), "\n")
		if !res.IsError || !strings.Contains(got, tc.want) || !strings.HasPrefix(got, "ctx: error: ") {
			t.Errorf("%s %v: IsError %v, %q; want an error result with %q", tc.tool, tc.args, res.IsError, got, tc.want)
		}
		if strings.Contains(got, "no tool may read this") {
			t.Errorf("%s %v: read a file outside the project", tc.tool, tc.args)
		}
	}
	// a link inside the project that leads out is refused by aggregate too
	// when it is met by a walk: the file is an error row, never read
	res := call(t, cs, "pack", map[string]any{"paths": []string{"."}, "max_tokens": 0})
	for _, text := range ok(t, "pack", res) {
		if strings.Contains(text, "no tool may read this") {
			t.Error("pack of the project read a file outside it through a link")
		}
	}
	// an unknown tool is a protocol error, as the SDK makes it
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"}); err == nil {
		t.Error("an unknown tool is not an error")
	}
}

func TestNewErrors(t *testing.T) {
	dir := project(t)
	for _, o := range []mcpserver.Options{
		{Dir: filepath.Join(dir, "missing")},
		{Dir: " "},
		{Dir: "/"},
		{Dir: dir, Config: filepath.Join(dir, "missing.toml")},
	} {
		if _, err := mcpserver.New(o); err == nil {
			t.Errorf("New(%+v): no error", o)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ctx.toml"), []byte("[files]\nmax_tokens = -3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := mcpserver.New(mcpserver.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "ctx.toml:2") {
		t.Errorf("a bad ctx.toml: %v", err)
	}
}

// TestServeEndsOnEOF runs Serve over pipes: it answers, and returns nil
// once the client closes its input.
func TestServeEndsOnEOF(t *testing.T) {
	dir := project(t)
	srv, err := mcpserver.New(mcpserver.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- mcpserver.Serve(context.Background(), srv, inR, outW) }()
	go func() {
		inW.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo":{"name":"ctx"`) {
		t.Fatalf("no initialize result: %q, %v", line, err)
	}
	inW.Close()
	if err := testwait.Recv(t, done, "Serve after its input closed"); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestManifestResourceTooLarge reads ctx://manifest of a project whose
// files make a manifest over MaxResultBytes: an error that gives the
// size, never a result that clients drop or a cut document.
func TestManifestResourceTooLarge(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "home", ".config"))
	t.Setenv("AGENTS_GLOBAL_MD", "")
	files := map[string][]byte{
		"ctx.toml":  []byte("[files]\npaths = [\"*.txt\"]\n"),
		"AGENTS.md": []byte("# Rules\n"),
	}
	line := bytes.Repeat([]byte("word "), 20)
	line = append(line, '\n')
	for i := 0; i < 9; i++ {
		files[fmt.Sprintf("f%d.txt", i)] = bytes.Repeat(line, 10000) // 1 MB each
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, dir, nil)
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ManifestURI})
	if err == nil || !strings.Contains(err.Error(), "over the 8388608 that one result may carry") {
		t.Errorf("a manifest over MaxResultBytes: %v, want an error that gives its size", err)
	}
	// the session goes on
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.SchemaURI}); err != nil {
		t.Errorf("after the error: %v", err)
	}
}

// TestVerifyConfined: a stored manifest in the project that records a
// source or a file row outside it is refused by verify, which would
// otherwise read that file and report whether it exists and its hash; the
// manifest as ctx writes it verifies.
func TestVerifyConfined(t *testing.T) {
	dir := project(t)
	runCtx(t, "manifest", "--relative", "-o", filepath.Join(dir, "ctx.manifest.json"), "-C", dir)
	data, err := os.ReadFile(filepath.Join(dir, "ctx.manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, dir, nil)
	ok(t, "verify", call(t, cs, "verify", nil))
	for name, edit := range map[string][2]string{
		// every row of the source (its fragments too)
		"source.json": {`"path": "CLAUDE.md"`, `"path": "../outside/secret.txt"`},
		"home.json":   {`"path": "~/.config/agents/GLOBAL.md"`, `"path": "~/outside/secret.txt"`},
		"file.json":   {`"path": "src/app.py"`, `"path": "../outside/secret.txt"`},
	} {
		if !bytes.Contains(data, []byte(edit[0])) {
			t.Fatalf("the manifest has no %s", edit[0])
		}
		b := bytes.ReplaceAll(data, []byte(edit[0]), []byte(edit[1]))
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		res := call(t, cs, "verify", map[string]any{"manifest": name})
		got := strings.Join(texts(t, res), "\n")
		if !res.IsError || !strings.Contains(got, "outside/secret.txt, which is outside the project directory") {
			t.Errorf("verify of %s: error %v, %.300q; want an error for the path outside the project", name, res.IsError, got)
		}
	}
}
