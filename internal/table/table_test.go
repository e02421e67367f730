package table

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

func TestCutMiddle(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		want string
	}{
		{"project_agents", 20, "project_agents"},
		{"project_agents", 14, "project_agents"},
		{"project_agents", 9, "pr…agents"},
		{"src/github.com/acme/AGENTS.md", 16, "src/g…/AGENTS.md"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
		{"漢字漢字漢字", 7, "漢…漢字"},
	} {
		got := CutMiddle(tc.s, tc.w)
		if got != tc.want {
			t.Errorf("CutMiddle(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
		if Width(got) > max(tc.w, 0) {
			t.Errorf("CutMiddle(%q, %d) = %q is %d wide", tc.s, tc.w, got, Width(got))
		}
	}
}

func TestCutPath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"a/b.go", 10, "a/b.go"},
		{"packages/server/src/handlers/user.test.ts", 24, "packages/s…/user.test.ts"},
		{"packages/server/src/handlers/user.test.ts", 32, "packa…/src/handlers/user.test.ts"},
		{"packages/server/src/handlers/user.test.ts", 14, "…/user.test.ts"},
		{"packages/server/src/handlers/user.test.ts", 13, "…user.test.ts"},
		{"packages/server/src/handlers/user.test.ts", 11, "use…test.ts"},
		{"  src/deep/dir/file.py", 16, "  src/d…/file.py"},
		{"nodir-but-a-very-long-name.txt", 12, "nod…name.txt"},
	} {
		got := CutPath(tc.in, tc.w)
		if got != tc.want || Width(got) > tc.w {
			t.Errorf("CutPath(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}

func TestWrapText(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		want string
	}{
		{"8,639 tokens, over 2,000 per source", 40, "8,639 tokens, over 2,000 per source"},
		{"8,639 tokens, over 2,000 per source", 14, "8,639 tokens,\nover 2,000 per\nsource"},
		{"file not found: internal/api/x.go", 10, "file not\nfound:\ninternal/a\npi/x.go"},
		{"a\nb c", 1, "a\nb\nc"},
		{"", 5, ""},
	} {
		if got := WrapText(tc.s, tc.w); got != tc.want {
			t.Errorf("WrapText(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
}

// A word of megabytes (an import path in a finding's message, say) is
// broken into lines no wider than w, in work linear in its length: twice
// the word, about twice the allocations.
func TestWrapTextLongWord(t *testing.T) {
	word := strings.Repeat("a/", 1<<20)
	allocs := func(w string) float64 {
		return testing.AllocsPerRun(1, func() { WrapText("import "+w, 40) })
	}
	bytesOf := func(w string) uint64 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		WrapText("import "+w, 40)
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	half := word[:len(word)/2]
	if a1, a2 := allocs(half), allocs(word); a2 > 2.6*a1 {
		t.Errorf("twice the word: %.0f → %.0f allocations", a1, a2)
	}
	if b1, b2 := bytesOf(half), bytesOf(word); float64(b2) > 2.6*float64(b1) {
		t.Errorf("twice the word: %d → %d bytes allocated", b1, b2)
	}
	got := WrapText("import "+word, 40)
	lines := strings.Split(got, "\n")
	if lines[0] != "import" || strings.Join(lines[1:], "") != word {
		t.Fatalf("the word is not kept whole: %d lines", len(lines))
	}
	for _, l := range lines {
		if len(l) > 40 {
			t.Fatalf("a line of %d columns", len(l))
		}
	}
	if got := WrapText("ab世界c", 1); got != "a\nb\n世\n界\nc" {
		t.Errorf("wide characters: %q", got)
	}
}

func TestWriteFitted(t *testing.T) {
	cols := []Column{
		{Header: "id", Fit: FitCutMiddle, Min: 6},
		{Header: "tokens", Align: Right},
		{Header: "message", Fit: FitWrap, Min: 10},
	}
	rows := [][]string{
		{"project_agents", "8,639", "8,639 tokens, over 2,000 per source"},
		{"a", "0", "-"},
	}
	var wide bytes.Buffer
	if err := WriteFitted(&wide, cols, rows, 0); err != nil {
		t.Fatal(err)
	}
	want := `+----------------+--------+-------------------------------------+
| id             | tokens | message                             |
+----------------+--------+-------------------------------------+
| project_agents |  8,639 | 8,639 tokens, over 2,000 per source |
| a              |      0 | -                                   |
+----------------+--------+-------------------------------------+
`
	if wide.String() != want {
		t.Errorf("no limit:\n%s\nwant\n%s", wide.String(), want)
	}
	for _, width := range []int{60, 45, 40, 32} {
		var b bytes.Buffer
		if err := WriteFitted(&b, cols, rows, width); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if Width(line) > width {
				t.Errorf("width %d: %q is %d wide\n%s", width, line, Width(line), b.String())
			}
		}
	}
	// narrower than the columns allow: the table overflows rather than
	// losing the numbers
	var b bytes.Buffer
	if err := WriteFitted(&b, cols, rows, 10); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| p…ents |  8,639 |") {
		t.Errorf("width 10:\n%s", b.String())
	}
	if got := Overhead(3); got != 10 {
		t.Errorf("Overhead(3) = %d", got)
	}
}

func TestWrapPath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"a/b.go", 10, "a/b.go"},
		{".claude/rules/backend/legacy-model-migration-patterns.md", 24, ".claude/rules/backend/\nlegacy-model-migration-\npatterns.md"},
		{".claude/rules/backend/legacy-model-migration-patterns.md", 30, ".claude/rules/backend/legacy-\nmodel-migration-patterns.md"},
		{".claude/rules/backend/legacy-model-migration-patterns.md", 40, ".claude/rules/backend/\nlegacy-model-migration-patterns.md"},
		{"packages/front-end/CLAUDE.md", 20, "packages/front-end/\nCLAUDE.md"},
		{"packages/front-end/CLAUDE.md", 12, "packages/\nfront-end/\nCLAUDE.md"},
		{"project_agents", 12, "project_\nagents"},
		{"project_agents", 6, "projec\nt_\nagents"},
		{"~/.claude/settings-notes.md", 12, "~/.claude/\nsettings-\nnotes.md"},
		{"payments-and-billing-team-conventions", 21, "payments-and-billing-\nteam-conventions"},
		{"~/.config/agents/GLOBAL.md", 17, "~/.config/agents/\nGLOBAL.md"},
		{"漢字/漢字漢字.md", 5, "漢字/\n漢字\n漢字.\nmd"},
		{".claude/rules/development-guidelines.md", 23, ".claude/rules/\ndevelopment-\nguidelines.md"},
		{".github/instructions/python.instructions.md", 14, ".github/\ninstructions/\npython.\ninstructions.\nmd"},
		{"copilot-instructions.md", 14, "copilot-\ninstructions.\nmd"},
		{"abc", 0, "a\nb\nc"},
	} {
		got := WrapPath(tc.in, tc.w)
		if got != tc.want {
			t.Errorf("WrapPath(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
		if Width(got) > max(tc.w, 1) {
			t.Errorf("WrapPath(%q, %d) = %q is %d wide", tc.in, tc.w, got, Width(got))
		}
		if strings.ReplaceAll(got, "\n", "") != tc.in {
			t.Errorf("WrapPath(%q, %d) lost characters: %q", tc.in, tc.w, got)
		}
	}
}

// TestRank: the columns of rank 0 give up width before those of rank 1,
// whatever their widths: here the path is cut to its Min before the id,
// which then wraps after its slashes.
func TestRank(t *testing.T) {
	cols := []Column{
		{Header: "id", Fit: FitWrapPath, Min: 8, Rank: 1},
		{Header: "path", Fit: FitCutPath, Min: 10},
	}
	rows := [][]string{{"packages/front-end/CLAUDE.md", "~/.config/agents/GLOBAL.md"}}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{61, `+------------------------------+----------------------------+
| id                           | path                       |
+------------------------------+----------------------------+
| packages/front-end/CLAUDE.md | ~/.config/agents/GLOBAL.md |
+------------------------------+----------------------------+
`},
		{50, `+------------------------------+-----------------+
| id                           | path            |
+------------------------------+-----------------+
| packages/front-end/CLAUDE.md | ~/.c…/GLOBAL.md |
+------------------------------+-----------------+
`},
		{44, `+---------------------+------------+
| id                  | path       |
+---------------------+------------+
| packages/front-end/ | …GLOBAL.md |
| CLAUDE.md           |            |
+---------------------+------------+
`},
		{32, `+------------+------------+
| id         | path       |
+------------+------------+
| packages/  | …GLOBAL.md |
| front-end/ |            |
| CLAUDE.md  |            |
+------------+------------+
`},
	} {
		var b bytes.Buffer
		if err := WriteFitted(&b, cols, rows, tc.width); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("width %d:\n%s\nwant\n%s", tc.width, b.String(), tc.want)
		}
	}
}
