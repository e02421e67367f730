package audit_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

func TestFileFindings(t *testing.T) {
	m := build(t, map[string]string{"AGENTS.md": "rules\n"}, nil, nil)
	h := measure.Hash(nil)
	row := func(path string, status aggregate.Status) manifest.FileRow {
		return manifest.FileRow{Entry: path, Path: path, ViewMode: "full", Status: status, EmittedHash: h}
	}
	ok := row("ok.py", "ok")
	missing := row("missing.py", "error")
	missing.Error = "file not found: missing.py"
	n := func(v int) *int { return &v }
	omitted := row("big.py", "omitted")
	omitted.Degraded, omitted.SourceTokens = "full → skeleton → omitted (max_tokens 10)", n(2004)
	degraded := row("mid.py", "degraded")
	degraded.ViewMode, degraded.Degraded = "skeleton", "full → skeleton (max_tokens 10)"
	degraded.SourceTokens, degraded.EmittedTokens = n(1500), 9
	fallback := row("notes.md", "fallback")
	fallback.ViewMode, fallback.Fallback = "summary", "skeleton view not supported for md files; summary shown"
	sliced := row("lib.py", "ok")
	sliced.Slices = []manifest.SliceRow{
		{Tag: "found", Resolution: "moved", StartLine: 1, EndLine: 2, NewStartLine: 3, NewEndLine: 4},
		{Tag: "gone", Resolution: "orphaned", StartLine: 5, EndLine: 6},
		{Resolution: "orphaned", StartLine: 7, EndLine: 9},
	}
	deep := row("deep.cpp", "ok")
	deep.ViewMode, deep.Truncated = "outline", "symbols nested deeper than 64 levels are not listed"
	shot := row("s.png", "error")
	shot.Kind, shot.Error = "screenshot", "file not found: s.png"
	m.Files = []manifest.FileRow{ok, missing, omitted, degraded, fallback, sliced, deep, shot}
	m.Sections = []manifest.Section{manifest.NewSection(manifest.SectionFiles, "## Files\n\n### `ok.py`", nil)}

	rep, err := audit.Run(m, audit.Thresholds{TotalTokens: measure.Max(0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s %s %s %s: %s", f.SourceID, f.Code, f.Severity, f.RelatedID, f.Message))
	}
	// the files after the sources (none here), before the total; each
	// with its message (the table test of the messages of the files' codes)
	want := []string{
		"file:missing.py file_error warning : file not found: missing.py",
		"file:big.py file_omitted warning : token budget: full → skeleton → omitted (max_tokens 10); 0 of 2,004 tokens sent",
		"file:mid.py file_degraded info : token budget: full → skeleton (max_tokens 10); 9 of 1,500 tokens sent",
		"file:notes.md file_fallback info : skeleton view not supported for md files; summary shown",
		`file:lib.py slice_orphaned warning gone: custom slice "gone" (lines 5-6) not found in the file; not shown`,
		"file:lib.py slice_orphaned warning lines 7-9: custom slice at lines 7-9 not found in the file; not shown",
		"file:deep.cpp file_truncated warning : outline view cut: symbols nested deeper than 64 levels are not listed",
		"screenshot:s.png file_error warning : file not found: s.png",
		" oversized_total warning : 6 tokens in total, over 0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
	if !rep.Fails(audit.Warning) {
		t.Error("file errors do not fail a warning check")
	}
}

func TestFileFindingsNone(t *testing.T) {
	// info only: a degraded file does not fail --check at warning level
	m := build(t, map[string]string{"AGENTS.md": "rules\n"}, nil, nil)
	m.Files = []manifest.FileRow{{Path: "a.py", ViewMode: "skeleton", Status: "degraded", Degraded: "full → skeleton (max_tokens 1)"}}
	rep, err := audit.Run(m, audit.Thresholds{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fails(audit.Warning) || !rep.Fails(audit.Info) || len(rep.Findings) != 1 {
		t.Errorf("findings: %+v", rep.Findings)
	}
	// a manifest without files has no file findings
	m.Files = nil
	if rep, _ = audit.Run(m, audit.Thresholds{}, nil); len(rep.Findings) != 0 {
		t.Errorf("findings without files: %+v", rep.Findings)
	}
}
