package aggregate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"
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
	files := append(budgetFiles(), FileItem{Path: "missing.py"}, FileItem{Path: "small.py", ViewMode: ViewNone})
	files[1].NoAutoAggregate = true
	items := build(t, Options{BaseDir: dir, Files: files, MaxTokens: measure.Max(int64(1))})
	for _, it := range items {
		switch {
		case it.Path == "missing.py":
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
