package aggregate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/measure"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/testlane"
)

// budgetTree is a project with files of very different sizes: big.py
// (about 3000 tokens in full), mid.py (about 600), small.py (8) and
// notes.txt (about 600, no structural views).
func budgetTree(t *testing.T) string {
	t.Helper()
	fn := func(name string, n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "def %s(a, b):\n    \"\"\"Doc of %s.\"\"\"\n", name, name)
		for i := range n {
			fmt.Fprintf(&b, "    x%d = %d * 2  # some arithmetic to make the body long\n", i, i)
		}
		b.WriteString("    return a + b\n")
		return b.String()
	}
	var big, mid, notes []string
	for i := range 10 {
		big = append(big, fn(fmt.Sprintf("f%d", i), 20))
	}
	for i := range 4 {
		mid = append(mid, fn(fmt.Sprintf("g%d", i), 10))
	}
	for i := range 60 {
		notes = append(notes, fmt.Sprintf("line %d of notes with some words in it", i))
	}
	return tree(t, map[string]string{
		"big.py":    "import os\n\n" + strings.Join(big, "\n"),
		"mid.py":    "import sys\n\n" + strings.Join(mid, "\n"),
		"small.py":  "X = 1\n",
		"notes.txt": strings.Join(notes, "\n") + "\n",
	})
}

func budgetFiles() []FileItem {
	return []FileItem{{Path: "big.py"}, {Path: "mid.py"}, {Path: "small.py"}, {Path: "notes.txt"}}
}

type itemState struct {
	path     string
	status   Status
	view     ViewMode
	degraded string
}

func states(items []Item) []itemState {
	out := make([]itemState, len(items))
	for i, it := range items {
		out[i] = itemState{it.Path, it.Status, it.ViewMode, it.Degraded}
	}
	return out
}

func blockTokens(items []Item) int {
	n := 0
	for _, it := range items {
		n += it.Emitted.Tokens
	}
	return n
}

func TestBudgetOffByDefault(t *testing.T) {
	dir := budgetTree(t)
	plain, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles()})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range plain.Items {
		if it.Degraded != "" || it.Status != StatusOK || it.ViewMode != ViewFull {
			t.Errorf("no budget, yet %+v", it)
		}
	}
	// a budget that everything fits in changes nothing either
	roomy, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), MaxTokens: measure.Max(int64(1 << 20)), MaxFileTokens: measure.Max(int64(1 << 20))})
	if err != nil {
		t.Fatal(err)
	}
	if roomy.Markdown != plain.Markdown {
		t.Errorf("a roomy budget changed the markdown")
	}
}

func TestBudgetFileCap(t *testing.T) {
	dir := budgetTree(t)
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), MaxFileTokens: measure.Max(int64(500))})
	want := []itemState{
		{"big.py", StatusOK, ViewSkeleton, "full → skeleton (max_file_tokens 500)"},
		{"mid.py", StatusOK, ViewSkeleton, "full → skeleton (max_file_tokens 500)"},
		{"small.py", StatusOK, ViewFull, ""},
		// no structural view for text: straight to the summary
		{"notes.txt", StatusOK, ViewSummary, "full → summary (max_file_tokens 500)"},
	}
	if got := states(items); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	for _, it := range items {
		if it.Emitted.Tokens > 500 {
			t.Errorf("%s: %d tokens over the cap", it.Path, it.Emitted.Tokens)
		}
		if it.RequestedViewMode != ViewFull {
			t.Errorf("%s: requested %q", it.Path, it.RequestedViewMode)
		}
		if it.Degraded != "" && !strings.HasSuffix(it.Header, "; token budget)") {
			t.Errorf("%s: header %q does not say it was degraded", it.Path, it.Header)
		}
		if it.Emitted != measured([]byte(it.Block()), nil) {
			t.Errorf("%s: emitted sizes do not measure the block", it.Path)
		}
	}
	if items[0].Header != "### `big.py` (Skeleton; token budget)" || items[3].Header != "### `notes.txt` (Summary; token budget)" {
		t.Errorf("headers: %q, %q", items[0].Header, items[3].Header)
	}
}

func TestBudgetTotalLargestFirst(t *testing.T) {
	dir := budgetTree(t)
	for _, tc := range []struct {
		max  int
		want []itemState
	}{
		// big.py alone is degraded: the largest block goes first
		{3000, []itemState{
			{"big.py", StatusOK, ViewSkeleton, "full → skeleton (max_tokens 3000)"},
			{"mid.py", StatusOK, ViewFull, ""},
			{"small.py", StatusOK, ViewFull, ""},
			{"notes.txt", StatusOK, ViewFull, ""},
		}},
		// then mid.py (622 tokens) before notes.txt (590)
		{800, []itemState{
			{"big.py", StatusOK, ViewSkeleton, "full → skeleton (max_tokens 800)"},
			{"mid.py", StatusOK, ViewSkeleton, "full → skeleton (max_tokens 800)"},
			{"small.py", StatusOK, ViewFull, ""},
			{"notes.txt", StatusOK, ViewFull, ""},
		}},
		// every byte counts: mid.py's skeleton and the separators no
		// longer fit beside big.py's summary
		{100, []itemState{
			{"big.py", StatusOK, ViewSummary, "full → skeleton → outline → summary (max_tokens 100)"},
			{"mid.py", StatusOK, ViewSummary, "full → skeleton → outline → summary (max_tokens 100)"},
			{"small.py", StatusOK, ViewFull, ""},
			{"notes.txt", StatusOmitted, ViewSummary, "full → summary → omitted (max_tokens 100)"},
		}},
		// small.py and the names of the others fit
		{40, []itemState{
			{"big.py", StatusOmitted, ViewSummary, "full → skeleton → outline → summary → omitted (max_tokens 40)"},
			{"mid.py", StatusOmitted, ViewSummary, "full → skeleton → outline → summary → omitted (max_tokens 40)"},
			{"small.py", StatusOK, ViewFull, ""},
			{"notes.txt", StatusOmitted, ViewSummary, "full → summary → omitted (max_tokens 40)"},
		}},
		// everything goes, and the list is a count
		{20, []itemState{
			{"big.py", StatusOmitted, ViewSummary, "full → skeleton → outline → summary → omitted (max_tokens 20)"},
			{"mid.py", StatusOmitted, ViewSummary, "full → skeleton → outline → summary → omitted (max_tokens 20)"},
			{"small.py", StatusOmitted, ViewFull, "full → omitted (max_tokens 20)"},
			{"notes.txt", StatusOmitted, ViewSummary, "full → summary → omitted (max_tokens 20)"},
		}},
	} {
		res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), MaxTokens: measure.Max(int64(tc.max))})
		if err != nil {
			t.Fatal(err)
		}
		if got := states(res.Items); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("max_tokens %d:\n got  %v\nwant %v", tc.max, got, tc.want)
		}
		if n := measure.Default().Tokens([]byte(res.Markdown + "\n")); n > tc.max || n != res.Summary().Tokens {
			t.Errorf("max_tokens %d: %d tokens written, the summary says %d", tc.max, n, res.Summary().Tokens)
		}
		for _, it := range res.Items {
			if it.Status == StatusOmitted {
				if it.Block() != "" || it.Emitted != (Measured{}) || strings.Contains(res.Markdown, "### `"+it.Path+"`") {
					t.Errorf("max_tokens %d: omitted %s is still rendered", tc.max, it.Path)
				}
				if !strings.Contains(res.Markdown, OmittedHeading+"\n") || it.unlisted == strings.Contains(res.Markdown, "\n- `"+it.Path+"` (") {
					t.Errorf("max_tokens %d: omitted %s is listed: %v, unlisted %v", tc.max, it.Path, !it.unlisted, it.unlisted)
				}
			}
		}
		switch want := map[int]string{
			40: "## Files\n\n### `small.py`\n\n```py\nX = 1\n```\n\n---\n\n" + OmittedHeading +
				"\n\n- `big.py` (2,985 tokens)\n- `mid.py` (616 tokens)\n- `notes.txt` (583 tokens)",
			20: "## Files\n\n" + OmittedHeading + "\n\n- 4 files left out",
		}[tc.max]; {
		case want != "" && res.Markdown != want:
			t.Errorf("max_tokens %d: markdown\n%s\nwant\n%s", tc.max, res.Markdown, want)
		}
		// deterministic
		again, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), MaxTokens: measure.Max(int64(tc.max))})
		if err != nil {
			t.Fatal(err)
		}
		if again.Markdown != res.Markdown || fmt.Sprint(states(again.Items)) != fmt.Sprint(states(res.Items)) {
			t.Errorf("max_tokens %d: two runs differ", tc.max)
		}
	}
}

func TestBudgetTiesLaterFirst(t *testing.T) {
	body := strings.Repeat("same words on every line\n", 40)
	dir := tree(t, map[string]string{"a.txt": body, "b.txt": body})
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "a.txt"}, {Path: "b.txt"}}, MaxTokens: measure.Max(int64(400))})
	if items[0].Degraded != "" || items[1].Degraded != "full → summary (max_tokens 400)" {
		t.Errorf("tie: %v", states(items))
	}
}

func TestBudgetBothLimits(t *testing.T) {
	dir := budgetTree(t)
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), MaxFileTokens: measure.Max(int64(500)), MaxTokens: measure.Max(int64(150))})
	if d := items[0].Degraded; d != "full → skeleton (max_file_tokens 500) → outline → summary (max_tokens 150)" {
		t.Errorf("big.py: %q", d)
	}
	if n := blockTokens(items); n > 150 {
		t.Errorf("%d tokens emitted", n)
	}
}

func TestBudgetProtected(t *testing.T) {
	dir := budgetTree(t)
	files := budgetFiles()
	files[0].ForceFull = true
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: files, MaxFileTokens: measure.Max(int64(500)), MaxTokens: measure.Max(int64(3100))})
	// force_full is exempt from the per-file cap, and the others are
	// degraded (even omitted) before it
	if items[0].ViewMode != ViewFull || items[0].Degraded != "" {
		t.Errorf("force_full degraded: %+v", states(items)[0])
	}
	for _, it := range items[1:] {
		if it.Path != "small.py" && it.Degraded == "" {
			t.Errorf("%s not degraded before the force_full file", it.Path)
		}
	}
	// when nothing else is left, the protected file goes too
	items = build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: files, MaxTokens: measure.Max(int64(50))})
	if items[0].Degraded == "" || blockTokens(items) > 50 {
		t.Errorf("protected file never degraded: %v", states(items))
	}
	// Tier 3 focus files are protected as well
	items = build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), Focus: []string{"notes.txt"}, MaxTokens: measure.Max(int64(700))})
	if items[3].ViewMode != ViewFull || items[3].Degraded != "" || !items[3].Focus {
		t.Errorf("focus file degraded: %v", states(items))
	}
}

// max_tokens never takes out an error block nor touches an excluded
// file; a view none block, which has no cheaper view, is omitted whole.
func TestBudgetLeavesErrorsAndExcluded(t *testing.T) {
	dir := budgetTree(t)
	files := append(budgetFiles(), FileItem{Path: "*.rs"})
	files[1].NoAutoAggregate = true
	files[3].ViewMode = ViewNone
	for _, max := range []int{40, 60, 80} {
		res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: files, MaxTokens: measure.Max(int64(max))})
		if err != nil {
			t.Fatal(err)
		}
		if n := measure.Default().Tokens([]byte(res.Markdown + "\n")); n > max {
			t.Errorf("max_tokens %d: %d tokens", max, n)
		}
		for _, it := range res.Items {
			switch {
			case it.Path == "*.rs":
				if it.Status != StatusError || it.Degraded != "" || it.Block() == "" || !strings.Contains(res.Markdown, it.Block()) {
					t.Errorf("max_tokens %d: error item touched: %+v", max, it)
				}
			case it.Path == "mid.py":
				if it.Status != StatusOK || it.Degraded != "" || it.Block() != "" {
					t.Errorf("max_tokens %d: excluded item touched: %+v", max, it)
				}
			}
		}
	}
	// notes.txt (as a view none block) goes at 40, as a whole
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: files, MaxTokens: measure.Max(int64(40))})
	if it := items[3]; it.Path != "notes.txt" || it.Status != StatusOmitted || it.Degraded != "none → omitted (max_tokens 40)" {
		t.Errorf("view none: %+v", states(items))
	}
}

func TestBudgetCustomAndSummaryNotCheaper(t *testing.T) {
	// a two-line custom slice of a long file: the outline and the summary
	// are not smaller, so the next step is omitted
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("def f%d():\n    return %d", i, i))
	}
	dir := tree(t, map[string]string{"m.py": strings.Join(lines, "\n") + "\n"})
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, MaxTokens: measure.Max(int64(30)), Files: []FileItem{{
		Path: "m.py", ViewMode: ViewCustom, CustomSlices: []slice.Slice{{StartLine: 1, EndLine: 20, Tag: "t"}},
	}}})
	if it := items[0]; it.Status != StatusOmitted || it.Degraded != "custom → omitted (max_tokens 30)" || len(it.Slices) != 1 {
		t.Errorf("custom: %+v", states(items))
	}
}

// The list of what max_tokens left out names the files, in order, as far
// as the room allows, then counts the rest.
func TestBudgetOmittedList(t *testing.T) {
	files := map[string]string{}
	var entries []FileItem
	for i := range 30 {
		name := fmt.Sprintf("f%02d.txt", i)
		files[name] = strings.Repeat(fmt.Sprintf("line of file %d\n", i), 30)
		entries = append(entries, FileItem{Path: name})
	}
	dir := tree(t, files)
	ests := []measure.Estimator{measure.Default(), measure.O200kBase(), measure.Cl100kBase()}
	if testlane.Race {
		ests = ests[:1] // the budget's concurrency is the same with each; the full lane tries all three
	}
	for _, est := range ests {
		listed := map[int]bool{}
		for max := 14; max < 400; max += 19 {
			res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: entries, MaxTokens: measure.Max(int64(max)), Estimator: est})
			var be *BudgetError
			if errors.As(err, &be) {
				if max > 30 {
					t.Errorf("%s max_tokens %d: %v", est.Name(), max, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := est.Tokens([]byte(res.Markdown + "\n")); n > max || n != res.Summary().Tokens {
				t.Fatalf("%s max_tokens %d: %d tokens written, the summary says %d", est.Name(), max, n, res.Summary().Tokens)
			}
			_, list, ok := strings.Cut(res.Markdown, OmittedHeading+"\n\n")
			if !ok {
				t.Fatalf("%s max_tokens %d: no list of what was left out:\n%s", est.Name(), max, res.Markdown)
			}
			// the names come first, in order, then the count of the others
			var names []string
			omitted, unlisted := 0, 0
			for _, it := range res.Items {
				if it.Status != StatusOmitted {
					continue
				}
				omitted++
				if it.unlisted {
					unlisted++
				} else {
					if unlisted > 0 {
						t.Fatalf("%s max_tokens %d: %s is named after files that are not", est.Name(), max, it.Path)
					}
					names = append(names, "- `"+it.Path+"` ("+display.Plural(it.Source.Tokens, "token")+")")
				}
			}
			switch {
			case unlisted == omitted:
				names = append(names, fmt.Sprintf("- %d files left out", omitted))
			case unlisted > 0:
				names = append(names, fmt.Sprintf("- … and %d more %s left out", unlisted, map[bool]string{true: "file", false: "files"}[unlisted == 1]))
			}
			if want := strings.Join(names, "\n"); list != want {
				t.Fatalf("%s max_tokens %d: list\n%s\nwant\n%s", est.Name(), max, list, want)
			}
			if s := res.Summary(); s.Unlisted != unlisted || s.Omitted != omitted {
				t.Errorf("%s max_tokens %d: summary %+v, want %d omitted, %d unlisted", est.Name(), max, s, omitted, unlisted)
			}
			listed[omitted-unlisted] = true
		}
		// the budgets went from a count alone to several names
		if !listed[0] || len(listed) < 3 {
			t.Errorf("%s: names listed: %v", est.Name(), listed)
		}
	}
}

// A budget that what it cannot leave out exceeds is an error, and nothing
// is written: not to the writer, not a numbered file.
func TestBudgetTooSmall(t *testing.T) {
	dir := budgetTree(t)
	for _, tc := range []struct {
		name string
		opts Options
		what string
	}{
		{"the list", Options{Engine: codeview.Engine(), MaxTokens: measure.Max(int64(15))}, "max_tokens 15 is too small: even with all 4 files left out, the document takes 16 tokens (the files heading and the line that counts them)"},
		{"an error block", Options{Engine: codeview.Engine(), MaxTokens: measure.Max(int64(20)), Files: append(budgetFiles(), FileItem{Path: "*.rs"})}, "(the files heading and the line that counts them, 1 error block)"},
		{"the history", Options{Engine: codeview.Engine(), MaxTokens: measure.Max(int64(30)), History: strings.Repeat("User: a long question\n", 20)}, ", the Discussion History)"},
	} {
		o := tc.opts
		o.BaseDir, o.OutputDir = dir, filepath.Join(dir, "out")
		if o.Files == nil {
			o.Files = budgetFiles()
		}
		var b bytes.Buffer
		_, err := Stream(context.Background(), o, &b)
		var be *BudgetError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), tc.what) {
			t.Errorf("%s: %v, want a BudgetError with %q", tc.name, err, tc.what)
		}
		if b.Len() > 0 {
			t.Errorf("%s: %d bytes written", tc.name, b.Len())
		}
		if ents, _ := os.ReadDir(o.OutputDir); len(ents) > 1 || len(ents) == 1 && ents[0].Name() != ".gitignore" {
			t.Errorf("%s: the output directory holds %v", tc.name, ents)
		}
	}
}

func TestBudgetNegative(t *testing.T) {
	if _, err := BuildItems(context.Background(), Options{Engine: codeview.Engine(), MaxTokens: measure.Max(int64(-1))}); err == nil {
		t.Error("negative max_tokens accepted")
	}
	if _, err := BuildItems(context.Background(), Options{Engine: codeview.Engine(), MaxFileTokens: measure.Max(int64(-1))}); err == nil {
		t.Error("negative max_file_tokens accepted")
	}
}

func TestFormatSteps(t *testing.T) {
	for _, tc := range []struct {
		steps []budgetStep
		want  string
	}{
		{[]budgetStep{{"skeleton", "a"}}, "full → skeleton (a)"},
		{[]budgetStep{{"skeleton", "a"}, {"outline", "a"}}, "full → skeleton → outline (a)"},
		{[]budgetStep{{"skeleton", "a"}, {"outline", "b"}, {"omitted", "b"}}, "full → skeleton (a) → outline → omitted (b)"},
	} {
		if got := formatSteps(ViewFull, tc.steps); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// referenceBudget is the budget as it was first written, and counted as
// plainly as it can be: a scan of every item for the largest block at each
// step, each view rendered when a step needs it, from the file's bytes in
// srcs, and the whole document (with the sections of tail after the files
// and the final newline) composed and counted again after every step. The
// heap, the ladders, the re-reading and the piecewise count must give
// exactly its result. It returns false when what the budget cannot leave
// out does not fit.
func referenceBudget(ctx context.Context, o Options, items []Item, srcs map[string][]byte, tail ...string) bool {
	degradable := func(it *Item) bool {
		return it.AutoAggregate && it.Status == StatusOK && it.ViewMode != ViewNone && srcs[it.Path] != nil
	}
	omittable := func(it *Item) bool {
		return it.AutoAggregate && (it.Status == StatusOK || it.Status == StatusBinary)
	}
	degrade := func(it *Item, reason string) {
		if it.RequestedViewMode == "" {
			it.RequestedViewMode = it.ViewMode
		}
		for r := rung(it.ViewMode) + 1; degradable(it) && r < len(ladder); r++ {
			res := View(ctx, o.Engine, it.Path, srcs[it.Path], it.file, ladder[r])
			if res.Err != nil || res.Binary {
				continue
			}
			next := *it
			next.ViewMode, next.Content, next.fence, next.Slices = res.Mode, res.Text, res.Fence, res.Slices
			next.Truncated = res.Truncated
			next.Header = degradedHeader(it.Path, res.Mode)
			em := measured([]byte(next.Block()), o.Estimator)
			if em.Tokens >= it.Emitted.Tokens {
				if res.Mode == ViewSummary {
					break
				}
				continue
			}
			next.Emitted = em
			next.steps = append(append([]budgetStep(nil), it.steps...), budgetStep{to: string(res.Mode), reason: reason})
			next.Degraded = formatSteps(next.RequestedViewMode, next.steps)
			*it = next
			return
		}
		it.Status = StatusOmitted
		it.Content, it.fence = "", ""
		it.Emitted = Measured{}
		it.steps = append(it.steps, budgetStep{to: string(StatusOmitted), reason: reason})
		it.Degraded = formatSteps(it.RequestedViewMode, it.steps)
	}
	if o.MaxFileTokens.IsSet() {
		reason := fmt.Sprintf("%s %s", reasonFileCap, o.MaxFileTokens)
		for i := range items {
			it := &items[i]
			for degradable(it) && !it.protected() && o.MaxFileTokens.Exceeded(int64(it.Emitted.Tokens)) {
				degrade(it, reason)
			}
		}
	}
	if !o.MaxTokens.IsSet() {
		return true
	}
	// the document with the first listed omitted files named, the others
	// counted
	count := func(listed int) int {
		k := 0
		for i := range items {
			if it := &items[i]; it.AutoAggregate && it.Status == StatusOmitted {
				it.unlisted = k >= listed
				k++
			}
		}
		return o.Estimator.Tokens([]byte(Compose(append([]string{FilesSection(o.Section(), items)}, tail...)...) + "\n"))
	}
	reason := fmt.Sprintf("%s %s", reasonTotal, o.MaxTokens)
	for o.MaxTokens.Exceeded(int64(count(0))) {
		pick := -1
		for i := range items {
			it := &items[i]
			if !omittable(it) {
				continue
			}
			if pick < 0 {
				pick = i
				continue
			}
			p := &items[pick]
			switch {
			case it.protected() != p.protected():
				if !it.protected() {
					pick = i
				}
			case it.Emitted.Tokens >= p.Emitted.Tokens:
				pick = i
			}
		}
		if pick < 0 {
			return false
		}
		degrade(&items[pick], reason)
	}
	for k := len(items); k >= 0; k-- {
		if !o.MaxTokens.Exceeded(int64(count(k))) {
			break
		}
	}
	return true
}

// randomProject writes n files of the structured and other languages, of
// sizes from a line to thousands, some of them identical.
func randomProject(t *testing.T, r *rand.Rand, n int) (string, map[string][]byte) {
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		lines := 1 + r.IntN(300)
		var name string
		switch r.IntN(6) {
		case 0, 1:
			name = fmt.Sprintf("m%02d.py", i)
			for j := range lines / 5 {
				fmt.Fprintf(&b, "def f%d(x):\n    \"\"\"Doc.\"\"\"\n    y = x * %d\n    return y\n\n", j, j)
			}
		case 2:
			name = fmt.Sprintf("g%02d.go", i)
			b.WriteString("package p\n\n")
			for j := range lines / 5 {
				fmt.Fprintf(&b, "func F%d(x int) int {\n\ty := x * %d\n\treturn y\n}\n\n", j, j)
			}
		case 3:
			name = fmt.Sprintf("d%02d.md", i)
			for j := range lines {
				fmt.Fprintf(&b, "## Heading %d\n\nsome words here\n", j)
			}
		case 4:
			name = fmt.Sprintf("c%02d.c", i)
			for j := range lines / 4 {
				fmt.Fprintf(&b, "int f%d(int x) {\n  return x * %d;\n}\n\n", j, j)
			}
		default:
			name = fmt.Sprintf("t%02d.txt", i)
			for j := range lines {
				fmt.Fprintf(&b, "line %d of plain text\n", j)
			}
		}
		if r.IntN(8) == 0 && i > 0 {
			// the same bytes as another file: equal blocks make ties
			for k, v := range files {
				if strings.HasSuffix(k, name[len(name)-3:]) {
					files[name] = v
					break
				}
			}
		}
		if _, ok := files[name]; !ok {
			files[name] = b.String()
		}
	}
	dir := tree(t, files)
	srcs := map[string][]byte{}
	for k, v := range files {
		srcs[k] = []byte(v)
	}
	return dir, srcs
}

// The budget gives what the first, quadratic budget gave, on random
// projects, limits, views, protected files and estimators, with sections
// after the files or not, with and without a cache, and without keeping
// the texts; and the document it writes never exceeds max_tokens.
func TestBudgetMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	modes := []ViewMode{ViewFull, ViewFull, ViewFull, ViewSkeleton, ViewOutline, ViewSummary, ViewNone, ViewCustom, ViewMasked}
	ests := []measure.Estimator{measure.Default(), measure.O200kBase(), measure.Cl100kBase()}
	var seen struct{ tooSmall, unlisted, listed int }
	defer func() {
		// the full lane must have seen every outcome
		if !testing.Short() && !testlane.Race && (seen.tooSmall == 0 || seen.unlisted == 0 || seen.listed == 0) {
			t.Errorf("the rounds missed an outcome: %+v", seen)
		}
	}()
	for round := range testlane.Rounds(60, 30) {
		dir, srcs := randomProject(t, r, 3+r.IntN(25))
		var entries []FileItem
		for name := range srcs {
			f := FileItem{Path: name, ViewMode: modes[r.IntN(len(modes))]}
			if f.ViewMode == ViewMasked {
				f.ASTSignatures = true
			}
			switch r.IntN(12) {
			case 0:
				f.ForceFull = true
			case 1:
				f.Tier = 3
			case 2:
				f.NoAutoAggregate = true
			}
			entries = append(entries, f)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
		o := Options{Engine: codeview.Engine(), BaseDir: dir, Files: entries, Concurrency: 1 + r.IntN(3), Estimator: ests[r.IntN(len(ests))]}
		if r.IntN(4) > 0 {
			o.MaxTokens = measure.Max(int64(1 + r.IntN(20000)))
		}
		if r.IntN(3) == 0 {
			o.MaxFileTokens = measure.Max(int64(1 + r.IntN(3000)))
		}
		if r.IntN(4) == 0 {
			o.Strategy = StrategyTier3
		}
		if r.IntN(3) == 0 {
			o.History = fmt.Sprintf("### Discussion Excerpt 1\n\nUser: %s\n", strings.Repeat("a question, ", r.IntN(40)))
		}
		if !o.budgeted() {
			o.MaxTokens = measure.Max(100)
		}
		// the reference starts from the items as rendered without a budget
		free := o
		free.MaxTokens, free.MaxFileTokens, free.History = measure.Limit{}, measure.Limit{}, ""
		ref, err := Run(ctx, free)
		if err != nil {
			t.Fatal(err)
		}
		no, _ := o.normalized()
		fits := referenceBudget(ctx, no, ref.Items, srcs, HistorySection(o.History))
		if !fits {
			seen.tooSmall++
		}
		for _, it := range ref.Items {
			if it.unlisted {
				seen.unlisted++
				break
			}
		}
		for _, it := range ref.Items {
			if it.Status == StatusOmitted && !it.unlisted {
				seen.listed++
				break
			}
		}
		want := Compose(FilesSection(no.Section(), ref.Items), HistorySection(o.History))
		for _, c := range []Cache{nil, newMemCache()} {
			for _, keep := range []int64{1 << 30, 0} {
				o.Cache = c
				old := retainLimit
				retainLimit = keep
				var b bytes.Buffer
				res, err := Stream(ctx, o, &b)
				retainLimit = old
				if !fits {
					var be *BudgetError
					if !errors.As(err, &be) || b.Len() > 0 {
						t.Fatalf("round %d (%+v): the budget cannot fit, yet %v and %d bytes written", round, o, err, b.Len())
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.TrimSuffix(b.String(), "\n"); got != want {
					t.Logf("items:\n%s\nwant\n%s", states(res.Items), states(ref.Items))
					t.Fatalf("round %d (%+v): the document differs from the reference:\n%s\nwant\n%s", round, o, got, want)
				}
				if metadata(res.Items) != metadata(ref.Items) {
					t.Fatalf("round %d: the items differ from the reference:\n%s\nwant\n%s", round, metadata(res.Items), metadata(ref.Items))
				}
				if n := o.Estimator.Tokens(b.Bytes()); o.MaxTokens.Exceeded(int64(n)) {
					t.Fatalf("round %d: %d tokens written, over %s", round, n, o.MaxTokens)
				}
				if n := res.Summary().Tokens; n != o.Estimator.Tokens(b.Bytes()) {
					t.Fatalf("round %d: the summary counts %d tokens, the document has %d", round, n, o.Estimator.Tokens(b.Bytes()))
				}
			}
		}
	}
}

func TestBudgetErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    BudgetError
		want string
	}{
		{BudgetError{Limit: 10, Tokens: 16, Omitted: 4, What: []string{"the files heading and the line that counts them"}},
			"max_tokens 10 is too small: even with all 4 files left out, the document takes 16 tokens (the files heading and the line that counts them)"},
		{BudgetError{At: "--max-tokens", Limit: 10, Tokens: 1, Omitted: 1, What: []string{"a"}},
			"--max-tokens: 10 is too small: even with the file left out, the document takes 1 token (a)"},
		{BudgetError{At: "ctx.toml:9: files.max_tokens", Limit: 30, Tokens: 1200, What: []string{"1 error block", "the Discussion History"}},
			"ctx.toml:9: files.max_tokens: 30 is too small: what it cannot leave out takes 1,200 tokens (1 error block, the Discussion History)"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
