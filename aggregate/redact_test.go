package aggregate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

const fakePAT = "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B" // fake

func TestRedactFiles(t *testing.T) {
	conf := "KEY = \"" + fakePAT + "\"\n\n\ndef f():\n    return KEY\n"
	dir := testfs.Tree(t, map[string]string{
		"conf.py": conf,
		"skel.py": conf,
		"bin.dat": "\x00" + fakePAT,
		"ok.py":   "x = 1\n",
	})
	sc, err := secrets.New(secrets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := aggregate.Run(context.Background(), aggregate.Options{BaseDir: dir, Redact: sc, Files: []aggregate.FileItem{
		{Path: "conf.py"}, {Path: "skel.py", ViewMode: aggregate.ViewSkeleton}, {Path: "bin.dat"}, {Path: "ok.py"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Markdown, fakePAT) {
		t.Fatalf("the key was aggregated:\n%s", res.Markdown)
	}
	by := map[string]aggregate.Item{}
	for _, it := range res.Items {
		by[it.Path] = it
	}
	red := strings.Replace(conf, fakePAT, "[REDACTED:github-pat]", 1)
	c := by["conf.py"]
	if c.Redacted == nil || c.Redacted.HashAfter != measure.Hash([]byte(red)) || c.Source.Hash != measure.Hash([]byte(conf)) ||
		len(c.Redacted.Secrets) != 1 || c.Redacted.Secrets[0].Line != 1 {
		t.Errorf("conf.py: %+v", c.Redacted)
	}
	if !strings.Contains(by["skel.py"].Content, "[REDACTED:github-pat]") {
		t.Errorf("skeleton: %q", by["skel.py"].Content)
	}
	if by["bin.dat"].Redacted != nil || by["ok.py"].Redacted != nil {
		t.Error("a binary or clean file was redacted")
	}
	if got := res.RedactionSummary(); got != "2 credentials redacted (github-pat ×2) in conf.py, skel.py" {
		t.Errorf("summary %q", got)
	}
	plain, err := aggregate.Run(context.Background(), aggregate.Options{BaseDir: dir, Files: []aggregate.FileItem{{Path: "conf.py"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plain.Markdown, fakePAT) || plain.RedactionSummary() != "" {
		t.Error("redacted without Options.Redact")
	}
}
