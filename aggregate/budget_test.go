package aggregate

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"

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
	plain, err := Run(context.Background(), Options{BaseDir: dir, Files: budgetFiles()})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range plain.Items {
		if it.Degraded != "" || it.Status != StatusOK || it.ViewMode != ViewFull {
			t.Errorf("no budget, yet %+v", it)
		}
	}
	// a budget that everything fits in changes nothing either
	roomy, err := Run(context.Background(), Options{BaseDir: dir, Files: budgetFiles(), MaxTokens: measure.Max(int64(1 << 20)), MaxFileTokens: measure.Max(int64(1 << 20))})
	if err != nil {
		t.Fatal(err)
	}
	if roomy.Markdown != plain.Markdown {
		t.Errorf("a roomy budget changed the markdown")
	}
}

func TestBudgetFileCap(t *testing.T) {
	dir := budgetTree(t)
	items := build(t, Options{BaseDir: dir, Files: budgetFiles(), MaxFileTokens: measure.Max(int64(500))})
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
		{100, []itemState{
			{"big.py", StatusOK, ViewSummary, "full → skeleton → outline → summary (max_tokens 100)"},
			{"mid.py", StatusOK, ViewSkeleton, "full → skeleton (max_tokens 100)"},
			{"small.py", StatusOK, ViewFull, ""},
			{"notes.txt", StatusOmitted, ViewSummary, "full → summary → omitted (max_tokens 100)"},
		}},
		// everything goes
		{1, []itemState{
			{"big.py", StatusOmitted, ViewSummary, "full → skeleton → outline → summary → omitted (max_tokens 1)"},
			{"mid.py", StatusOmitted, ViewSummary, "full → skeleton → outline → summary → omitted (max_tokens 1)"},
			{"small.py", StatusOmitted, ViewFull, "full → omitted (max_tokens 1)"},
			{"notes.txt", StatusOmitted, ViewSummary, "full → summary → omitted (max_tokens 1)"},
		}},
	} {
		res, err := Run(context.Background(), Options{BaseDir: dir, Files: budgetFiles(), MaxTokens: measure.Max(int64(tc.max))})
		if err != nil {
			t.Fatal(err)
		}
		if got := states(res.Items); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("max_tokens %d:\n got  %v\nwant %v", tc.max, got, tc.want)
		}
		if n := blockTokens(res.Items); n > tc.max {
			t.Errorf("max_tokens %d: %d tokens emitted", tc.max, n)
		}
		for _, it := range res.Items {
			if it.Status == StatusOmitted {
				if it.Block() != "" || it.Emitted != (Measured{}) || strings.Contains(res.Markdown, "### `"+it.Path+"`") {
					t.Errorf("max_tokens %d: omitted %s is still rendered", tc.max, it.Path)
				}
				if !strings.Contains(res.Markdown, OmittedHeading+"\n") || !strings.Contains(res.Markdown, "\n- `"+it.Path+"` (") {
					t.Errorf("max_tokens %d: omitted %s is not listed", tc.max, it.Path)
				}
			}
		}
		if want := "## Files\n\n" + OmittedHeading + "\n\n- `big.py` (2,985 tokens)\n- `mid.py` (616 tokens)\n- `small.py` (2 tokens)\n- `notes.txt` (583 tokens)"; tc.max == 1 && res.Markdown != want {
			t.Errorf("everything omitted: markdown\n%s\nwant only the list of omitted files\n%s", res.Markdown, want)
		}
		// deterministic
		again, err := Run(context.Background(), Options{BaseDir: dir, Files: budgetFiles(), MaxTokens: measure.Max(int64(tc.max))})
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
	items := build(t, Options{BaseDir: dir, Files: []FileItem{{Path: "a.txt"}, {Path: "b.txt"}}, MaxTokens: measure.Max(int64(400))})
	if items[0].Degraded != "" || items[1].Degraded != "full → summary (max_tokens 400)" {
		t.Errorf("tie: %v", states(items))
	}
}

func TestBudgetBothLimits(t *testing.T) {
	dir := budgetTree(t)
	items := build(t, Options{BaseDir: dir, Files: budgetFiles(), MaxFileTokens: measure.Max(int64(500)), MaxTokens: measure.Max(int64(150))})
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
	items := build(t, Options{BaseDir: dir, Files: files, MaxFileTokens: measure.Max(int64(500)), MaxTokens: measure.Max(int64(3100))})
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
	items = build(t, Options{BaseDir: dir, Files: files, MaxTokens: measure.Max(int64(50))})
	if items[0].Degraded == "" || blockTokens(items) > 50 {
		t.Errorf("protected file never degraded: %v", states(items))
	}
	// Tier 3 focus files are protected as well
	items = build(t, Options{BaseDir: dir, Files: budgetFiles(), Focus: []string{"notes.txt"}, MaxTokens: measure.Max(int64(700))})
	if items[3].ViewMode != ViewFull || items[3].Degraded != "" || !items[3].Focus {
		t.Errorf("focus file degraded: %v", states(items))
	}
}

func TestBudgetLeavesErrorsAndExcluded(t *testing.T) {
	dir := budgetTree(t)
	files := append(budgetFiles(), FileItem{Path: "*.rs"}, FileItem{Path: "small.py", ViewMode: ViewNone})
	files[1].NoAutoAggregate = true
	items := build(t, Options{BaseDir: dir, Files: files, MaxTokens: measure.Max(int64(1))})
	for _, it := range items {
		switch {
		case it.Path == "*.rs":
			if it.Status != StatusError || it.Degraded != "" || it.Block() == "" {
				t.Errorf("error item touched: %+v", it)
			}
		case it.Path == "mid.py":
			if it.Status != StatusOK || it.Degraded != "" || it.Block() != "" {
				t.Errorf("excluded item touched: %+v", it)
			}
		}
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
	items := build(t, Options{BaseDir: dir, MaxTokens: measure.Max(int64(1)), Files: []FileItem{{
		Path: "m.py", ViewMode: ViewCustom, CustomSlices: []Slice{{StartLine: 1, EndLine: 2, Tag: "t"}},
	}}})
	if it := items[0]; it.Status != StatusOmitted || it.Degraded != "custom → omitted (max_tokens 1)" || len(it.Slices) != 1 {
		t.Errorf("custom: %+v", states(items))
	}
}

func TestBudgetNegative(t *testing.T) {
	if _, err := BuildItems(context.Background(), Options{MaxTokens: measure.Max(int64(-1))}); err == nil {
		t.Error("negative max_tokens accepted")
	}
	if _, err := BuildItems(context.Background(), Options{MaxFileTokens: measure.Max(int64(-1))}); err == nil {
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

// referenceBudget is the budget as it was first written: a scan of every
// item for the largest block at each step, and each view rendered when a
// step needs it, from the file's bytes in srcs. The heap, the ladders and
// the re-reading must give exactly its result.
func referenceBudget(ctx context.Context, o Options, items []Item, srcs map[string][]byte) {
	degradable := func(it *Item) bool {
		return it.AutoAggregate && it.Status == StatusOK && it.ViewMode != ViewNone && srcs[it.Path] != nil
	}
	degrade := func(it *Item, reason string) {
		if it.RequestedViewMode == "" {
			it.RequestedViewMode = it.ViewMode
		}
		for r := rung(it.ViewMode) + 1; r < len(ladder); r++ {
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
		return
	}
	reason := fmt.Sprintf("%s %s", reasonTotal, o.MaxTokens)
	total := 0
	for i := range items {
		if items[i].AutoAggregate && items[i].Status != StatusOmitted {
			total += items[i].Emitted.Tokens
		}
	}
	for o.MaxTokens.Exceeded(int64(total)) {
		pick := -1
		for i := range items {
			it := &items[i]
			if !degradable(it) {
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
			break
		}
		before := items[pick].Emitted.Tokens
		degrade(&items[pick], reason)
		total += items[pick].Emitted.Tokens - before
	}
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
// projects, limits, views and protected files, with and without a cache,
// and without keeping the texts.
func TestBudgetMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	modes := []ViewMode{ViewFull, ViewFull, ViewFull, ViewSkeleton, ViewOutline, ViewSummary, ViewNone, ViewCustom, ViewMasked}
	for round := range testlane.Rounds(40, 5) {
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
		o := Options{BaseDir: dir, Files: entries, Concurrency: 1 + r.IntN(3)}
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
			o.Estimator = measure.O200kBase()
		}
		if !o.budgeted() {
			o.MaxTokens = measure.Max(100)
		}
		// the reference starts from the items as rendered without a budget
		free := o
		free.MaxTokens, free.MaxFileTokens = measure.Limit{}, measure.Limit{}
		ref, err := Run(ctx, free)
		if err != nil {
			t.Fatal(err)
		}
		no, _ := o.normalized()
		referenceBudget(ctx, no, ref.Items, srcs)
		want := FilesSection(no.Section(), ref.Items)
		for _, c := range []Cache{nil, newMemCache()} {
			for _, keep := range []int64{1 << 30, 0} {
				o.Cache = c
				old := retainLimit
				retainLimit = keep
				var b bytes.Buffer
				res, err := Stream(ctx, o, &b)
				retainLimit = old
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
			}
		}
	}
}
