package gitleaks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxaudit/ctx/internal/goldenfile"
	"github.com/ctxaudit/ctx/secrets"
)

// golden compares got with testdata/name; CTX_UPDATE=1 rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), []byte(got))
}

func scanner(t *testing.T, o Options) *Scanner {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fixture(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/fake-credentials.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFixture scans realistic fake credentials: every kind the audit must
// catch is found, at its line and column, and redaction leaves none of
// them.
func TestFixture(t *testing.T) {
	text := fixture(t)
	s := scanner(t, Options{})
	found, err := s.Scan(context.Background(), "docs/deploy.md", text)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rules := map[string]bool{}
	for _, f := range found {
		fmt.Fprintf(&b, "%d:%d %s (%s) %d bytes\n", f.Line, f.Column, f.Rule, f.Description, f.End-f.Start)
		rules[f.Rule] = true
	}
	golden(t, "fake-credentials.findings", b.String())
	for _, r := range []string{"aws-access-token", "github-pat", "github-fine-grained-pat", "slack-bot-token", "slack-webhook-url", "private-key", "jwt"} {
		if !rules[r] {
			t.Errorf("no %s finding", r)
		}
	}
	red := secrets.Redact(text, found)
	golden(t, "fake-credentials.redacted", red)
	for _, f := range found {
		if secret := text[f.Start:f.End]; strings.Contains(red, secret) {
			t.Errorf("%s: the secret survived redaction", f.Rule)
		}
	}
	again, err := s.Scan(context.Background(), "docs/deploy.md", red)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 {
		t.Errorf("the redacted text still has %d findings: %+v", len(again), again)
	}
	// Scanner.Redact is Scan then Redact
	red2, found2, err := s.Redact(context.Background(), "docs/deploy.md", text)
	if err != nil || red2 != red || len(found2) != len(found) {
		t.Errorf("Scanner.Redact = %d findings, %v; differs from Scan+Redact", len(found2), err)
	}
}

func TestScanPositions(t *testing.T) {
	const key = "AKIAJPJOMKEFOIUC5LGT"
	const pat = "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B"
	tests := []struct {
		name      string
		text      string
		line, col int
	}{
		{"first line", "key=" + key + "\n", 1, 5},
		{"no newline", "key=" + key, 1, 5},
		{"later line", "a\nbb\nkey=" + key + "\n", 3, 5},
		{"last line without newline", "a\nkey=" + key, 2, 5},
		{"CRLF", "a\r\nkey=" + key + "\r\nz\r\n", 2, 5},
		{"characters before it", "é漢字 token " + pat + "\n", 1, 11},
		{"indented in a list", "- x\n  - token: " + pat + "\n", 2, 12},
	}
	s := scanner(t, Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found, err := s.Scan(context.Background(), "x.md", tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != 1 {
				t.Fatalf("%d findings: %+v", len(found), found)
			}
			f := found[0]
			if f.Line != tc.line || f.Column != tc.col {
				t.Errorf("at %d:%d, want %d:%d", f.Line, f.Column, tc.line, tc.col)
			}
			if got := tc.text[f.Start:f.End]; got != key && got != pat {
				t.Errorf("range holds %q", got)
			}
		})
	}
}

func TestDecodedSecretIsRedactedWhereItIsEncoded(t *testing.T) {
	// base64 of "GITHUB_TOKEN=ghp_..."
	const enc = "R0lUSFVCX1RPS0VOPWdocF9SOGZKcTJMeFcwdlQ5bU5jQjRoWWtFMXVac0RhM1BpR29RN2U="
	text := "notes\nblob: " + enc + "\nend\n"
	s := scanner(t, Options{})
	found, err := s.Scan(context.Background(), "x.md", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Rule != "github-pat" || found[0].Line != 2 {
		t.Fatalf("findings %+v", found)
	}
	if got := secrets.Redact(text, found); got != "notes\nblob: [REDACTED:github-pat]\nend\n" {
		t.Errorf("redacted %q", got)
	}
}

// TestGitleaksAllowMarker: a gitleaks:allow comment in a file does not
// hide a secret that is sent; only the project's allowlist allows one.
func TestGitleaksAllowMarker(t *testing.T) {
	s := scanner(t, Options{})
	found, err := s.Scan(context.Background(), "x.md", "key=AKIAJPJOMKEFOIUC5LGT # gitleaks:allow\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 {
		t.Errorf("a line marked gitleaks:allow was not reported: %+v", found)
	}
}

// TestNoPathAllowlist: gitleaks' own path allowlist (lock files, images,
// vendored code) does not skip a text that is sent.
func TestNoPathAllowlist(t *testing.T) {
	s := scanner(t, Options{})
	for _, name := range []string{"docs/logo.svg", "package-lock.json", "go.sum", "node_modules/x/index.js", "gradlew"} {
		found, err := s.Scan(context.Background(), name, "token = \"ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B\"\n")
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 {
			t.Errorf("%s: %d findings", name, len(found))
		}
	}
}

func TestAllowlist(t *testing.T) {
	text := fixture(t)
	all := len(must(scanner(t, Options{}).Scan(context.Background(), "docs/deploy.md", text)))
	tests := []struct {
		name  string
		allow Allow
		path  string
		want  int // findings left
	}{
		{"a rule", Allow{Rules: []string{"jwt"}}, "docs/deploy.md", all - 1},
		{"two rules", Allow{Rules: []string{"jwt", "private-key"}}, "docs/deploy.md", all - 2},
		{"a path that matches", Allow{Paths: []string{"docs/**"}}, "docs/deploy.md", 0},
		{"a path that does not", Allow{Paths: []string{"test/**"}}, "docs/deploy.md", all},
		{"a rule in a path", Allow{Rules: []string{"jwt"}, Paths: []string{"**/*.md"}}, "docs/deploy.md", all - 1},
		{"a rule elsewhere", Allow{Rules: []string{"jwt"}, Paths: []string{"*.txt"}}, "docs/deploy.md", all},
		{"a regex of the secret", Allow{Regexes: []string{"^AKIA"}}, "docs/deploy.md", all - 1},
		{"a regex that matches nothing", Allow{Regexes: []string{"^nothing$"}}, "docs/deploy.md", all},
		{"a source id", Allow{Paths: []string{"**"}}, "project_agents", 0},
		// the allowlist is the project's: never for a file outside it
		{"every path, a file outside", Allow{Paths: []string{"**"}}, "/home/u/.aws/credentials", all},
		{"every rule, a file outside", Allow{Rules: []string{"jwt"}}, "/etc/app.conf", all},
		{"every path, above the project", Allow{Paths: []string{"**"}}, "../other/deploy.md", all},
		{"every path, under ~", Allow{Paths: []string{"**"}}, "~/.aws/credentials", all},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := scanner(t, Options{Allow: []Allow{tc.allow}})
			found, err := s.Scan(context.Background(), tc.path, text)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != tc.want {
				t.Errorf("%d findings, want %d", len(found), tc.want)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestAllowErrors(t *testing.T) {
	tests := []struct {
		allow Allow
		want  string
	}{
		{Allow{Where: "ctx.toml:3"}, "ctx.toml:3: secrets.allow[0]: set at least one of rules, paths and regexes (an empty entry would allow every secret)"},
		{Allow{Paths: []string{"a/[b"}}, `secrets.allow[0]: paths: invalid pattern "a/[b"`},
		{Allow{Regexes: []string{"a(b"}}, "secrets.allow[0]: regexes: error parsing regexp: missing closing ): `a(b`"},
		{Allow{Rules: []string{"github-pats"}}, `secrets.allow[0]: rules: no rule "github-pats" (the rules are gitleaks' ids, as secret findings name them, such as github-pat)`},
		{Allow{Rules: []string{"zzz"}}, `secrets.allow[0]: rules: no rule "zzz" (the rules are gitleaks' ids, as secret findings name them)`},
	}
	for _, tc := range tests {
		_, err := New(Options{Allow: []Allow{tc.allow}})
		var ae *AllowError
		if !errors.As(err, &ae) || err.Error() != tc.want {
			t.Errorf("New(%+v) = %v, want %s", tc.allow, err, tc.want)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		found []Finding
		want  string
	}{
		{"none", "abc", nil, "abc"},
		{"one", "a SECRET b", []Finding{{Rule: "r", Start: 2, End: 8}}, "a [REDACTED:r] b"},
		{"two", "S1 and S2", []Finding{{Rule: "x", Start: 7, End: 9}, {Rule: "y", Start: 0, End: 2}}, "[REDACTED:y] and [REDACTED:x]"},
		{"overlapping", "xxSECRETyy", []Finding{{Rule: "a", Start: 2, End: 6}, {Rule: "b", Start: 4, End: 8}}, "xx[REDACTED:a]yy"},
		{"nested", "xxSECRETyy", []Finding{{Rule: "outer", Start: 1, End: 9}, {Rule: "inner", Start: 3, End: 5}}, "x[REDACTED:outer]y"},
		{"name only", "abc", []Finding{{Rule: "pkcs12-file"}}, "abc"},
		{"out of range", "abc", []Finding{{Rule: "r", Start: 2, End: 9}}, "abc"},
	}
	for _, tc := range tests {
		if got := secrets.Redact(tc.text, tc.found); got != tc.want {
			t.Errorf("%s: Redact = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestRules(t *testing.T) {
	got := secrets.Rules([]Finding{{Rule: "jwt"}, {Rule: "aws-access-token"}, {Rule: "jwt"}})
	if got != "jwt ×2, aws-access-token" {
		t.Errorf("Rules = %q", got)
	}
}

func TestScanStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := scanner(t, Options{}).Scan(ctx, "x.md", fixture(t))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Scan after cancel = %v", err)
	}
}

func TestConcurrentScans(t *testing.T) {
	text := fixture(t)
	s := scanner(t, Options{})
	want := len(must(s.Scan(context.Background(), "a.md", text)))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found, err := s.Scan(context.Background(), "a.md", text)
			if err != nil || len(found) != want {
				t.Errorf("concurrent scan: %d findings, %v", len(found), err)
			}
		}()
	}
	wg.Wait()
}

// FuzzRedact checks that no secret the scanner finds survives redaction,
// and that scanning and redacting never fail on any text.
func FuzzRedact(f *testing.F) {
	f.Add("key=AKIAJPJOMKEFOIUC5LGT\n")
	f.Add("é\nghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B")
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nWQ6DD/2CGKyFkwilZ6lf1dt/wavmVq9s2uENtem4TMTfkPvuLU5WLoMdKzlrzflx\nyZ6sQvEhxYibldoi6BMy8mrCyHQ0oXjUCGLP/GKyR5AMc40m2Ar2EZ5KeSo18Hcd\n-----END RSA PRIVATE KEY-----")
	f.Add("\n\n\nblob: R0lUSFVCX1RPS0VOPWdocF9SOGZKcTJMeFcwdlQ5bU5jQjRoWWtFMXVac0RhM1BpR29RN2U=")
	s, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		found, err := s.Scan(context.Background(), "x.md", text)
		if err != nil {
			t.Fatal(err)
		}
		red := secrets.Redact(text, found)
		for _, fd := range found {
			if fd.Start < 0 || fd.End > len(text) || fd.Start > fd.End {
				t.Fatalf("range %d-%d outside the text", fd.Start, fd.End)
			}
			if fd.End > fd.Start && fd.Line < 1 {
				t.Fatalf("line %d", fd.Line)
			}
		}
		if len(found) > 0 && red == text {
			t.Fatalf("%d findings but nothing redacted", len(found))
		}
	})
}

// A private key cut before its end (a budget that keeps the first lines of
// the file) is still a private key.
func TestPartialPrivateKey(t *testing.T) {
	key := fixture(t)[strings.Index(fixture(t), "-----BEGIN"):]
	lines := strings.SplitAfter(key, "\n")
	s := scanner(t, Options{})
	for _, keep := range []int{2, 5, 10} {
		text := "# notes\n" + strings.Join(lines[:keep], "")
		found, err := s.Scan(context.Background(), "x.md", text)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || found[0].Rule != "private-key" || found[0].Line != 2 {
			t.Fatalf("%d lines of a key: %+v", keep, found)
		}
		red := secrets.Redact(text, found)
		if strings.Contains(red, "WQ6DD") || !strings.HasPrefix(red, "# notes\n[REDACTED:private-key]") {
			t.Errorf("%d lines: redacted %q", keep, red)
		}
	}
	// a header alone, or followed by prose, is no key
	for _, text := range []string{"-----BEGIN RSA PRIVATE KEY-----\n", "-----BEGIN PRIVATE KEY-----\nis how a PEM key starts.\n"} {
		if found, _ := s.Scan(context.Background(), "x.md", text); len(found) != 0 {
			t.Errorf("%q: %+v", text, found)
		}
	}
	// a whole key is found once
	if found, _ := s.Scan(context.Background(), "x.md", key); len(found) != 1 {
		t.Errorf("a whole key: %d findings", len(found))
	}
}
