package audit_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// TestEveryCodeHasAMessage reads the package's source for the declared
// finding codes (constants of type Code) and checks that each has exactly
// one rule, with a summary, and that Rules names no other code.
func TestEveryCodeHasAMessage(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[audit.Code]bool{}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for _, val := range v.Values {
					if lit, ok := val.(*ast.BasicLit); ok {
						declared[audit.Code(strings.Trim(lit.Value, `"`))] = true
					}
				}
			}
		}
	}
	if len(declared) < 16 {
		t.Fatalf("found %d codes in the source: %v", len(declared), declared)
	}
	seen := map[audit.Code]bool{}
	for _, r := range audit.Rules() {
		if seen[r.Code] {
			t.Errorf("%s has two rules", r.Code)
		}
		seen[r.Code] = true
		if !declared[r.Code] {
			t.Errorf("rule %s is not a declared code", r.Code)
		}
		if r.Summary == "" || !strings.HasSuffix(r.Summary, ".") {
			t.Errorf("%s: summary %q is not a sentence", r.Code, r.Summary)
		}
	}
	for c := range declared {
		if !seen[c] {
			t.Errorf("code %s has no entry in rules (messages.go)", c)
		}
	}
}

// TestMessageNumbers pins the wording and the numbers of the messages that
// carry sizes: thousands separators, the limit that cut a source, and what
// was left of a budget.
func TestMessageNumbers(t *testing.T) {
	t.Parallel()
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		name string
		src  manifest.Source
		th   audit.Thresholds
		code audit.Code
		want string
	}{
		{"oversized", manifest.Source{SourceTokens: n(8639)}, audit.Thresholds{LayerTokens: measure.Max(2000)},
			audit.CodeOversizedSource, "8,639 tokens, over 2,000 per source"},
		{"oversized, the default", manifest.Source{SourceTokens: n(8193)}, audit.DefaultThresholds(),
			audit.CodeOversizedSource, "8,193 tokens, over 8,192 per source (ctx's default: Codex reads the first 32 KiB of a file)"},
		{"cut by lines", manifest.Source{Included: true, Truncated: true, Budget: "project", MaxLines: measure.Max(100),
			EmittedLines: n(100), EmittedChars: n(5120), OmittedChars: 3210, OmittedLines: 40},
			audit.DefaultThresholds(), audit.CodeTruncated, "cut at 100 lines by budget project, 3,210 chars omitted"},
		{"cut by chars", manifest.Source{Included: true, Truncated: true, Budget: "notes", MaxChars: measure.Max(2000),
			EmittedLines: n(31), EmittedChars: n(2000), OmittedChars: 1234},
			audit.DefaultThresholds(), audit.CodeTruncated, "cut at 2,000 chars by budget notes, 1,234 chars omitted"},
		{"both limits, lines hit", manifest.Source{Included: true, Truncated: true, Budget: "project", MaxLines: measure.Max(200),
			MaxChars: measure.Max(20000), EmittedLines: n(200), EmittedChars: n(9000), OmittedChars: 12},
			audit.DefaultThresholds(), audit.CodeTruncated, "cut at 200 lines by budget project, 12 chars omitted"},
		{"both limits, chars hit", manifest.Source{Included: true, Truncated: true, Budget: "project", MaxLines: measure.Max(200),
			MaxChars: measure.Max(1500), EmittedLines: n(17), EmittedChars: n(1500), OmittedChars: 12000},
			audit.DefaultThresholds(), audit.CodeTruncated, "cut at 1,500 chars by budget project, 12,000 chars omitted"},
		{"pool used up", manifest.Source{Truncated: true, Reason: manifest.ReasonBudgetExhausted, Budget: "project",
			MaxLines: measure.Max(0), EmittedLines: n(0), EmittedChars: n(0), OmittedChars: 3210, OmittedLines: 80},
			audit.DefaultThresholds(), audit.CodeTruncated, "left out: budget project was used up (0 lines left), 3,210 chars omitted"},
		{"one of each", manifest.Source{Included: true, Truncated: true, Budget: "b", MaxLines: measure.Max(1),
			EmittedLines: n(1), EmittedChars: n(3), OmittedChars: 1},
			audit.DefaultThresholds(), audit.CodeTruncated, "cut at 1 line by budget b, 1 char omitted"},
		{"one token", manifest.Source{SourceTokens: n(1)}, audit.Thresholds{LayerTokens: measure.Max(0)},
			audit.CodeOversizedSource, "1 token, over 0 per source"},
		{"chars used up", manifest.Source{Truncated: true, Reason: manifest.ReasonBudgetExhausted, Budget: "kind",
			MaxChars: measure.Max(0), EmittedChars: n(0), OmittedChars: 1000},
			audit.DefaultThresholds(), audit.CodeTruncated, "left out: budget kind was used up (0 chars left), 1,000 chars omitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.src
			s.ID, s.AudienceMatches = "s", true
			m := &manifest.Manifest{SchemaVersion: 1, Agent: "claude", Sources: []manifest.Source{s}}
			rep, err := audit.Run(m, tc.th, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				if f.Code == tc.code {
					if f.Message != tc.want {
						t.Errorf("message %q, want %q", f.Message, tc.want)
					}
					return
				}
			}
			t.Errorf("no %s finding in %+v", tc.code, rep.Findings)
		})
	}
}

// TestMessagePaths: paths in messages are relative to the project (and show
// the home directory of WriteOptions as ~ outside it, see
// TestMissingMessages).
func TestMessagePaths(t *testing.T) {
	t.Parallel()
	m := build(t, map[string]string{"big.md": strings.Repeat("word ", 32000)}, nil, nil,
		file("notes", "notes/gone.md"), file("big", "big.md"))
	rep := run(t, m, audit.DefaultThresholds())
	doc := audit.NewDocument(rep, audit.WriteOptions{Home: m.ProjectDir})
	want := []string{
		"notes/gone.md does not exist (named explicitly)",
		"40,000 tokens, over 8,192 per source (ctx's default: Codex reads the first 32 KiB of a file)",
		"40,000 tokens in total, over 32,768",
	}
	if len(doc.Findings) != len(want) {
		t.Fatalf("findings %+v", doc.Findings)
	}
	for i, w := range want {
		if doc.Findings[i].Message != w {
			t.Errorf("message %d = %q, want %q", i, doc.Findings[i].Message, w)
		}
	}
	if out := writeString(t, rep, audit.FormatJSON, audit.WriteOptions{Home: m.ProjectDir}); !strings.Contains(out, `"message": "notes/gone.md does not exist (named explicitly)"`) {
		t.Errorf("JSON output:\n%s", out)
	}
}

// TestMissingMessages: a file nobody named and one named explicitly say so.
func TestMissingMessages(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "p")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(t.Context(), manifest.Options{Discover: discover.Options{
		Agent: "claude", ProjectDir: dir, Home: home, Getenv: func(string) string { return "" },
		Extras: []discover.Extra{{ID: "team", Kind: "team", Path: str("~/team.md")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, m, audit.DefaultThresholds())
	doc := audit.NewDocument(rep, audit.WriteOptions{Home: home})
	var got []string
	for _, f := range doc.Findings {
		got = append(got, f.SourceID+": "+f.Message)
	}
	want := []string{
		"shared: ~/.config/agents/GLOBAL.md does not exist (a default location that nobody named)",
		"project_agents: AGENTS.md does not exist (a default location that nobody named)", // relative to the project
		"project_claude: CLAUDE.md does not exist (a default location that nobody named)",
		"team: ~/team.md does not exist (named explicitly)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A token budget's cut says so, with the tokens it left out.
func TestTokenBudgetMessage(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("Always run the tests before you commit.\n", 40)
	max := int64(50)
	m := build(t, map[string]string{"a.md": text}, manifest.Budgets{{Name: "note", Budget: manifest.Budget{MaxTokens: measure.Max(max)}}}, nil, file("a", "a.md"))
	rep := run(t, m, audit.DefaultThresholds())
	var msg string
	for _, f := range rep.Findings {
		if f.Code == audit.CodeTruncated {
			msg = f.Message
		}
	}
	s := m.Sources[0]
	want := fmt.Sprintf("cut at 50 tokens by budget note, %d tokens (%s chars) omitted", *s.OmittedTokens, display(s.OmittedChars))
	if msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
	out := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Home: "/nowhere"})
	if !strings.Contains(out, "note 50/50 tokens") {
		t.Errorf("budget use:\n%s", out)
	}
}

func display(n int) string {
	s := fmt.Sprint(n)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}
