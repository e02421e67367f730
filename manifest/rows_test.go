package manifest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

func hash(s string) *string { h := measure.Hash([]byte(s)); return &h }

// sizes returns the pointers Build records for text s.
func sizes(s string) (b, c, l, tk *int) {
	z := measure.Measure([]byte(s), nil)
	return intp(z.Bytes), intp(z.Chars), intp(z.Lines), intp(z.Tokens)
}

func TestSourceSizes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text                      string
		bytes, chars, lines, toks int
		status                    manifest.Status
	}{
		{"", 0, 0, 0, 0, "empty"},
		{"\n", 1, 1, 1, 1, "empty"},
		{"a\n\n", 3, 3, 2, 1, "available"},
		{"a\r\nb\r\n", 6, 6, 2, 2, "available"},
		{"café\r\nnext\n", 12, 11, 2, 3, "available"},
	}
	for _, tt := range tests {
		for _, asFile := range []bool{false, true} {
			dir := project(t, map[string]string{"f.md": tt.text})
			e := text("s", "note", tt.text)
			if asFile {
				e = file("s", "note", "f.md")
			}
			m := build(t, opts(dir, e))
			s := m.Sources[0]
			got := []int{*s.SourceBytes, *s.SourceChars, *s.SourceLines, *s.SourceTokens}
			want := []int{tt.bytes, tt.chars, tt.lines, tt.toks}
			if !reflect.DeepEqual(got, want) || s.Status != tt.status {
				t.Errorf("%q (file %v): sizes %v status %s, want %v %s", tt.text, asFile, got, s.Status, want, tt.status)
			}
			if *s.SourceHash != *hash(tt.text) {
				t.Errorf("%q: source_hash %s, want the BLAKE3 of the raw bytes", tt.text, *s.SourceHash)
			}
			if s.Included {
				if f := fragment(t, m, "s"); f != tt.text {
					t.Errorf("%q: fragment %q, want the bytes unchanged", tt.text, f)
				}
				eb := []int{*s.EmittedBytes, *s.EmittedChars, *s.EmittedLines, *s.EmittedTokens}
				if !reflect.DeepEqual(eb, want) || *s.EmittedHash != *s.SourceHash {
					t.Errorf("%q: emitted %v %s, want %v and the source hash", tt.text, eb, *s.EmittedHash, want)
				}
			}
		}
	}
}

// TestRows pins every field of representative rows, including the choices
// the reference leaves open.
func TestRows(t *testing.T) {
	t.Parallel()
	dir := project(t, map[string]string{
		"AGENTS.md": "\ufeffrules\r\n",
		"bad.md":    "\xff",
		"dir/":      "",
		"e.md":      " \n",
	})
	symlink(t, "AGENTS.md", dir+"/link.md")
	o := opts(dir,
		discover.Extra{ID: "note", Kind: "memory", Text: str("A note."), Order: num(2.5), Audience: []string{"claude", "corteza"},
			Delivery: "hook", Origin: "cli", Scope: "session", ConfigPath: "ctx.toml", NativeEvidence: "ev"},
		file("gone", "memory", "./gone.md"),
		file("bad", "memory", "bad.md"),
		file("dir", "memory", "dir"),
		file("empty", "memory", "e.md"),
		file("link", "memory", "link.md"),
	)
	o.Discover.NoDiscover = false
	o.Discover.NativePaths = []string{"~/native.md"}
	m := build(t, o)

	if m.SchemaVersion != 1 || m.Tool.Name != "ctx" || m.Tool.Version == "" || m.Agent != "corteza" || m.ProjectDir != dir ||
		m.Estimator != "ceiling(characters / 4), version 1" || len(m.Budgets) != 0 {
		t.Errorf("header = %d %+v %q %q %q %+v", m.SchemaVersion, m.Tool, m.Agent, m.ProjectDir, m.Estimator, m.Budgets)
	}
	zero := intp(0)
	agentsText := "\ufeffrules\r\n"
	ab, ac, al, at := sizes(agentsText)
	nb, nc, nl, nt := sizes("A note.")
	eb, ec, el, et := sizes(" \n")
	want := []manifest.Source{
		{ // a native: origin "", missing under ~; canonical_path of a missing file is its path; emitted 0, hash null
			ID: "native:" + dir + "/home/native.md", Kind: "native", Order: 1, RequestedPath: "~/native.md",
			Path: dir + "/home/native.md", CanonicalPath: dir + "/home/native.md", Audience: []string{"*"}, Delivery: "native",
			NativeEvidence: "native_paths argument", Status: "missing", Reason: "native_autoload", AudienceMatches: true,
			HashAlgorithm: "blake3", EmittedBytes: zero, EmittedChars: zero, EmittedLines: zero, EmittedTokens: zero,
		},
		{ // a discovered source: origin "", scope the project; BOM and CRLF kept
			ID: "project_agents", Kind: "project", Order: 2, RequestedPath: dir + "/AGENTS.md", Path: dir + "/AGENTS.md",
			CanonicalPath: dir + "/AGENTS.md", Audience: []string{"*"}, Delivery: "consumer", Scope: dir,
			Status: "available", Included: true, Reason: "included", AudienceMatches: true,
			SourceBytes: ab, SourceChars: ac, SourceLines: al, SourceTokens: at, SourceHash: hash(agentsText), HashAlgorithm: "blake3",
			EmittedBytes: ab, EmittedChars: ac, EmittedLines: al, EmittedTokens: at, EmittedHash: hash(agentsText),
		},
		{ // a text source: paths "", every descriptor field kept
			ID: "note", Kind: "memory", Order: 2.5, Audience: []string{"claude", "corteza"}, Delivery: "hook", Origin: "cli",
			Scope: "session", ConfigPath: "ctx.toml", NativeEvidence: "ev", Status: "available", Included: true, Reason: "included",
			AudienceMatches: true, SourceBytes: nb, SourceChars: nc, SourceLines: nl, SourceTokens: nt, SourceHash: hash("A note."),
			HashAlgorithm: "blake3", EmittedBytes: nb, EmittedChars: nc, EmittedLines: nl, EmittedTokens: nt, EmittedHash: hash("A note."),
		},
		{ // missing and not selected: source sizes null, emitted sizes 0, emitted_hash null
			ID: "project_claude", Kind: "project", Order: 3, RequestedPath: dir + "/CLAUDE.md", Path: dir + "/CLAUDE.md",
			CanonicalPath: dir + "/CLAUDE.md", Audience: []string{"*"}, Delivery: "consumer", Scope: dir,
			Status: "missing", Reason: "missing", AudienceMatches: true, HashAlgorithm: "blake3",
			EmittedBytes: zero, EmittedChars: zero, EmittedLines: zero, EmittedTokens: zero,
		},
		{ // missing: source sizes and hashes null, emitted sizes 0; the path keeps "./", so does canonical_path
			ID: "gone", Kind: "memory", Order: 5, RequestedPath: "./gone.md", Path: dir + "/./gone.md", CanonicalPath: dir + "/./gone.md",
			Audience: []string{"*"}, Delivery: "consumer", Status: "missing", Reason: "missing", AudienceMatches: true, HashAlgorithm: "blake3",
			EmittedBytes: zero, EmittedChars: zero, EmittedLines: zero, EmittedTokens: zero,
		},
		{ // not UTF-8: unreadable, source sizes and hash null, emitted sizes 0
			ID: "bad", Kind: "memory", Order: 6, RequestedPath: "bad.md", Path: dir + "/bad.md", CanonicalPath: dir + "/bad.md",
			Audience: []string{"*"}, Delivery: "consumer", Status: "unreadable", Reason: "unreadable", AudienceMatches: true, HashAlgorithm: "blake3",
			EmittedBytes: zero, EmittedChars: zero, EmittedLines: zero, EmittedTokens: zero,
		},
		{ // a directory: unreadable
			ID: "dir", Kind: "memory", Order: 7, RequestedPath: "dir", Path: dir + "/dir", CanonicalPath: dir + "/dir",
			Audience: []string{"*"}, Delivery: "consumer", Status: "unreadable", Reason: "unreadable", AudienceMatches: true, HashAlgorithm: "blake3",
			EmittedBytes: zero, EmittedChars: zero, EmittedLines: zero, EmittedTokens: zero,
		},
		{ // empty: measured and hashed, emitted 0, emitted_hash null
			ID: "empty", Kind: "memory", Order: 8, RequestedPath: "e.md", Path: dir + "/e.md", CanonicalPath: dir + "/e.md",
			Audience: []string{"*"}, Delivery: "consumer", Status: "empty", Reason: "empty", AudienceMatches: true,
			SourceBytes: eb, SourceChars: ec, SourceLines: el, SourceTokens: et, SourceHash: hash(" \n"), HashAlgorithm: "blake3",
			EmittedBytes: zero, EmittedChars: zero, EmittedLines: zero, EmittedTokens: zero,
		},
		{ // a symlink: canonical_path resolved
			ID: "link", Kind: "memory", Order: 9, RequestedPath: "link.md", Path: dir + "/link.md", CanonicalPath: dir + "/AGENTS.md",
			Audience: []string{"*"}, Delivery: "consumer", Status: "available", Reason: "same_path", DuplicateOf: "project_agents",
			EquivalentTo: "project_agents", Equivalence: "same_path", AudienceMatches: true,
			SourceBytes: ab, SourceChars: ac, SourceLines: al, SourceTokens: at, SourceHash: hash(agentsText), HashAlgorithm: "blake3",
			EmittedBytes: zero, EmittedChars: zero, EmittedLines: zero, EmittedTokens: zero,
		},
	}
	if !reflect.DeepEqual(m.Sources, want) {
		for i := range max(len(want), len(m.Sources)) {
			var g, w manifest.Source
			if i < len(m.Sources) {
				g = m.Sources[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if d := diffSource(g, w); d != "" {
				t.Errorf("row %d (%s): %s", i, w.ID, d)
			}
		}
	}
	wantFrags := manifest.Fragments{
		{ID: want[0].ID, Text: ""}, {ID: "project_agents", Text: agentsText}, {ID: "note", Text: "A note."},
		{ID: "project_claude"}, {ID: "gone"}, {ID: "bad"}, {ID: "dir"}, {ID: "empty"}, {ID: "link"},
	}
	if !reflect.DeepEqual(m.Fragments, wantFrags) {
		t.Errorf("fragments = %q, want %q", m.Fragments, wantFrags)
	}
}

func TestMaxSourceBytes(t *testing.T) {
	t.Parallel()
	dir := project(t, map[string]string{"big.md": "12345", "ok.md": "1234"})
	o := opts(dir, file("big", "note", "big.md"), file("ok", "note", "ok.md"))
	o.MaxSourceBytes = 4
	m := build(t, o)
	if s := row(t, m, "big"); s.Status != "unreadable" || s.SourceBytes != nil {
		t.Errorf("a file over MaxSourceBytes: status %s, bytes %v; want unreadable, null", s.Status, s.SourceBytes)
	}
	if s := row(t, m, "ok"); s.Status != "available" {
		t.Errorf("a file of MaxSourceBytes: status %s, want available", s.Status)
	}
}

func TestEmptyManifest(t *testing.T) {
	t.Parallel()
	m := build(t, opts(project(t, nil)))
	b, _ := manifest.Marshal(m)
	if !strings.Contains(string(b), `"budgets": {},`) || !strings.Contains(string(b), `"sources": [],`) ||
		!strings.Contains(string(b), `"fragments": {}`) {
		t.Errorf("a manifest without sources:\n%s", b)
	}
}

// TestInvalid covers the reference's validation errors that reach Build.
func TestInvalid(t *testing.T) {
	t.Parallel()
	dir := project(t, nil)
	tests := []struct {
		name    string
		mod     func(o *manifest.Options)
		wantErr string
	}{
		{"empty agent", func(o *manifest.Options) { o.Discover.Agent = " " }, "agent: must not be empty"},
		// "" is the working directory; only space, tab, CR and LF is empty
		{"empty project_dir", func(o *manifest.Options) { o.Discover.ProjectDir = " \t" }, "project_dir: must not be empty"},
		{"empty native path", func(o *manifest.Options) { o.Discover.NativePaths = []string{""} }, "native_paths[0]: must not be empty"},
		{"empty id", func(o *manifest.Options) { o.Discover.Extras = []discover.Extra{text("", "k", "t")} }, "sources[0].id: must not be empty"},
		{"empty kind", func(o *manifest.Options) { o.Discover.Extras = []discover.Extra{text("x", "", "t")} }, "sources[0].kind: must not be empty"},
		{"empty path", func(o *manifest.Options) { o.Discover.Extras = []discover.Extra{file("x", "k", " ")} }, "sources[0].path: must not be empty"},
		{"both path and text", func(o *manifest.Options) {
			o.Discover.Extras = []discover.Extra{{ID: "x", Kind: "k", Path: str("p"), Text: str("t")}}
		}, "sources[0]: set exactly one of path and text"},
		{"neither path nor text", func(o *manifest.Options) { o.Discover.Extras = []discover.Extra{{ID: "x", Kind: "k"}} }, "sources[0]: set exactly one of path and text"},
		{"empty audience entry", func(o *manifest.Options) {
			o.Discover.Extras = []discover.Extra{{ID: "x", Kind: "k", Text: str("t"), Audience: []string{""}}}
		}, "sources[0].audience[0]: must not be empty"},
		{"bad delivery", func(o *manifest.Options) {
			o.Discover.Extras = []discover.Extra{{ID: "x", Kind: "k", Text: str("t"), Delivery: "auto"}}
		}, `sources[0].delivery: must be consumer, hook or native, not "auto"`},
		{"duplicate ids", func(o *manifest.Options) {
			o.Discover.Extras = []discover.Extra{text("x", "k", "1"), text("x", "k", "2")}
		}, `sources[1].id: duplicate source id "x"`},
		{"budget matching nothing", func(o *manifest.Options) {
			o.Discover.Extras = []discover.Extra{text("x", "k", "1")}
			o.Budgets = manifest.Budgets{budget("nope", lim(1), noLimit)}
		}, "budgets.nope: matches no source id or kind"},
		{"negative max_chars", func(o *manifest.Options) {
			o.Discover.Extras = []discover.Extra{text("x", "k", "1")}
			o.Budgets = manifest.Budgets{budget("k", lim(-1), noLimit)}
		}, "budgets.k: max_chars must be nonnegative"},
		{"negative max_lines", func(o *manifest.Options) {
			o.Discover.Extras = []discover.Extra{text("x", "k", "1")}
			o.Budgets = manifest.Budgets{budget("x", noLimit, lim(-3))}
		}, "budgets.x: max_lines must be nonnegative"},
		{"budget defined twice", func(o *manifest.Options) {
			o.Discover.Extras = []discover.Extra{text("x", "k", "1")}
			o.Budgets = manifest.Budgets{budget("x", lim(1), noLimit), budget("x", lim(2), noLimit)}
		}, "budgets.x: defined twice"},
		{"budget naming a source that discovery is off for", func(o *manifest.Options) {
			o.Budgets = manifest.Budgets{budget("project_agents", lim(1), noLimit)}
		}, "budgets.project_agents: matches no source id or kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := opts(dir)
			tt.mod(&o)
			m, err := manifest.Build(context.Background(), o)
			if err == nil {
				t.Fatalf("Build succeeded (%d sources), want %q", len(m.Sources), tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestBudgetErrorType(t *testing.T) {
	t.Parallel()
	o := opts(project(t, nil), text("x", "k", "1"))
	o.Budgets = manifest.Budgets{budget("y", lim(1), noLimit)}
	_, err := manifest.Build(context.Background(), o)
	var be *manifest.BudgetError
	if !errors.As(err, &be) || be.Name != "y" {
		t.Errorf("error %v (%T), want a *BudgetError for y", err, err)
	}
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := manifest.Build(ctx, opts(project(t, nil), text("x", "k", "1"))); !errors.Is(err, context.Canceled) {
		t.Errorf("Build with a canceled context: %v", err)
	}
}

func TestUnreadablePermission(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := project(t, map[string]string{"secret.md": "x"})
	if err := os.Chmod(dir+"/secret.md", 0); err != nil {
		t.Fatal(err)
	}
	m := build(t, opts(dir, file("s", "note", "secret.md")))
	if s := row(t, m, "s"); s.Status != "unreadable" || s.SourceBytes != nil {
		t.Errorf("an unreadable file: %s %v", s.Status, s.SourceBytes)
	}
}

// diffSource lists the fields where got and want differ, as JSON values.
func diffSource(got, want manifest.Source) string {
	var out []string
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			out = append(out, fmt.Sprintf("%s = %s, want %s", gv.Type().Field(i).Tag.Get("json"), gj, wj))
		}
	}
	return strings.Join(out, "; ")
}
