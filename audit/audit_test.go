package audit_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/render"
	"github.com/ctxaudit/ctx/schemas/schematest"
)

func str(s string) *string   { return &s }
func num(f float64) *float64 { return &f }

func text(id, s string) discover.Extra { return discover.Extra{ID: id, Kind: "note", Text: str(s)} }

func file(id, p string) discover.Extra { return discover.Extra{ID: id, Kind: "note", Path: str(p)} }

// build builds a manifest from files and extras in a temporary project and
// validates it against the schema.
func build(t *testing.T, files map[string]string, budgets manifest.Budgets, natives []string, extras ...discover.Extra) *manifest.Manifest {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{Agent: "corteza", ProjectDir: dir, Home: dir, NoDiscover: true, NativePaths: natives, Extras: extras},
		Budgets:  budgets,
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Manifest(t, b)
	return m
}

func run(t *testing.T, m *manifest.Manifest, th audit.Thresholds) *audit.Report {
	t.Helper()
	r, err := audit.Run(m, th, nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
}

// f is a finding; msg, when given, is its message.
func f(src string, code audit.Code, sev audit.Severity, rel string, msg ...string) audit.Finding {
	return audit.Finding{SourceID: src, Code: code, Severity: sev, RelatedID: rel, Message: strings.Join(msg, "")}
}

// unDir shows the project directory of m as DIR in the findings' messages.
func unDir(m *manifest.Manifest, fs []audit.Finding) []audit.Finding {
	out := append([]audit.Finding(nil), fs...)
	for i := range out {
		out[i].Message = strings.ReplaceAll(out[i].Message, m.ProjectDir, "DIR")
	}
	return out
}

// TestEveryCode builds one manifest that raises every finding code and
// checks the findings and their order: rows in order, codes in the
// reference's order within a row, the total last.
func TestEveryCode(t *testing.T) {
	t.Parallel()
	nat := func(id, p, ev string, aud ...string) discover.Extra {
		return discover.Extra{ID: id, Kind: "native", Path: str(p), Delivery: "native", NativeEvidence: ev, Audience: aud}
	}
	m := build(t,
		map[string]string{"n.md": "native rules\n", "n2.md": "native rules\n", "bad.md": "\xff", "a.md": "shared text\n"},
		manifest.Budgets{{Name: "cut", Budget: manifest.Budget{MaxChars: measure.Max(7)}}, {Name: "gone", Budget: manifest.Budget{MaxLines: measure.Max(0)}}},
		nil,
		nat("n1", "n.md", "loaded by the agent"),
		nat("n2", "n2.md", ""),               // same bytes as n1: same_content (equivalence) warning, evidence missing
		nat("n3", "other.md", "ev", "codex"), // audience mismatch: excluded, mismatch, missing
		file("dup-native", "n.md"),           // native_overlap
		file("missing", "gone.md"),           // missing
		file("bad", "bad.md"),                // unreadable
		file("a", "a.md"),                    // included
		file("a-path", "./a.md"),             // same_path
		text("a-content", "shared text\n"),   // same_content
		file("missing-again", "gone.md"),     // missing, then same_path (an equivalence, info)
		discover.Extra{ID: "codex-only", Kind: "note", Text: str("x"), Audience: []string{"codex"}},
		text("big", "0123456789012345678901234"), // 25 chars, 7 tokens: oversized with layer 5
		text("cut", "truncate me please"),        // truncated
		text("gone", "exhausted"),                // budget_exhausted: truncated
	)
	r := run(t, m, audit.Thresholds{LayerTokens: measure.Max(5), TotalTokens: measure.Max(10)})
	// every code with its message (the table test of the messages of the
	// sources' codes; files_test.go has the files')
	want := []audit.Finding{
		f("n2", "same_content", "warning", "n1", "same bytes as n1; the agent loads both"), // both native
		f("n2", "native_evidence_missing", "warning", "", "declared native without evidence: name the agent's rule that loads it and where it is documented"),
		f("n3", "missing", "warning", "", "other.md does not exist (named explicitly)"),
		f("n3", "audience_excluded", "info", "", "its audience is codex; the agent is corteza"),
		f("n3", "native_audience_mismatch", "warning", "", "declared native, but its audience codex does not include the agent corteza"),
		f("dup-native", "native_overlap", "info", "n1", "the agent already loads n1 by itself, so it is not sent again"),
		f("missing", "missing", "warning", "", "gone.md does not exist (named explicitly)"),
		f("bad", "unreadable", "warning", "", "bad.md cannot be read: not UTF-8"),
		f("a-path", "same_path", "info", "a", "same file as a, so not sent again"),
		f("a-content", "same_content", "info", "a", "same bytes as a, so not sent again"),
		f("missing-again", "missing", "warning", "", "gone.md does not exist (named explicitly)"),
		f("missing-again", "same_path", "info", "missing", "same file as missing"),
		f("codex-only", "audience_excluded", "info", "", "its audience is codex; the agent is corteza"),
		f("big", "oversized_source", "warning", "", "7 tokens, over 5 per source"),
		f("cut", "truncated", "warning", "", "cut at 7 chars by budget cut, 11 chars omitted"),
		f("gone", "truncated", "warning", "", "left out: budget gone was used up (0 lines left), 9 chars omitted"), // budget_exhausted
		f("", "oversized_total", "warning", "", "12 tokens in total, over 10"),
	}
	if got := unDir(m, r.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings =\n%v\nwant\n%v", got, want)
	}
	// the total is the rendered text, separators included
	rendered := "shared text\n" + "\n\n" + "0123456789012345678901234" + "\n\n" + "truncat"
	if got := render.Text(m); got != rendered {
		t.Fatalf("render = %q, want %q", got, rendered)
	}
	if wantTotal := measure.Measure([]byte(rendered), nil); r.Total != wantTotal || r.Total.Tokens != 12 {
		t.Errorf("total = %+v, want %+v", r.Total, wantTotal)
	}
	if r.Agent != "corteza" || r.Estimator != measure.Default().Name() || len(r.Sources) != len(m.Sources) {
		t.Errorf("report header: %q %q %d sources", r.Agent, r.Estimator, len(r.Sources))
	}
	if !r.Fails("warning") || !r.Fails("info") {
		t.Errorf("Fails: warning %v, info %v; want both", r.Fails("warning"), r.Fails("info"))
	}
}

func TestEquivalenceSeverity(t *testing.T) {
	t.Parallel()
	late := discover.Extra{ID: "late", Kind: "native", Text: str("same"), Delivery: "native", NativeEvidence: "ev", Order: num(10)}
	m := build(t, nil, nil, nil, text("early", "same"), late)
	r := run(t, m, audit.DefaultThresholds())
	want := []audit.Finding{
		f("early", "native_overlap", "info", "late", "the agent already loads late by itself, so it is not sent again"),
		f("late", "same_content", "info", "early", "same bytes as early"), // only one side is native
	}
	if !reflect.DeepEqual(r.Findings, want) {
		t.Errorf("findings = %v, want %v", r.Findings, want)
	}
}

// TestClean pins that natives from native_paths carry evidence (no
// native_evidence_missing) and that a clean manifest has no findings.
func TestClean(t *testing.T) {
	t.Parallel()
	m := build(t, map[string]string{"N.md": "n"}, nil, []string{"N.md"}, text("a", "A"), text("b", "B"))
	r := run(t, m, audit.DefaultThresholds())
	if len(r.Findings) != 0 || r.Findings == nil {
		t.Errorf("findings = %#v, want an empty list", r.Findings)
	}
	if r.Fails("info") || r.Fails("warning") {
		t.Errorf("a clean report fails")
	}
	if r.Total != (measure.Sizes{Bytes: 4, Chars: 4, Lines: 3, Tokens: 1}) {
		t.Errorf("total = %+v, want the sizes of %q", r.Total, "A\n\nB")
	}
}

func TestThresholds(t *testing.T) {
	t.Parallel()
	// "abcdefgh" is 2 tokens; the rendered total "abcdefgh\n\nxyz" is 13 chars, 4 tokens
	m := build(t, nil, nil, nil, text("a", "abcdefgh"), text("b", "xyz"))
	tests := []struct {
		name  string
		th    audit.Thresholds
		codes []string
	}{
		{"defaults", audit.DefaultThresholds(), nil},
		// Max(0) is a threshold of zero, not no limit
		{"zero", audit.Thresholds{LayerTokens: measure.Max(0), TotalTokens: measure.Max(0)}, []string{"a:oversized_source", "b:oversized_source", ":oversized_total"}},
		{"equal is not over", audit.Thresholds{LayerTokens: measure.Max(2), TotalTokens: measure.Max(4)}, nil},
		{"one below", audit.Thresholds{LayerTokens: measure.Max(1), TotalTokens: measure.Max(3)}, []string{"a:oversized_source", ":oversized_total"}},
		{"per source only", audit.Thresholds{LayerTokens: measure.Max(1)}, []string{"a:oversized_source"}},
		{"total only", audit.Thresholds{TotalTokens: measure.Max(3)}, []string{":oversized_total"}},
		// the zero Thresholds checks nothing
		{"unlimited", audit.Thresholds{}, nil},
	}
	for _, tt := range tests {
		r := run(t, m, tt.th)
		var got []string
		for _, x := range r.Findings {
			got = append(got, x.SourceID+":"+string(x.Code))
			if x.Severity != audit.Warning {
				t.Errorf("%s: %v is not a warning", tt.name, x)
			}
		}
		if !reflect.DeepEqual(got, tt.codes) {
			t.Errorf("%s: findings %q, want %q", tt.name, got, tt.codes)
		}
	}
	if th := audit.DefaultThresholds(); th.LayerTokens != measure.Max(8192) || th.TotalTokens != measure.Max(32768) {
		t.Errorf("DefaultThresholds = %+v", th)
	}
	for _, bad := range []struct {
		th   audit.Thresholds
		want string
	}{
		{audit.Thresholds{LayerTokens: measure.Max(-1), TotalTokens: measure.Max(1)}, "layer_tokens must be a nonnegative whole number or inf"},
		{audit.Thresholds{LayerTokens: measure.Max(1), TotalTokens: measure.Max(-1)}, "total_tokens must be a nonnegative whole number or inf"},
		{audit.Thresholds{TotalTokens: measure.Max(-1 << 63)}, "total_tokens must be a nonnegative whole number or inf"},
	} {
		_, err := audit.Run(m, bad.th, nil)
		if err == nil || err.Error() != bad.want {
			t.Errorf("Run(%+v) error = %v, want %q", bad.th, err, bad.want)
		}
		var te *audit.ThresholdError
		if !errors.As(err, &te) || !strings.HasPrefix(bad.want, te.Name+" ") {
			t.Errorf("Run(%+v): %T, want a ThresholdError naming the threshold", bad.th, err)
		}
	}
}

func TestFails(t *testing.T) {
	t.Parallel()
	info := &audit.Report{Findings: []audit.Finding{f("a", "same_content", "info", "b", "same bytes as b")}}
	if info.Fails("warning") || !info.Fails("info") {
		t.Errorf("an info finding: Fails(warning) %v, Fails(info) %v", info.Fails("warning"), info.Fails("info"))
	}
}

// TestStoredManifest audits a manifest read back from JSON: the same report.
func TestStoredManifest(t *testing.T) {
	t.Parallel()
	m := build(t, nil, manifest.Budgets{{Name: "a", Budget: manifest.Budget{MaxChars: measure.Max(2)}}}, nil, text("a", "abc"), file("g", "gone.md"))
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := manifest.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := run(t, m, audit.DefaultThresholds()), run(t, d, audit.DefaultThresholds())
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("audit of the stored manifest differs:\n%+v\n%+v", r1, r2)
	}
	if len(r1.Findings) != 2 || r1.Findings[0].Code != "truncated" || r1.Findings[1].Code != "missing" {
		t.Errorf("findings = %v", r1.Findings)
	}
}

// TestEstimatorFromManifest: without an estimator, the audit counts the
// total with the one the manifest names; an unknown name or another
// estimator is an error.
func TestEstimatorFromManifest(t *testing.T) {
	m := &manifest.Manifest{SchemaVersion: 1, Estimator: "o200k_base, version 1"}
	_, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err == nil || !strings.Contains(err.Error(), `the manifest's estimator: unknown estimator "o200k_base, version 1" (known: "ceiling(characters / 4), version 1" (chars4)`) {
		t.Fatalf("got %v, want an unknown estimator error", err)
	}
	if ee := (*audit.EstimatorError)(nil); !errors.As(err, &ee) || ee.Err == nil || ee.Manifest != "o200k_base, version 1" {
		t.Errorf("unknown: %#v, want an EstimatorError with the cause", err)
	}
	m.Estimator = measure.Default().Name()
	if _, err := audit.Run(m, audit.DefaultThresholds(), nil); err != nil {
		t.Fatalf("matching estimator: %v", err)
	}
	_, err = audit.Run(m, audit.DefaultThresholds(), measure.O200kBase())
	if err == nil || !strings.Contains(err.Error(), `the manifest counts tokens with "ceiling(characters / 4), version 1", not "o200k_base`) {
		t.Fatalf("got %v, want an estimator mismatch error", err)
	}
	if ee := (*audit.EstimatorError)(nil); !errors.As(err, &ee) || ee.Given != measure.O200kBase().Name() || ee.Err != nil {
		t.Errorf("mismatch: %#v, want an EstimatorError with the estimator given", err)
	}

	text := "# Rules\n\nRun go test before you answer. 中文 😀\n"
	m = &manifest.Manifest{SchemaVersion: 1, Estimator: measure.O200kBaseName,
		Sources: []manifest.Source{{ID: "a", Included: true}}, Fragments: manifest.Fragments{{ID: "a", Text: text}}}
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := measure.O200kBase().Tokens([]byte(text)); rep.Total.Tokens != want || rep.Estimator != measure.O200kBaseName {
		t.Errorf("total %d tokens with %q, want %d with o200k", rep.Total.Tokens, rep.Estimator, want)
	}
}

// An unreadable source says why, as the manifest built here found it
// (UnreadableWarnings, what ctx render prints on stderr, and the finding);
// a stored manifest records only the status, so its finding says what
// unreadable can mean.
func TestUnreadableSaysWhy(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "AGENTS.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("\xff\xfe"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{Discover: discover.Options{ProjectDir: dir, Home: dir}, RelativePaths: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"AGENTS.md cannot be read: is a directory", "CLAUDE.md cannot be read: not UTF-8"}
	if got := audit.UnreadableWarnings(m, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("UnreadableWarnings = %q, want %q", got, want)
	}
	messages := func(m *manifest.Manifest) []string {
		var out []string
		for _, f := range run(t, m, audit.DefaultThresholds()).Findings {
			if f.Code == audit.CodeUnreadable {
				out = append(out, f.Message)
			}
		}
		return out
	}
	if got := messages(m); !reflect.DeepEqual(got, want) {
		t.Errorf("findings = %q, want %q", got, want)
	}
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := manifest.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	generic := " cannot be read as text (a directory, a special file, a read error, over the size limit, or not UTF-8)"
	if got := messages(stored); len(got) != 2 || got[0] != "AGENTS.md"+generic {
		t.Errorf("a stored manifest's findings = %q", got)
	}
}
