package measure_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctxaudit/ctx/measure"

	"github.com/ctxaudit/ctx/internal/goldenfile"
	"github.com/ctxaudit/ctx/internal/testlane"
)

// The exact estimators are compared with OpenAI's tiktoken, the reference
// implementation of o200k_base and cl100k_base, on the files of
// testdata/tokens/corpus: each file as a whole and each of its lines. The
// reference counts are kept in testdata/tokens/counts.json, so that the
// comparison also runs offline; TestTokensReference computes them again
// with tiktoken (the npm package, WASM bindings of the official Rust crate)
// and, with CTX_UPDATE=1, rewrites that file. Never edit it by hand.

const (
	corpusDir  = "testdata/tokens/corpus"
	countsFile = "testdata/tokens/counts.json"
	// tiktokenVersion is the npm package the reference counts come from.
	tiktokenVersion = "1.0.22"
)

// refCounts are the reference counts of one file in one encoding.
type refCounts struct {
	Total int   `json:"total"`
	Lines []int `json:"lines"`
}

// reference is counts.json, and the output of testdata/tokens/reference.cjs.
type reference struct {
	Tiktoken string                          `json:"tiktoken"`
	Files    map[string]map[string]refCounts `json:"files"`
}

// encodings maps tiktoken's encoding names to ctx's estimators.
var encodings = []struct {
	name string
	est  measure.Estimator
}{
	{"o200k_base", measure.O200kBase()},
	{"cl100k_base", measure.Cl100kBase()},
}

// corpus returns the corpus files by name.
func corpus(t *testing.T) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(corpusDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// lines splits text after each "\n", as reference.cjs does.
func lines(text []byte) [][]byte {
	var out [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		out = append(out, text[:i])
		text = text[i:]
	}
	return out
}

// compare checks ctx's counts against ref, file by file and line by line.
func compare(t *testing.T, files map[string][]byte, ref reference) {
	t.Helper()
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var refNames []string
	for n := range ref.Files {
		refNames = append(refNames, n)
	}
	sort.Strings(refNames)
	if !reflect.DeepEqual(names, refNames) {
		t.Fatalf("the reference counts cover %q, the corpus is %q: run CTX_UPDATE=1 go test ./measure -run TestTokensReference", refNames, names)
	}
	for _, name := range names {
		text := files[name]
		for _, enc := range encodings {
			want, ok := ref.Files[name][enc.name]
			if !ok {
				t.Errorf("%s: no reference counts for %s", name, enc.name)
				continue
			}
			if got := enc.est.Tokens(text); got != want.Total {
				t.Errorf("%s: %s counts %d tokens, tiktoken %d", name, enc.name, got, want.Total)
			}
			ls := lines(text)
			if len(ls) != len(want.Lines) {
				t.Errorf("%s: %d lines, the reference has %d", name, len(ls), len(want.Lines))
				continue
			}
			for i, l := range ls {
				if got := enc.est.Tokens(l); got != want.Lines[i] {
					t.Errorf("%s:%d: %s counts %d tokens, tiktoken %d: %q", name, i+1, enc.name, got, want.Lines[i], l)
				}
			}
		}
	}
}

// TestTokensGolden compares the exact estimators with the reference counts
// recorded from tiktoken (offline).
func TestTokensGolden(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(countsFile)
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatalf("%s: %v", countsFile, err)
	}
	if ref.Tiktoken != tiktokenVersion {
		t.Errorf("%s comes from tiktoken %s, want %s: run CTX_UPDATE=1 go test ./measure -run TestTokensReference", countsFile, ref.Tiktoken, tiktokenVersion)
	}
	compare(t, corpus(t), ref)
}

// TestTokensReference installs tiktoken with npm into a temporary directory,
// counts the corpus with it and compares ctx's counts with its counts; with
// CTX_UPDATE set it rewrites testdata/tokens/counts.json from them. It is
// skipped when node or npm is missing or the package cannot be installed
// (no network), and with -short.
func TestTokensReference(t *testing.T) {
	testlane.Program(t, "installs tiktoken with npm (the offline comparison is TestTokensGolden)")
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the reference tokenizer needs %s, which is not installed (the offline comparison is TestTokensGolden)", tool)
		}
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefer-offline",
		"--loglevel=error", "--prefix", dir, "tiktoken@"+tiktokenVersion)
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("cannot install tiktoken@%s with npm (%v), so the reference comparison is skipped (the offline one is TestTokensGolden):\n%s",
			tiktokenVersion, err, tail(out))
	}
	script, err := filepath.Abs("testdata/tokens/reference.cjs")
	if err != nil {
		t.Fatal(err)
	}
	corpusAbs, err := filepath.Abs(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	node := exec.CommandContext(ctx, "node", script, corpusAbs)
	node.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	var stderr bytes.Buffer
	node.Stderr = &stderr
	out, err := node.Output()
	if err != nil {
		t.Fatalf("node reference.cjs: %v\n%s", err, stderr.Bytes())
	}
	var ref reference
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("reference.cjs printed invalid JSON: %v", err)
	}
	if ref.Tiktoken != tiktokenVersion {
		t.Fatalf("npm installed tiktoken %s, want %s", ref.Tiktoken, tiktokenVersion)
	}
	compare(t, corpus(t), ref)
	golden := encodeReference(ref)
	if goldenfile.Update() {
		if err := os.WriteFile(countsFile, golden, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if old, err := os.ReadFile(countsFile); err != nil || !bytes.Equal(old, golden) {
		t.Errorf("%s differs from tiktoken's counts: run CTX_UPDATE=1 go test ./measure -run TestTokensReference", countsFile)
	}
}

// encodeReference writes the reference counts with one line per file and
// encoding, sorted, so that a change shows as a readable diff.
func encodeReference(ref reference) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"tiktoken\": %q,\n  \"files\": {\n", ref.Tiktoken)
	var names []string
	for n := range ref.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		fmt.Fprintf(&b, "    %q: {\n", n)
		for j, enc := range encodings {
			c := ref.Files[n][enc.name]
			ls, _ := json.Marshal(c.Lines)
			if c.Lines == nil {
				ls = []byte("[]")
			}
			fmt.Fprintf(&b, "      %q: {\"total\": %d, \"lines\": %s}", enc.name, c.Total, strings.ReplaceAll(string(ls), ",", ", "))
			if j < len(encodings)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("    }")
		if i < len(names)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  }\n}\n")
	return b.Bytes()
}

// tail returns the last lines of a command's output.
func tail(out []byte) string {
	ls := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(ls) > 10 {
		ls = ls[len(ls)-10:]
	}
	return strings.Join(ls, "\n")
}
