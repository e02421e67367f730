package manifest_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/render"
	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"
)

const (
	fakeAWS = "AKIAJPJOMKEFOIUC5LGT"                     // fake
	fakePAT = "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B" // fake
)

func TestRedactBuild(t *testing.T) {
	agents := "# Deploy\nexport AWS_ACCESS_KEY_ID=" + fakeAWS + "\nthen run make\n"
	conf := "TOKEN = \"" + fakePAT + "\"\n"
	dir := writeTree(t, map[string]string{"AGENTS.md": agents, "conf.py": conf})
	opts := func(budget manifest.Budget) manifest.Options {
		return manifest.Options{
			Discover: discover.Options{Agent: "codex", ProjectDir: dir, Home: t.TempDir(), SharedMode: discover.SharedDisabled},
			Budgets:  manifest.Budgets{{Name: "project", Budget: budget}},
			Files:    &aggregate.Options{Engine: codeview.Engine(), Files: []aggregate.FileItem{{Path: "conf.py"}}},
			Redact:   true,
			Scanner:  defaultScanner(t),
		}
	}
	m, err := manifest.Build(context.Background(), opts(manifest.Budget{}))
	if err != nil {
		t.Fatal(err)
	}
	text := render.Text(m)
	if strings.Contains(text, fakeAWS) || strings.Contains(text, fakePAT) {
		t.Fatalf("a secret was rendered:\n%s", text)
	}
	redAgents := strings.Replace(agents, fakeAWS, "[REDACTED:aws-access-token]", 1)
	if m.Fragments[0].Text != redAgents {
		t.Errorf("fragment %q", m.Fragments[0].Text)
	}
	src := m.Sources[0]
	if *src.SourceHash != measure.Hash([]byte(agents)) || *src.EmittedHash != measure.Hash([]byte(redAgents)) || src.Truncated {
		t.Errorf("source row %+v", src)
	}
	if len(m.Redactions) != 2 {
		t.Fatalf("redactions %+v", m.Redactions)
	}
	r := m.Redactions[0]
	if r.ID != "project_agents" || r.HashBefore != *src.SourceHash || r.HashAfter != measure.Hash([]byte(redAgents)) ||
		len(r.Secrets) != 1 || r.Secrets[0].Rule != "aws-access-token" || r.Secrets[0].Line != 2 {
		t.Errorf("source redaction %+v", r)
	}
	f := m.Redactions[1]
	if f.ID != "file:conf.py" || f.HashBefore != measure.Hash([]byte(conf)) || f.Secrets[0].Rule != "github-pat" {
		t.Errorf("file redaction %+v", f)
	}
	// the manifest is consistent: it round-trips and passes the checks
	data, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := manifest.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the redacted manifest does not decode: %v", err)
	}
	if render.Text(back) != text {
		t.Error("the stored manifest renders differently")
	}
	for _, s := range []string{fakeAWS, fakePAT} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("the manifest holds %s…", s[:6])
		}
	}

	// budgets cut the redacted text: no part of the key is left at any cut
	for n := int64(1); n <= int64(len(redAgents)); n++ {
		m, err := manifest.Build(context.Background(), opts(manifest.Budget{MaxChars: measure.Max(n)}))
		if err != nil {
			t.Fatal(err)
		}
		frag := m.Fragments[0].Text
		if !strings.HasPrefix(redAgents, frag) || strings.Contains(frag, "AKIA") {
			t.Fatalf("max_chars %d: %q", n, frag)
		}
		s := m.Sources[0]
		if s.OmittedChars != len(redAgents)-len(frag) || s.Truncated != (len(frag) < len(redAgents)) {
			t.Fatalf("max_chars %d: omitted %d truncated %v", n, s.OmittedChars, s.Truncated)
		}
	}
	m, err = manifest.Build(context.Background(), opts(manifest.Budget{MaxTokens: measure.Max(5)}))
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Sources[0]; s.OmittedTokens == nil || *s.OmittedTokens != measure.Default().Tokens([]byte(redAgents))-*s.EmittedTokens {
		t.Errorf("omitted tokens %v", s.OmittedTokens)
	}
}

func TestRedactAllowlistAndOff(t *testing.T) {
	dir := writeTree(t, map[string]string{"AGENTS.md": "key " + fakeAWS + "\n"})
	o := manifest.Options{Discover: discover.Options{Agent: "codex", ProjectDir: dir, Home: t.TempDir(), SharedMode: discover.SharedDisabled}}
	m, err := manifest.Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if m.Redactions != nil || !strings.Contains(m.Fragments[0].Text, fakeAWS) {
		t.Error("redacted without Redact")
	}
	o.Redact = true
	if _, err := manifest.Build(context.Background(), o); err == nil {
		t.Error("Redact without a Scanner was accepted")
	}
	if o.Scanner, err = gitleaks.New(secrets.Options{Allow: []secrets.Allow{{Paths: []string{"AGENTS.md"}}}}); err != nil {
		t.Fatal(err)
	}
	if m, err = manifest.Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if m.Redactions != nil || !strings.Contains(m.Fragments[0].Text, fakeAWS) {
		t.Error("an allowed secret was redacted")
	}
	if _, err := gitleaks.New(secrets.Options{Allow: []secrets.Allow{{}}}); err == nil {
		t.Error("an empty allowlist entry was accepted")
	}
}

// defaultScanner is the default scanner of secrets/gitleaks.
func defaultScanner(t *testing.T) secrets.Scanner {
	t.Helper()
	sc, err := gitleaks.Default()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// The history's section and its redactions had the id
// "discussion_history" before it was "history": a manifest written then
// still decodes, to the same manifest as one written now.
func TestDecodeOldHistoryID(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"AGENTS.md": "# Rules\n",
		"chat.json": `{"messages": [{"role": "user", "content": "my token is ` + fakePAT + `"}, {"role": "assistant", "content": "Noted."}]}`,
	})
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{Agent: "codex", ProjectDir: dir, Home: t.TempDir(), SharedMode: discover.SharedDisabled},
		History:  &manifest.HistoryOptions{Path: dir + "/chat.json", Name: "chat.json"},
		Redact:   true,
		Scanner:  defaultScanner(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	const now, before = `"id": "history"`, `"id": "discussion_history"`
	// one section and one redaction (of the message) carry the id
	if n := bytes.Count(data, []byte(now)); n != 2 {
		t.Fatalf("%d ids %s in\n%s", n, now, data)
	}
	old := bytes.ReplaceAll(data, []byte(now), []byte(before))
	got, err := manifest.Decode(bytes.NewReader(old))
	if err != nil {
		t.Fatalf("a manifest with %s does not decode: %v", before, err)
	}
	want, err := manifest.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the old manifest decodes to\n%+v\nwant\n%+v", got, want)
	}
	if got.Sections[len(got.Sections)-1].ID != manifest.SectionHistory || got.Redactions[0].ID != string(manifest.SectionHistory) {
		t.Errorf("sections %+v, redactions %+v", got.Sections, got.Redactions)
	}
	again, err := manifest.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Error("the old manifest is written back with the old id")
	}
}
