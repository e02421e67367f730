package audit

import (
	"fmt"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/manifest"
)

// Finding codes for the aggregated files (manifest "files" rows). Their
// SourceID is "file:" + the row's path ("screenshot:" + path for a
// screenshot row).
const (
	// CodeFileError: the file is missing, unreadable, too large, matched
	// nothing, or its view failed (warning).
	CodeFileError Code = "file_error"
	// CodeFileOmitted: the token budget left the file out (warning).
	CodeFileOmitted Code = "file_omitted"
	// CodeFileDegraded: the token budget rendered a cheaper view than the
	// one asked for (info).
	CodeFileDegraded Code = "file_degraded"
	// CodeFileFallback: the view is not supported for the file, so a
	// summary was shown (info).
	CodeFileFallback Code = "file_fallback"
	// CodeFileTruncated: a limit of the view cut it (symbols nested too
	// deep, a view over its size limit), so the agent is given less than
	// the view would show (warning).
	CodeFileTruncated Code = "file_truncated"
	// CodeSliceOrphaned: a custom slice could not be found in the current
	// file and is not shown; RelatedID names it by tag, or by its recorded
	// lines "lines S-E" when untagged (warning).
	CodeSliceOrphaned Code = "slice_orphaned"
	// CodeFocusUnmatched: a Tier 3 focus matched no file, so every file
	// but tier 3 and force_full ones is shown in a structural view;
	// SourceID is "files", RelatedID the focus as written (warning).
	CodeFocusUnmatched Code = "focus_unmatched"
)

// fileFindings audits the files rows of m, in order: per row, file_error,
// file_omitted, file_degraded, file_fallback, file_truncated, then
// slice_orphaned for each orphaned slice; then focus_unmatched for each
// focus that matched no file. A manifest without files has none.
func fileFindings(m *manifest.Manifest) []Finding {
	var out []Finding
	for _, r := range m.Files {
		id := fileID(r)
		add := func(code Code, sev Severity, rel string) {
			out = append(out, Finding{SourceID: id, Code: code, Severity: sev, RelatedID: rel})
		}
		if r.Status == aggregate.StatusError {
			add(CodeFileError, Warning, "")
		}
		if r.RealPath != "" {
			add(CodeOutsideProject, Warning, r.RealPath)
		}
		if r.Status == aggregate.StatusOmitted {
			add(CodeFileOmitted, Warning, "")
		} else if r.Degraded != "" {
			add(CodeFileDegraded, Info, "")
		}
		if r.Fallback != "" {
			add(CodeFileFallback, Info, "")
		}
		if r.Truncated != "" && r.Status != aggregate.StatusOmitted {
			add(CodeFileTruncated, Warning, "")
		}
		for _, s := range r.Slices {
			if s.Resolution != slice.ResolutionOrphaned {
				continue
			}
			rel := s.Tag
			if rel == "" {
				rel = fmt.Sprintf("lines %d-%d", s.StartLine, s.EndLine)
			}
			add(CodeSliceOrphaned, Warning, rel)
		}
	}
	for _, f := range m.UnmatchedFocus {
		out = append(out, Finding{SourceID: filesID, Code: CodeFocusUnmatched, Severity: Warning, RelatedID: f,
			Message: aggregate.FocusWarning(f) + "; Tier 3 shows the other files as skeletons, outlines or summaries"})
	}
	return out
}

// fileID is the SourceID of the findings of a file row: "file:" + its path,
// or its kind + ":" + its path ("screenshot:shot.png").
func fileID(r manifest.FileRow) string {
	if r.Kind != "" {
		return string(r.Kind) + ":" + r.Path
	}
	return "file:" + r.Path
}
