package stats

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/testfs"
)

// statsFixture: files in the base directory, below it, a sibling whose
// name sorts between "a" and "a/..." byte-wise, one outside and one that
// could not be read.
func statsFixture() *Report {
	return New([]aggregate.FileStats{
		{Path: "a/z.go", Lines: 10, Symbols: 2, Bytes: 4000, Tokens: 1000},
		{Path: "a-b/c.md", Lines: 5, Bytes: 800, Tokens: 200},
		{Path: "a/b/c.go", Lines: 20, Symbols: 3, Bytes: 8000, Tokens: 2000},
		{Path: "README.md", Lines: 1, Bytes: 40, Tokens: 10},
		{Path: "../lib/x.py", Lines: 3, Symbols: 1, Bytes: 120, Tokens: 30},
		{Path: "gone.txt", Error: "file not found: gone.txt"},
		{Path: "a/b/logo.png", Bytes: 64, Binary: true},
	})
}

func TestReportDirs(t *testing.T) {
	r := statsFixture()
	if want := (Totals{Files: 6, Lines: 39, Symbols: 6, Bytes: 13024, Tokens: 3240}); r.Total != want {
		t.Errorf("total %+v, want %+v", r.Total, want)
	}
	show := func(ds []Dir) string {
		var parts []string
		for _, d := range ds {
			var es []string
			for _, e := range d.Entries {
				es = append(es, e.Path)
			}
			parts = append(parts, fmt.Sprintf("%s=%d/%d[%s]", d.Dir, d.Files, d.Tokens, strings.Join(es, " ")))
		}
		return strings.Join(parts, " ")
	}
	// subtree totals; "." holds neither ../lib nor the unreadable file's
	// numbers; a directory comes right before what it holds
	if got, want := show(r.Dirs(ByPath)),
		".=5/3210[README.md gone.txt] ../lib=1/30[../lib/x.py] a=3/3000[a/z.go] a/b=2/2000[a/b/c.go a/b/logo.png] a-b=1/200[a-b/c.md]"; got != want {
		t.Errorf("by path:\n got %s\nwant %s", got, want)
	}
	if got, want := show(r.Dirs(ByTokens)),
		".=5/3210[README.md gone.txt] a=3/3000[a/z.go] a/b=2/2000[a/b/c.go a/b/logo.png] a-b=1/200[a-b/c.md] ../lib=1/30[../lib/x.py]"; got != want {
		t.Errorf("by tokens:\n got %s\nwant %s", got, want)
	}
	if got := New(nil).Dirs(""); len(got) != 0 {
		t.Errorf("no files: %+v", got)
	}
	// a chain of directories without files of their own: the rows that
	// would repeat the one below are left out; a fork keeps its row
	chain := New([]aggregate.FileStats{{Path: "src/main/java/App.java", Tokens: 5}, {Path: "lib/a/x.go", Tokens: 1}, {Path: "lib/b/y.go", Tokens: 2}})
	if got, want := show(chain.Dirs("")), ".=3/8[] lib=2/3[] lib/a=1/1[lib/a/x.go] lib/b=1/2[lib/b/y.go] src/main/java=1/5[src/main/java/App.java]"; got != want {
		t.Errorf("chain:\n got %s\nwant %s", got, want)
	}
}

func TestReportTop(t *testing.T) {
	r := statsFixture()
	paths := func(fs []aggregate.FileStats) string {
		var ps []string
		for _, f := range fs {
			ps = append(ps, f.Path)
		}
		return strings.Join(ps, " ")
	}
	for _, tc := range []struct {
		n    int
		by   Sort
		want string
	}{
		{3, "", "a/b/c.go a/z.go a-b/c.md"},
		{3, ByTokens, "a/b/c.go a/z.go a-b/c.md"},
		{3, ByPath, "a/b/c.go a/z.go a-b/c.md"},
		{2, ByPath, "a/b/c.go a/z.go"},
		{10, "", "a/b/c.go a/z.go a-b/c.md ../lib/x.py README.md a/b/logo.png"}, // never the unreadable file
		{0, "", ""},
		{-1, "", ""},
	} {
		if got := paths(r.Top(tc.n, tc.by)); got != tc.want {
			t.Errorf("Top(%d, %q) = %s, want %s", tc.n, tc.by, got, tc.want)
		}
	}
}

func TestWrite(t *testing.T) {
	r := statsFixture()
	for _, tc := range []struct {
		name string
		o    WriteOptions
		want string
	}{
		{"tree", WriteOptions{Tree: true, Sort: ByTokens}, `./ (3,240 tokens, 6 files)
├── a/ (3,000 tokens, 3 files)
│   ├── b/ (2,000 tokens, 2 files)
│   │   ├── c.go (2,000 tokens)
│   │   └── logo.png (binary, 64 bytes)
│   └── z.go (1,000 tokens)
├── a-b/ (200 tokens, 1 file)
│   └── c.md (200 tokens)
├── ../ (30 tokens, 1 file)
│   └── lib/ (30 tokens, 1 file)
│       └── x.py (30 tokens)
├── README.md (10 tokens)
└── gone.txt (error: file not found: gone.txt)
`},
		{"tree threshold", WriteOptions{Tree: true, TreeThreshold: 1000}, `./ (3,240 tokens, 6 files)
├── a/ (3,000 tokens, 3 files)
│   ├── b/ (2,000 tokens, 2 files)
│   │   ├── c.go (2,000 tokens)
│   │   └── … 1 more entry below 1,000 tokens (0 tokens, 1 file)
│   └── z.go (1,000 tokens)
├── gone.txt (error: file not found: gone.txt)
└── … 3 more entries below 1,000 tokens (240 tokens, 3 files)
`},
		{"markdown top", WriteOptions{Format: Markdown, Top: 2}, "| path | files | lines | symbols | bytes | tokens | note |\n" +
			"| --- | ---: | ---: | ---: | ---: | ---: | --- |\n" +
			"| `a/b/c.go` |  | 20 | 3 | 8,000 | 2,000 |  |\n" +
			"| `a/z.go` |  | 10 | 2 | 4,000 | 1,000 |  |\n" +
			"| **total** | 6 | 39 | 6 | 13,024 | 3,240 | top 2 of 6 files; 1 file not read |\n"},
		{"json top", WriteOptions{Format: JSON, Top: 1}, `{
  "total": {
    "files": 6,
    "lines": 39,
    "symbols": 6,
    "bytes": 13024,
    "tokens": 3240
  },
  "top": [
    {
      "path": "a/b/c.go",
      "lines": 20,
      "symbols": 3,
      "bytes": 8000,
      "tokens": 2000
    }
  ],
  "ignored": []
}
`},
	} {
		var b bytes.Buffer
		if err := Write(&b, r, tc.o); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", tc.name, b.String(), tc.want)
		}
	}
}

func TestWriteTableFits(t *testing.T) {
	long := strings.Repeat("directory/", 12) + "file.go"
	r := New([]aggregate.FileStats{
		{Path: long, Lines: 1234567, Bytes: 98765432, Tokens: 24691358},
		{Path: "x|y.md", Error: strings.Repeat("a long error message ", 6)},
	})
	for _, width := range []int{0, 100, 120} {
		var b bytes.Buffer
		if err := Write(&b, r, WriteOptions{Width: width}); err != nil {
			t.Fatal(err)
		}
		limit := width
		if limit == 0 {
			limit = DefaultWidth
		}
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > limit {
				t.Errorf("width %d: line of %d columns: %q", width, n, line)
			}
		}
		if !strings.Contains(b.String(), "24,691,358") || !strings.Contains(b.String(), "…") {
			t.Errorf("width %d: no separators or no cut path:\n%s", width, b.String())
		}
	}
	var b bytes.Buffer
	if err := Write(&b, r, WriteOptions{Format: Markdown}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| `x\\|y.md` |") {
		t.Errorf("markdown: a pipe in a path is not escaped:\n%s", b.String())
	}
}

func TestWriteErrors(t *testing.T) {
	r := statsFixture()
	for _, o := range []WriteOptions{
		{Format: "csv"}, {Sort: "size"}, {Top: -1}, {Tree: true, TreeThreshold: -1}, {Top: 1, Tree: true},
	} {
		var b bytes.Buffer
		if err := Write(&b, r, o); err == nil || b.Len() > 0 {
			t.Errorf("%+v: err %v, wrote %q", o, err, b.String())
		}
	}
	for _, s := range []string{"", "Path", "size"} {
		if _, err := ParseSort(s); err == nil {
			t.Errorf("ParseSort(%q): no error", s)
		}
	}
	if _, err := ParseFormat("markdown"); err != nil {
		t.Error(err)
	}
}

// At 80 columns the largest files of a big project keep their file names
// (the directories are cut), the numbers stay whole, and the note goes
// under the table; the tree cuts long names to fit (issue 9 review).
func TestWriteNarrow(t *testing.T) {
	var files []aggregate.FileStats
	for i := range 2973 {
		files = append(files, aggregate.FileStats{Path: fmt.Sprintf("packages/server/src/handlers/generated/h%04d.ts", i), Lines: 10, Bytes: 400, Tokens: 100})
	}
	files = append(files,
		aggregate.FileStats{Path: "packages/server/src/handlers/user-authentication.test.ts", Lines: 12345, Symbols: 1234, Bytes: 1234567, Tokens: 308641},
		aggregate.FileStats{Path: "packages/client/src/components/dashboard/widgets/chart.test.ts", Lines: 9999, Symbols: 99, Bytes: 999999, Tokens: 250000},
		aggregate.FileStats{Path: "gone.ts", Error: "file not found: gone.ts"})
	r := New(files)
	var b bytes.Buffer
	if err := Write(&b, r, WriteOptions{Top: 5, Width: 80}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	for _, want := range []string{"…/user-authentication.test.ts |", "/widgets/chart.test.ts", "1,234,567", "308,641",
		"\ntop 5 of 2,975 files; 1 file not read\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "| files |") || strings.Contains(out, "| note") {
		t.Errorf("a files or note column in\n%s", out)
	}
	b.Reset()
	if err := Write(&b, r, WriteOptions{Tree: true, TreeThreshold: 200000, Width: 60}); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 60 {
			t.Errorf("tree line %d is %d columns: %q", i+1, n, line)
		}
	}
}

// Run measures the files of the entries and groups them: the base
// directory's subtree, then d's.
func TestRun(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"a.py": "def f():\n    pass\n", "d/b.txt": "one\ntwo\nthree\n", "d/c.bin": "\x00\x01"})
	st, err := Run(context.Background(), aggregate.Options{BaseDir: dir, Files: []aggregate.FileItem{{Path: "**"}, {Path: "*.rs"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", st.Dirs(ByPath))
	want := "[{Dir:. Totals:{Files:3 Lines:5 Symbols:0 Bytes:34 Tokens:9} Entries:[{Path:*.rs Lines:0 Symbols:0 Bytes:0 Tokens:0 Binary:false Error:no files matched: *.rs} {Path:a.py Lines:2 Symbols:0 Bytes:18 Tokens:5 Binary:false Error:}]} " +
		"{Dir:d Totals:{Files:2 Lines:3 Symbols:0 Bytes:16 Tokens:4} Entries:[{Path:d/b.txt Lines:3 Symbols:0 Bytes:14 Tokens:4 Binary:false Error:} {Path:d/c.bin Lines:0 Symbols:0 Bytes:2 Tokens:0 Binary:true Error:}]}]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
