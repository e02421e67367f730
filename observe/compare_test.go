package observe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/profile"
)

// sentSeg is an instruction segment of a file sent: status whole, cut
// (at cut), changed or unread.
func sentSeg(path, status string, cut int) Segment {
	f := &SentFile{Path: path, Status: status, SentHash: "h"}
	if status == SentCut {
		f.CutAt = &cut
	}
	return Segment{Kind: KindInstruction, Name: path, Bytes: 10, File: f}
}

func TestCompare(t *testing.T) {
	dir := realTemp(t)
	real := filepath.Join(dir, "real", "CLAUDE.md")
	writeFile(t, real, "rules\n")
	link := filepath.Join(dir, "link", "CLAUDE.md")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	linkedDir := filepath.Join(dir, "linked")
	if err := os.Symlink(filepath.Join(dir, "real"), linkedDir); err != nil {
		t.Fatal(err)
	}

	loaded := func(p string, size int) profile.File { return profile.File{Path: p, Size: size, Loaded: size} }
	cutFile := func(p string, size, at int) profile.File { return profile.File{Path: p, Size: size, Loaded: at} }
	match := func(p, predicted, sent, outcome string) FileMatch {
		return FileMatch{Path: p, Predicted: predicted, Sent: sent, Outcome: outcome}
	}
	for _, tc := range []struct {
		name    string
		chain   []profile.File
		segs    []Segment
		want    []FileMatch
		differs bool
	}{
		{"match", []profile.File{loaded("/p/AGENTS.md", 50)}, []Segment{sentSeg("/p/AGENTS.md", SentWhole, 0)},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "whole", OutcomeMatch)}, false},
		{"match of a memory file", []profile.File{loaded("/h/MEMORY.md", 50)},
			[]Segment{{Kind: KindMemory, Name: "/h/MEMORY.md", File: &SentFile{Path: "/h/MEMORY.md", Status: SentWhole}}},
			[]FileMatch{match("/h/MEMORY.md", "loaded", "whole", OutcomeMatch)}, false},
		{"match of a cut", []profile.File{cutFile("/p/AGENTS.md", 200, 100)}, []Segment{sentSeg("/p/AGENTS.md", SentCut, 100)},
			[]FileMatch{match("/p/AGENTS.md", "cut at 100", "cut at 100", OutcomeMatch)}, false},
		{"paths cleaned", []profile.File{loaded("/p/./sub/../AGENTS.md", 50)}, []Segment{sentSeg("/p/AGENTS.md", SentWhole, 0)},
			[]FileMatch{match("/p/./sub/../AGENTS.md", "loaded", "whole", OutcomeMatch)}, false},
		{"a file through a symbolic link", []profile.File{loaded(link, 6)}, []Segment{sentSeg(real, SentWhole, 0)},
			[]FileMatch{match(link, "loaded", "whole", OutcomeMatch)}, false},
		{"a file sent by a linked path", []profile.File{loaded(real, 6)}, []Segment{sentSeg(filepath.Join(linkedDir, "CLAUDE.md"), SentWhole, 0)},
			[]FileMatch{match(real, "loaded", "whole", OutcomeMatch)}, false},
		{"predicted, not sent", []profile.File{loaded("/p/AGENTS.md", 50), loaded("/p/sub/AGENTS.md", 10)}, []Segment{sentSeg("/p/AGENTS.md", SentWhole, 0)},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "whole", OutcomeMatch), match("/p/sub/AGENTS.md", "loaded", "not sent", OutcomePredictedNotSent)}, true},
		{"sent, not predicted", nil, []Segment{sentSeg("/p/OTHER.md", SentWhole, 0)},
			[]FileMatch{match("/p/OTHER.md", "not predicted", "whole", OutcomeSentNotPredicted)}, true},
		{"a conditional file sent", []profile.File{{Path: "/p/.claude/rules/go.md", Size: 40, Loaded: 40, Condition: "paths: **/*.go"}},
			[]Segment{sentSeg("/p/.claude/rules/go.md", SentWhole, 0)},
			[]FileMatch{match("/p/.claude/rules/go.md", "conditional: paths: **/*.go", "whole", OutcomeSentNotPredicted)}, true},
		{"a conditional file not sent", []profile.File{{Path: "/p/r.md", Size: 40, Loaded: 40, Condition: "applyTo: *.ts"}}, nil,
			[]FileMatch{match("/p/r.md", "conditional: applyTo: *.ts", "not sent", OutcomeMatch)}, false},
		{"an instruction segment of no file", []profile.File{loaded("/p/AGENTS.md", 50)},
			[]Segment{sentSeg("/p/AGENTS.md", SentWhole, 0), {Kind: KindInstruction, Name: "AGENTS.md instructions for /p", Bytes: 30}},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "whole", OutcomeMatch),
				match("AGENTS.md instructions for /p", "not predicted", "text of no file", OutcomeSentNotPredicted)}, true},
		{"predicted cut at 100, sent whole", []profile.File{cutFile("/p/AGENTS.md", 200, 100)}, []Segment{sentSeg("/p/AGENTS.md", SentWhole, 0)},
			[]FileMatch{match("/p/AGENTS.md", "cut at 100", "whole", OutcomeCutDiffers)}, true},
		{"predicted whole, sent cut", []profile.File{loaded("/p/AGENTS.md", 200)}, []Segment{sentSeg("/p/AGENTS.md", SentCut, 150)},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "cut at 150", OutcomeCutDiffers)}, true},
		{"both cut, at other bytes", []profile.File{cutFile("/p/AGENTS.md", 200, 100)}, []Segment{sentSeg("/p/AGENTS.md", SentCut, 120)},
			[]FileMatch{match("/p/AGENTS.md", "cut at 100", "cut at 120", OutcomeCutDiffers)}, true},
		{"a cut of no byte (a record read back)", []profile.File{cutFile("/p/AGENTS.md", 200, 100)},
			[]Segment{{Kind: KindInstruction, File: &SentFile{Path: "/p/AGENTS.md", Status: SentCut}}},
			[]FileMatch{match("/p/AGENTS.md", "cut at 100", "cut", OutcomeCutDiffers)}, true},
		{"changed", []profile.File{loaded("/p/AGENTS.md", 50)}, []Segment{sentSeg("/p/AGENTS.md", SentChanged, 0)},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "changed", OutcomeChanged)}, true},
		{"unread", []profile.File{loaded("/p/AGENTS.md", 50)}, []Segment{sentSeg("/p/AGENTS.md", SentUnread, 0)},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "unread", OutcomeChanged)}, true},
		{"a cut file changed", []profile.File{cutFile("/p/AGENTS.md", 200, 100)}, []Segment{sentSeg("/p/AGENTS.md", SentChanged, 0)},
			[]FileMatch{match("/p/AGENTS.md", "cut at 100", "changed", OutcomeChanged)}, true},
		{"blank, not sent", []profile.File{{Path: "/p/AGENTS.md", Size: 3, Loaded: 3, Blank: true}}, nil,
			[]FileMatch{match("/p/AGENTS.md", "blank", "not sent", OutcomeMatch)}, false},
		{"blank, sent", []profile.File{{Path: "/p/AGENTS.md", Size: 3, Loaded: 3, Blank: true}}, []Segment{sentSeg("/p/AGENTS.md", SentWhole, 0)},
			[]FileMatch{match("/p/AGENTS.md", "blank", "whole", OutcomeSentNotPredicted)}, true},
		{"unreadable, not sent", []profile.File{{Path: "/p/MEMORY.md", Unreadable: "a FIFO"}}, nil,
			[]FileMatch{match("/p/MEMORY.md", "unreadable: a FIFO", "not sent", OutcomeMatch)}, false},
		{"cut to nothing, not sent", []profile.File{cutFile("/p/AGENTS.md", 100, 0)}, nil,
			[]FileMatch{match("/p/AGENTS.md", "cut at 0", "not sent", OutcomeMatch)}, false},
		// one row per file: a file the request holds twice (a tool read
		// it again), or the chain lists twice
		{"a file sent twice", []profile.File{loaded("/p/AGENTS.md", 50)}, []Segment{sentSeg("/p/AGENTS.md", SentWhole, 0), sentSeg("/p/AGENTS.md", SentChanged, 0)},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "whole", OutcomeMatch)}, false},
		{"a file not predicted, sent twice", nil, []Segment{sentSeg("/p/OTHER.md", SentWhole, 0), sentSeg("/p/./OTHER.md", SentWhole, 0)},
			[]FileMatch{match("/p/OTHER.md", "not predicted", "whole", OutcomeSentNotPredicted)}, true},
		{"a text of no file twice", nil, []Segment{{Kind: KindInstruction, Name: "AGENTS.md instructions for /p"}, {Kind: KindInstruction, Name: "AGENTS.md instructions for /p"}},
			[]FileMatch{match("AGENTS.md instructions for /p", "not predicted", "text of no file", OutcomeSentNotPredicted)}, true},
		{"a file the chain lists twice", []profile.File{loaded("/p/AGENTS.md", 50), loaded("/p/AGENTS.md", 50)}, []Segment{sentSeg("/p/AGENTS.md", SentWhole, 0)},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "whole", OutcomeMatch)}, false},
		// Claude Code leaves out a file's HTML comments: kept whole, not cut
		{"a file the agent sends without parts of it", []profile.File{{Path: "/p/CLAUDE.md", Size: 99, Loaded: 27, Stripped: 72}},
			[]Segment{sentSeg("/p/CLAUDE.md", SentWhole, 0)}, []FileMatch{match("/p/CLAUDE.md", "loaded", "whole", OutcomeMatch)}, false},
		{"segments of other kinds are no files", []profile.File{loaded("/p/AGENTS.md", 50)},
			[]Segment{{Kind: KindPrompt, Bytes: 5}, {Kind: KindReminder, Bytes: 5}, sentSeg("/p/AGENTS.md", SentWhole, 0), {Kind: KindFraming, Bytes: 9}},
			[]FileMatch{match("/p/AGENTS.md", "loaded", "whole", OutcomeMatch)}, false},
		{"nothing predicted, nothing sent", nil, []Segment{{Kind: KindPrompt, Bytes: 5}}, nil, false},
		{"the order: the chain's, then the files not predicted", []profile.File{loaded("/p/B.md", 5), loaded("/p/A.md", 5)},
			[]Segment{sentSeg("/p/C.md", SentWhole, 0), sentSeg("/p/A.md", SentWhole, 0), sentSeg("/p/B.md", SentWhole, 0), sentSeg("/p/D.md", SentCut, 3)},
			[]FileMatch{match("/p/B.md", "loaded", "whole", OutcomeMatch), match("/p/A.md", "loaded", "whole", OutcomeMatch),
				match("/p/C.md", "not predicted", "whole", OutcomeSentNotPredicted), match("/p/D.md", "not predicted", "cut at 3", OutcomeSentNotPredicted)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chain := &profile.Chain{Profile: profile.Claude, Files: tc.chain}
			c := Compare(chain, &Request{Seq: 7, Segments: tc.segs})
			if c.Profile != "claude" || c.Checked != profile.CheckedAgainst(profile.Claude) || c.Request != 7 {
				t.Errorf("profile %q checked %q request %d", c.Profile, c.Checked, c.Request)
			}
			if got, want := matchList(c.Files), matchList(tc.want); got != want {
				t.Errorf("files:\n%s\nwant:\n%s", got, want)
			}
			if c.Differs != tc.differs {
				t.Errorf("differs %v, want %v", c.Differs, tc.differs)
			}
			any := false
			for _, f := range c.Files {
				any = any || f.Outcome != OutcomeMatch
			}
			if c.Differs != any {
				t.Errorf("differs %v, but an outcome other than match: %v", c.Differs, any)
			}
		})
	}
}

func matchList(fs []FileMatch) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s | %s | %s | %s\n", f.Path, f.Predicted, f.Sent, f.Outcome)
	}
	return b.String()
}

// TestCompareNoRequest: with no turn, every file expected is not sent.
func TestCompareNoRequest(t *testing.T) {
	chain := &profile.Chain{Profile: profile.Codex, Files: []profile.File{{Path: "/p/AGENTS.md", Size: 5, Loaded: 5}, {Path: "/p/B.md", Blank: true}}}
	c := Compare(chain, nil)
	if c.Request != 0 || !c.Differs || len(c.Files) != 2 || c.Files[0].Outcome != OutcomePredictedNotSent || c.Files[1].Outcome != OutcomeMatch {
		t.Errorf("comparison %+v", c)
	}
	if c := Compare(&profile.Chain{Profile: profile.Generic}, nil); c.Differs || len(c.Files) != 0 || c.Checked != "" {
		t.Errorf("an empty chain: %+v", c)
	}
}

func TestRequestSentFilesAndTotals(t *testing.T) {
	r := &Request{Segments: []Segment{
		{Kind: KindFraming, Bytes: 10, Chars: 10, Tokens: 3},
		sentSeg("/a", SentWhole, 0),
		{Kind: KindTool, Name: "Bash", Bytes: 5, Chars: 5, Tokens: 2},
		{Kind: KindTool, Name: "Read", Bytes: 7, Chars: 6, Tokens: 2},
		sentSeg("/b", SentCut, 4),
		{Kind: KindSystemPrompt, Bytes: 1, Chars: 1, Tokens: 1},
	}}
	files := r.SentFiles()
	if len(files) != 2 || files[0].Path != "/a" || files[1].Path != "/b" || *files[1].CutAt != 4 {
		t.Errorf("sent files %+v", files)
	}
	var got []string
	for _, s := range r.Totals() {
		got = append(got, fmt.Sprintf("%s %d %d %d", s.Kind, s.Bytes, s.Chars, s.Tokens))
	}
	want := "system_prompt 1 1 1,tool 12 11 4,instruction_file 20 0 0,framing 10 10 3"
	if strings.Join(got, ",") != want {
		t.Errorf("totals %s, want %s", strings.Join(got, ","), want)
	}
}
