package audit

import "github.com/ctxaudit/ctx/manifest"

// index finds the rows a finding is about by their ids. It is built once
// per report, so that putting n findings into words does not search every
// row for each of them. Where ids repeat, the first row wins, as a search
// in order would find it.
type index struct {
	sources      map[string]*manifest.Source
	files        map[string]*manifest.FileRow
	issues       map[issueKey]*manifest.ProfileIssue
	profileFiles map[string]*manifest.ProfileFile
}

// issueKey is what a profile issue's finding keeps of it.
type issueKey struct {
	source string
	code   Code
	target string
}

func newIndex(rep *Report) *index {
	x := &index{sources: map[string]*manifest.Source{}, files: map[string]*manifest.FileRow{},
		issues: map[issueKey]*manifest.ProfileIssue{}, profileFiles: map[string]*manifest.ProfileFile{}}
	for i := range rep.Sources {
		if _, ok := x.sources[rep.Sources[i].ID]; !ok {
			x.sources[rep.Sources[i].ID] = &rep.Sources[i]
		}
	}
	m := rep.Manifest
	if m == nil {
		return x
	}
	for i := range m.Files {
		if id := fileID(m.Files[i]); x.files[id] == nil {
			x.files[id] = &m.Files[i]
		}
	}
	if m.Profile != nil {
		for i := range m.Profile.Issues {
			is := &m.Profile.Issues[i]
			if k := (issueKey{is.SourceID, Code(is.Code), is.Target}); x.issues[k] == nil {
				x.issues[k] = is
			}
		}
		for i := range m.Profile.Files {
			if f := &m.Profile.Files[i]; x.profileFiles[f.ID] == nil {
				x.profileFiles[f.ID] = f
			}
		}
	}
	return x
}

// rowOf finds the row a finding is about: a source row, else a file row;
// neither for the total or a row the report does not have.
func (x *index) rowOf(f Finding) (*manifest.Source, *manifest.FileRow) {
	if f.SourceID == "" {
		return nil, nil
	}
	if s := x.sources[f.SourceID]; s != nil {
		return s, nil
	}
	return nil, x.files[f.SourceID]
}

// profileIssue finds the profile issue behind f, and the profile's record
// of its file.
func (x *index) profileIssue(f Finding) (*manifest.ProfileIssue, *manifest.ProfileFile) {
	is := x.issues[issueKey{f.SourceID, f.Code, f.RelatedID}]
	if is == nil {
		return nil, nil
	}
	return is, x.profileFiles[f.SourceID]
}
