package codeview

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctxaudit/ctx/internal/treesitter"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// The corpus tests run the views over real code: the Python standard library
// of this machine's python3 and the Go standard library under GOROOT. By
// default they check a deterministic sample (every corpusStride-th file in
// sorted order); CTX_CORPUS=full checks every file.

const corpusStride = 10

func corpusSample(files []string) []string {
	sort.Strings(files)
	if os.Getenv("CTX_CORPUS") == "full" {
		return files
	}
	var out []string
	for i := 0; i < len(files); i += corpusStride {
		out = append(out, files[i])
	}
	return out
}

// pyChecker compiles each original and skeleton and compares their class
// and function names (qualified, as a multiset, not looking inside function
// bodies, since a skeleton elides those), and checks that the outline lists
// every class and function of Python's own parser (nested ones included)
// with its line range: from the first decorator to end_lineno. It reads
// "orig\tskeleton\toutline" lines on stdin and writes one JSON object per
// line.
const pyChecker = `
import ast, json, re, sys, warnings
warnings.simplefilter("ignore")

def names(tree):
    out = []
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(prefix + child.name)
            elif isinstance(child, ast.ClassDef):
                out.append(prefix + child.name)
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)
    walk(tree, "")
    return sorted(out)

OUTLINE = re.compile(r"^ *\[(?:Class|Func|Async Func|Method|Async Method)\] (\S+) \(Lines (\d+)-(\d+)\)$")

def ranges(tree):
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            out.append((node.name, start, node.end_lineno))
    return sorted(out)

def outline_ranges(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = OUTLINE.match(line.rstrip("\n"))
            if m:
                out.append((m.group(1).rsplit(".", 1)[-1], int(m.group(2)), int(m.group(3))))
    return sorted(out)

def range_errors(src_lines, want, got):
    # tree-sitter ends a block after the comments indented inside it, Python
    # after the last statement: an outline range may only go further over
    # comment and blank lines
    if len(want) != len(got):
        return "%d symbols, the parser has %d: missing %s, extra %s" % (
            len(got), len(want), sorted(set(want) - set(got))[:10], sorted(set(got) - set(want))[:10])
    bad = []
    for w, g in zip(want, got):
        ok = w[:2] == g[:2] and g[2] >= w[2]
        if ok:
            for l in src_lines[w[2]:g[2]]:
                t = l.strip()
                if t and not t.startswith(b"#"):
                    ok = False
        if not ok:
            bad.append("%s %d-%d, the parser says %d-%d" % (g[0], g[1], g[2], w[1], w[2]))
    return "; ".join(bad[:10])

def load(path):
    with open(path, "rb") as f:
        data = f.read()
    compile(data, path, "exec", dont_inherit=True)
    return names(ast.parse(data, path))

for line in sys.stdin:
    orig, skel, outl = line.rstrip("\n").split("\t")
    res = {"path": orig}
    try:
        want = load(orig)
    except (SyntaxError, ValueError, UnicodeDecodeError) as e:
        res["skip"] = "original does not compile: %s" % e
        print(json.dumps(res), flush=True)
        continue
    try:
        got = load(skel)
    except (SyntaxError, ValueError, UnicodeDecodeError) as e:
        res["error"] = "skeleton does not compile: %s" % e
        print(json.dumps(res), flush=True)
        continue
    if got != want:
        res["error"] = "names differ: missing %s, extra %s" % (
            sorted(set(want) - set(got))[:10], sorted(set(got) - set(want))[:10])
    elif outl != "-":
        with open(orig, "rb") as f:
            data = f.read()
        err = range_errors(data.split(b"\n"), ranges(ast.parse(data, orig)), outline_ranges(outl))
        if err:
            res["error"] = "outline ranges: " + err
    print(json.dumps(res), flush=True)
`

func TestCorpusPythonStdlib(t *testing.T) {
	testlane.Slow(t, "parses a whole standard library")
	testlane.Heavy(t, "parses a whole standard library")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: cannot check skeletons against the Python standard library")
	}
	out, err := exec.Command(py, "-c", `import sysconfig;print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		t.Skipf("python3 cannot report its stdlib path: %v", err)
	}
	stdlib := strings.TrimSpace(string(out))
	var files []string
	err = filepath.WalkDir(stdlib, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "site-packages" || d.Name() == "dist-packages" || d.Name() == "__pycache__") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".py") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Skipf("no Python sources under %s (%v)", stdlib, err)
	}
	files = corpusSample(files)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var list strings.Builder
	var viewErrors []string
	tsErrors := 0
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		skel, err := Skeleton(ctx, Python, src)
		if err != nil {
			viewErrors = append(viewErrors, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		outline, err := Outline(ctx, Python, src)
		if err != nil {
			viewErrors = append(viewErrors, fmt.Sprintf("%s: outline: %v", f, err))
			continue
		}
		sp := filepath.Join(dir, fmt.Sprintf("%05d.py", i))
		if err := os.WriteFile(sp, []byte(skel), 0o644); err != nil {
			t.Fatal(err)
		}
		// where tree-sitter recovers from a parse error that Python does
		// not have, its ranges cannot be Python's: skip the comparison
		op := "-"
		if !pyTreeHasError(t, src) {
			op = filepath.Join(dir, fmt.Sprintf("%05d.outline", i))
			if err := os.WriteFile(op, []byte(outline), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			tsErrors++
		}
		fmt.Fprintf(&list, "%s\t%s\t%s\n", f, sp, op)
	}

	cmd := exec.CommandContext(ctx, py, "-c", pyChecker)
	cmd.Stdin = strings.NewReader(list.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	checked, skipped := 0, 0
	var failures []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var res struct{ Path, Skip, Error string }
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			t.Fatalf("bad checker output %q: %v", sc.Text(), err)
		}
		switch {
		case res.Skip != "":
			skipped++
		case res.Error != "":
			checked++
			failures = append(failures, res.Path+": "+res.Error)
		default:
			checked++
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("python checker: %v\n%s", err, stderr.String())
	}
	failures = append(failures, viewErrors...)
	t.Logf("python stdlib %s: %d files sampled, %d checked, %d skipped (original does not compile), %d with tree-sitter parse errors (outline ranges not compared), %d failures",
		stdlib, len(files), checked, skipped, tsErrors, len(failures))
	for i, f := range failures {
		if i == 20 {
			t.Errorf("... and %d more failures", len(failures)-20)
			break
		}
		t.Error(f)
	}
	if checked == 0 {
		t.Error("no file was checked")
	}
}

// pyTreeHasError reports whether tree-sitter finds a parse error in src.
func pyTreeHasError(t *testing.T, src []byte) bool {
	t.Helper()
	g, _ := grammar(Python)
	tree, err := treesitter.Parse(context.Background(), g, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	return tree.Root().HasError()
}
