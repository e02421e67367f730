package aggregate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/measure"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// memCache is a Cache in memory that counts its hits.
type memCache struct {
	mu         sync.Mutex
	m          map[string][]byte
	hits, puts int
}

func newMemCache() *memCache { return &memCache{m: map[string][]byte{}} }

func (c *memCache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if ok {
		c.hits++
	}
	return v, ok
}

func (c *memCache) Put(key string, value []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = append([]byte(nil), value...)
	c.puts++
}

// streamCases are the golden cases and token budgets over budgetTree.
func streamCases(t *testing.T) []struct {
	name string
	opts Options
} {
	cases := goldenCases(t)
	for i := range cases {
		cases[i].opts.BaseDir = project
	}
	dir := budgetTree(t)
	for _, b := range []struct {
		max, file int
		focus     []string
	}{{3000, 0, nil}, {800, 0, nil}, {100, 0, nil}, {20, 0, nil}, {0, 500, nil}, {700, 300, nil}, {30, 0, []string{"mid.py"}}} {
		o := Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), Focus: b.focus}
		if b.max > 0 {
			o.MaxTokens = measure.Max(int64(b.max))
		}
		if b.file > 0 {
			o.MaxFileTokens = measure.Max(int64(b.file))
		}
		cases = append(cases, struct {
			name string
			opts Options
		}{fmt.Sprintf("budget_%d_%d_%v", b.max, b.file, b.focus), o})
	}
	return cases
}

// metadata is what the items say but their text, which a Result of
// Stream does not keep: their JSON without content.
func metadata(items []Item) string {
	var b strings.Builder
	for _, it := range items {
		it.Content = ""
		js, err := json.Marshal(it)
		if err != nil {
			panic(err)
		}
		b.Write(js)
		b.WriteByte('\n')
	}
	return b.String()
}

// Stream writes exactly what Run composes, plus a final newline, with the
// same items (without their text) and the same summary, the document's
// tokens included, with every estimator, with and without a cache.
func TestStreamMatchesRun(t *testing.T) {
	ctx := context.Background()
	ests := []string{"chars4", "o200k", "cl100k"}
	if testlane.Race {
		ests = []string{"o200k"} // the streaming is the same with each
	}
	for _, est := range ests {
		e, err := measure.ParseEstimator(est)
		if err != nil {
			t.Fatal(err)
		}
		cache := newMemCache()
		for _, tc := range streamCases(t) {
			o := tc.opts
			o.Estimator = e
			o.Concurrency = 3
			want, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Tokens([]byte(want.Markdown + "\n")); want.Summary().Tokens != got {
				t.Errorf("%s %s: Run counts %d tokens, the estimator %d", est, tc.name, want.Summary().Tokens, got)
			}
			for _, it := range want.Items {
				if b := it.Block(); b != "" && (e.Tokens([]byte(b)) != it.Emitted.Tokens || measure.Hash([]byte(b)) != it.Emitted.Hash) {
					t.Errorf("%s %s: %s measures %d tokens, the estimator counts %d in its block", est, tc.name, it.Path, it.Emitted.Tokens, e.Tokens([]byte(b)))
				}
			}
			for _, c := range []Cache{nil, cache, cache} { // none, cold, warm
				o.Cache = c
				var buf bytes.Buffer
				res, err := Stream(ctx, o, &buf)
				if err != nil {
					t.Fatal(err)
				}
				if buf.String() != want.Markdown+"\n" {
					t.Fatalf("%s %s (cache %v): Stream wrote\n%s\nRun composed\n%s", est, tc.name, c != nil, buf.String(), want.Markdown)
				}
				if metadata(res.Items) != metadata(want.Items) {
					t.Errorf("%s %s: the items differ:\n%s\nwant\n%s", est, tc.name, metadata(res.Items), metadata(want.Items))
				}
				if fmt.Sprint(res.Summary()) != fmt.Sprint(want.Summary()) {
					t.Errorf("%s %s: summary %+v, want %+v", est, tc.name, res.Summary(), want.Summary())
				}
				if res.Markdown != "" || res.Static != "" {
					t.Errorf("%s %s: Stream kept the text", est, tc.name)
				}
				// Run with the cache too
				again, err := Run(ctx, o)
				if err != nil {
					t.Fatal(err)
				}
				if again.Markdown != want.Markdown || metadata(again.Items) != metadata(want.Items) {
					t.Errorf("%s %s: Run with a cache differs", est, tc.name)
				}
			}
		}
		if cache.hits == 0 || cache.puts == 0 {
			t.Errorf("%s: the cache was not used (%d hits, %d puts)", est, cache.hits, cache.puts)
		}
	}
}

// The document's token count adds up pieces cut where the exact
// estimators' pre-tokenizers always cut: checked on documents of Go and
// Python sources, markdown and oddities, against a count of the whole.
func TestDocTokensAddUp(t *testing.T) {
	var pieces [][]byte
	files, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob(filepath.Join(project, "*", "*"))
	for _, f := range append(files, more...) {
		if b, err := os.ReadFile(f); err == nil {
			pieces = append(pieces, b[:min(len(b), 3000)])
		}
	}
	pieces = append(pieces, []byte("x"), []byte("\n"), []byte("  \n"), []byte("/\n/"), []byte("é\n"), []byte("\xff\n#"),
		[]byte("```\n"), []byte("---\n\n"), []byte("a\r\n"), []byte("\t"))
	r := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"o200k", "cl100k", "chars4"} {
		est, _ := measure.ParseEstimator(name)
		for range testlane.Rounds(200, 20) {
			d := newDocument(nil, true, est)
			d.section("## Files\n\n")
			for range 1 + r.IntN(6) {
				p := pieces[r.IntN(len(pieces))]
				if r.IntN(2) == 0 {
					p = p[:r.IntN(len(p)+1)]
				}
				block := append([]byte("### `f`\n\n"), p...)
				if r.IntN(3) == 0 {
					block = []byte("### `f`\n\n```go\n" + string(p) + "\n```")
				}
				d.block(block, Measured{Sizes: measure.Sizes{Tokens: est.Tokens(block), Chars: measure.Chars(block)}})
			}
			if r.IntN(2) == 0 {
				d.whole("## Discussion History\n\n" + string(pieces[r.IntN(len(pieces))]))
			}
			if got, want := d.toks.result(), est.Tokens([]byte(d.keep.String())); got != want {
				t.Fatalf("%s: %d tokens added up, %d counted whole, in\n%q", name, got, want, d.keep.String())
			}
		}
	}
}

// A stream stopped by its context, at any file, leaves no numbered file
// and no temporary file, and reports the context's error.
func TestStreamCancelledLeavesNothing(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("m%02d.py", i)] = strings.Repeat(fmt.Sprintf("def f%d(x):\n    return x\n\n", i), 200)
	}
	dir := tree(t, files)
	for _, budget := range []measure.Limit{{}, measure.Max(500)} {
		for _, stopAt := range []int{1, 10, 39} {
			out := filepath.Join(t.TempDir(), "out")
			ctx, cancel := context.WithCancel(context.Background())
			o := Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "*.py"}}, OutputDir: out, AllowOutside: []string{out}, Concurrency: 2, MaxTokens: budget,
				Progress: func(done, total int) {
					if done == stopAt {
						cancel()
					}
				}}
			var w bytes.Buffer
			res, err := Stream(ctx, o, &w)
			cancel()
			if !errors.Is(err, context.Canceled) || res != nil {
				t.Fatalf("budget %v, stopped at %d: %v, %v", budget, stopAt, res, err)
			}
			ents, _ := os.ReadDir(out)
			if len(ents) > 0 {
				t.Errorf("budget %v, stopped at %d: the output directory holds %v", budget, stopAt, ents)
			}
		}
	}
}

// The numbered file holds what Stream writes to its writer.
func TestStreamNumberedFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	o := Options{Engine: codeview.Engine(), BaseDir: project, Files: withView(ViewSkeleton, codeFiles...), OutputDir: out, AllowOutside: []string{out}, History: "### Discussion Excerpt 1\n\nUser: hi\n"}
	var w bytes.Buffer
	res, err := Stream(context.Background(), o, &w)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(res.OutputPath)
	if err != nil || !bytes.Equal(b, w.Bytes()) || filepath.Base(res.OutputPath) != "ctx_001.md" {
		t.Fatalf("%s: %d bytes, %v; wrote %d", res.OutputPath, len(b), err, w.Len())
	}
	want, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: project, Files: o.Files, History: o.History})
	if err != nil || want.Markdown+"\n" != w.String() {
		t.Fatalf("the numbered file differs from Run's document: %v", err)
	}
	if res2, err := Stream(context.Background(), o, nil); err != nil || filepath.Base(res2.OutputPath) != "ctx_002.md" {
		t.Fatalf("second run: %v, %v", res2, err)
	}
}

// A failing writer stops the stream with its error, and the numbered file
// is not written.
func TestStreamWriteError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	boom := errors.New("disk full")
	_, err := Stream(context.Background(), Options{Engine: codeview.Engine(), BaseDir: project, Files: []FileItem{{Path: "**"}}, OutputDir: out, AllowOutside: []string{out}}, failWriter{boom})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) > 0 {
		t.Errorf("the output directory holds %v", ents)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// Under a token budget a file that changes between its measure and its
// block stops the stream: the document would not be what was measured.
func TestStreamBudgetFileChanged(t *testing.T) {
	dir := budgetTree(t)
	changed := false
	o := Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), MaxTokens: measure.Max(100000), Concurrency: 1,
		Progress: func(done, total int) {
			if done == total && !changed {
				changed = true
				os.WriteFile(filepath.Join(dir, "mid.py"), []byte("changed = True\n"), 0o644)
			}
		}}
	// keep no text, so that every block is rendered again
	_, err := streamWithRetain(o, 0)
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "mid.py") {
		t.Fatalf("err = %v, want mid.py changed", err)
	}
}

// streamWithRetain runs Stream keeping at most n bytes of text between
// the budget and the writing.
func streamWithRetain(o Options, n int64) (*Result, error) {
	old := retainLimit
	retainLimit = n
	defer func() { retainLimit = old }()
	return Stream(context.Background(), o, &bytes.Buffer{})
}

// With no text kept, every block is rendered again (or found in the
// cache) and the document is the same.
func TestStreamBudgetRendersAgain(t *testing.T) {
	for _, tc := range streamCases(t) {
		if !tc.opts.budgeted() {
			continue
		}
		want, err := Run(context.Background(), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []Cache{nil, newMemCache()} {
			o := tc.opts
			o.Cache = c
			var buf bytes.Buffer
			old := retainLimit
			retainLimit = 0
			res, err := Stream(context.Background(), o, &buf)
			retainLimit = old
			if err != nil {
				t.Fatal(err)
			}
			if buf.String() != want.Markdown+"\n" || metadata(res.Items) != metadata(want.Items) {
				t.Errorf("%s: rendered again, the document differs", tc.name)
			}
		}
	}
}
