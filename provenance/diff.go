package provenance

import (
	"os"
	"sort"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// Change names one way a row differs between two manifests.
type Change string

// The changes, in the order a row lists them.
const (
	// ChangeAdded: only the new manifest has the row.
	ChangeAdded Change = "added"
	// ChangeRemoved: only the old manifest has the row.
	ChangeRemoved Change = "removed"
	// ChangeReordered: the source moved among the sources both have
	// (it is not on their longest common order).
	ChangeReordered Change = "reordered"
	// ChangePath: the same source id names another file.
	ChangePath Change = "path"
	// ChangeRebudgeted: another budget, other configured limits, or other
	// limits left for the source when its turn came.
	ChangeRebudgeted Change = "rebudgeted"
	// ChangeContent: other source bytes (source_hash), or the file became
	// missing or unreadable.
	ChangeContent Change = "content"
	// ChangeDecision: included, or the reason, differs.
	ChangeDecision Change = "decision"
	// ChangeView: a file is emitted in another view.
	ChangeView Change = "view"
	// ChangeStatus: a file row's status differs.
	ChangeStatus Change = "status"
	// ChangeTokens: the emitted tokens went up or down.
	ChangeTokens Change = "tokens"
	// ChangeLoaded: what the agent loads of a file by itself went up or
	// down (its tokens).
	ChangeLoaded Change = "loaded"
	// ChangeAgentCut: the agent's own limit cuts the file at another byte
	// (Codex's 32 KiB), or now cuts it, or no longer does.
	ChangeAgentCut Change = "agent_cut"
)

// DiffOptions configure [Diff].
type DiffOptions struct {
	// Home is the home directory, shown as ~ when an absolute manifest is
	// compared in its relative form; "" is the process's.
	Home string
}

// DiffReport is the result of [Diff], and the JSON document of `ctx diff
// --format json`. Only rows that differ are listed.
type DiffReport struct {
	// Old and New describe the two manifests.
	Old Summary `json:"old"`
	New Summary `json:"new"`
	// Sources are the sources that differ: those of the new manifest in
	// its order, then the removed ones in the old order.
	Sources []SourceDiff `json:"sources"`
	// Files are the file and screenshot rows that differ, in the same way.
	Files []FileDiff `json:"files"`
	// Budgets are the configured budgets that differ.
	Budgets []BudgetDiff `json:"budgets"`
	// History is set when the history differs.
	History *HistoryDiff `json:"history,omitempty"`
	// Unchanged counts the rows that are the same in both.
	Unchanged Counts `json:"unchanged"`
}

// Summary describes one manifest of a [DiffReport].
type Summary struct {
	// Agent and Estimator are the manifest's.
	Agent string `json:"agent"`
	// ProjectDir is as recorded ("." in a relative manifest).
	ProjectDir string `json:"project_dir"`
	Estimator  string `json:"estimator"`
	// Sources and Files count the manifest's sources and file rows.
	Sources int `json:"sources"`
	Files   int `json:"files"`
	// EmittedTokens is the sum of the emitted tokens of the sources and of
	// the sections (files, history) as recorded, each counted by the
	// manifest's estimator; the separators between them, which the
	// audit's total counts, are not.
	EmittedTokens int `json:"emitted_tokens"`
	// NativeTokens is what the agent loads by itself in every session (the
	// profile's files, as much of each as it keeps); AgentTokens what it
	// gets in all: EmittedTokens and NativeTokens.
	NativeTokens int `json:"native_tokens"`
	AgentTokens  int `json:"agent_tokens"`
}

// Counts counts sources and file rows.
type Counts struct {
	// Sources counts sources, Files file and screenshot rows.
	Sources int `json:"sources"`
	Files   int `json:"files"`
}

// SourceDiff is one source that differs.
type SourceDiff struct {
	// ID is the source id (in the relative form for a native).
	ID string `json:"id"`
	// Changes lists how the source differs, in the order of the Change
	// constants: added or removed alone, or some of the others.
	Changes []Change `json:"changes"`
	// Old and New are the source in each manifest; null where it does not
	// exist.
	Old *SourceState `json:"old"`
	New *SourceState `json:"new"`
}

// SourceState is what a manifest records of a source, in the terms a diff
// compares.
type SourceState struct {
	// Position is the 1-based place in rendering order.
	Position int `json:"position"`
	// Path is relative to the project directory (~ for home); "" for text.
	Path string `json:"path"`
	// Status, Included and Reason are the row's status and decision.
	Status   manifest.Status `json:"status"`
	Included bool            `json:"included"`
	Reason   manifest.Reason `json:"reason"`
	// Budget is the budget's name ("" for none) and MaxChars, MaxLines
	// what was left of it for this source (null: unlimited).
	Budget   string        `json:"budget"`
	MaxChars measure.Limit `json:"max_chars"`
	MaxLines measure.Limit `json:"max_lines"`
	// SourceHash and SourceTokens are those of the source's bytes (null
	// when they could not be read), EmittedTokens those of its fragment.
	SourceHash    *string `json:"source_hash"`
	SourceTokens  *int    `json:"source_tokens"`
	EmittedTokens int     `json:"emitted_tokens"`
	// Native is set for a file the agent loads by itself (the profile's):
	// what it keeps of it (bytes and tokens), what its own limit cuts, and
	// the condition under which it loads it ("" for every session).
	Native *NativeState `json:"native,omitempty"`
}

// NativeState is what an agent keeps of a file it loads by itself.
type NativeState struct {
	LoadedBytes  int    `json:"loaded_bytes"`
	LoadedTokens int    `json:"loaded_tokens"`
	CutBytes     int    `json:"cut_bytes"`
	Condition    string `json:"condition,omitempty"`
}

// FileDiff is one file or screenshot row that differs.
type FileDiff struct {
	// Kind is "" for a project file, "screenshot" for a screenshot.
	Kind manifest.FileKind `json:"kind,omitempty"`
	// Path is the row's path, relative to the files' base directory.
	Path string `json:"path"`
	// Changes lists how the row differs: added or removed alone, or some
	// of content, view, status and tokens.
	Changes []Change `json:"changes"`
	// Old and New are the row in each manifest; null where it does not
	// exist.
	Old *FileState `json:"old"`
	New *FileState `json:"new"`
}

// FileState is what a manifest records of a file row, in the terms a diff
// compares.
type FileState struct {
	// Position is the 1-based place among the file rows.
	Position int `json:"position"`
	// ViewMode and Status are the row's view and status.
	ViewMode aggregate.ViewMode `json:"view_mode"`
	Status   aggregate.Status   `json:"status"`
	// SourceHash is that of the file's bytes (null when not read),
	// EmittedTokens those of its block in the files section.
	SourceHash    *string `json:"source_hash"`
	EmittedTokens int     `json:"emitted_tokens"`
}

// BudgetDiff is a configured budget that was added, removed or changed.
type BudgetDiff struct {
	// Name is the budget's name: a source id or a kind.
	Name string `json:"name"`
	// Old and New are null where the budget does not exist.
	Old *manifest.Budget `json:"old"`
	New *manifest.Budget `json:"new"`
}

// HistoryDiff is the history when it differs.
type HistoryDiff struct {
	// Changes lists how the history differs: added or removed alone, or
	// some of path, content and tokens.
	Changes []Change `json:"changes"`
	// Old and New are the history in each manifest; null where there is none.
	Old *HistoryState `json:"old"`
	New *HistoryState `json:"new"`
}

// HistoryState is what a manifest records of the history, in the terms a
// diff compares.
type HistoryState struct {
	// File is the history file as recorded.
	File string `json:"file"`
	// SourceHash is the BLAKE3 of the file's bytes.
	SourceHash string `json:"source_hash"`
	// MessagesOut and TokensAfter are the messages and tokens sent.
	MessagesOut int `json:"messages_out"`
	TokensAfter int `json:"tokens_after"`
}

// Diff compares an old and a new manifest. Both are compared in their
// relative form (manifest.Relativize with o.Home), so that the ids and
// paths of manifests built in two clones match; a source is the same
// source when its id is, a file row when its kind and path are. Diff
// fails only when a manifest cannot be relativized.
func Diff(old, new *manifest.Manifest, o DiffOptions) (*DiffReport, error) {
	home := o.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	a, err := manifest.Relativize(old, home)
	if err != nil {
		return nil, err
	}
	b, err := manifest.Relativize(new, home)
	if err != nil {
		return nil, err
	}
	rep := &DiffReport{Old: summary(old, a), New: summary(new, b),
		Sources: []SourceDiff{}, Files: []FileDiff{}, Budgets: []BudgetDiff{}}
	diffSources(rep, a, b)
	diffFiles(rep, a.Files, b.Files)
	diffBudgets(rep, a, b)
	rep.History = diffHistory(a.History, b.History)
	return rep, nil
}

func summary(orig, m *manifest.Manifest) Summary {
	s := Summary{Agent: m.Agent, ProjectDir: orig.ProjectDir, Estimator: m.Estimator, Sources: len(m.Sources), Files: len(m.Files)}
	for _, src := range m.Sources {
		if src.EmittedTokens != nil {
			s.EmittedTokens += *src.EmittedTokens
		}
	}
	for _, sec := range m.Sections {
		s.EmittedTokens += sec.Tokens
	}
	for _, n := range natives(m) {
		if n.Condition == "" {
			s.NativeTokens += n.LoadedTokens
		}
	}
	s.AgentTokens = s.EmittedTokens + s.NativeTokens
	return s
}

// natives returns what the agent keeps of each file its profile loads, by
// source id.
func natives(m *manifest.Manifest) map[string]*NativeState {
	out := map[string]*NativeState{}
	if m.Profile == nil {
		return out
	}
	for _, f := range m.Profile.Files {
		out[f.ID] = &NativeState{LoadedBytes: f.LoadedBytes, LoadedTokens: f.LoadedTokens, CutBytes: f.CutBytes, Condition: f.Condition}
	}
	return out
}

func sourceState(i int, s *manifest.Source, native map[string]*NativeState) *SourceState {
	st := &SourceState{Position: i + 1, Path: s.Path, Status: s.Status, Included: s.Included, Reason: s.Reason,
		Budget: s.Budget, MaxChars: s.MaxChars, MaxLines: s.MaxLines, SourceHash: s.SourceHash, SourceTokens: s.SourceTokens,
		Native: native[s.ID]}
	if s.EmittedTokens != nil {
		st.EmittedTokens = *s.EmittedTokens
	}
	return st
}

func diffSources(rep *DiffReport, a, b *manifest.Manifest) {
	oldAt := map[string]int{}
	for i, s := range a.Sources {
		oldAt[s.ID] = i
	}
	newAt := map[string]int{}
	for i, s := range b.Sources {
		newAt[s.ID] = i
	}
	var commonOld, commonNew []string
	for _, s := range a.Sources {
		if _, ok := newAt[s.ID]; ok {
			commonOld = append(commonOld, s.ID)
		}
	}
	for _, s := range b.Sources {
		if _, ok := oldAt[s.ID]; ok {
			commonNew = append(commonNew, s.ID)
		}
	}
	kept := lcs(commonOld, commonNew)
	na, nb := natives(a), natives(b)
	for j := range b.Sources {
		now := &b.Sources[j]
		d := SourceDiff{ID: now.ID, New: sourceState(j, now, nb)}
		i, ok := oldAt[now.ID]
		if !ok {
			d.Changes = []Change{ChangeAdded}
			rep.Sources = append(rep.Sources, d)
			continue
		}
		was := &a.Sources[i]
		d.Old = sourceState(i, was, na)
		if !kept[now.ID] {
			d.Changes = append(d.Changes, ChangeReordered)
		}
		if was.Path != now.Path {
			d.Changes = append(d.Changes, ChangePath)
		}
		ob, _ := a.Budgets.Get(was.Budget)
		nb, _ := b.Budgets.Get(now.Budget)
		if was.Budget != now.Budget || ob != nb || was.MaxChars != now.MaxChars || was.MaxLines != now.MaxLines {
			d.Changes = append(d.Changes, ChangeRebudgeted)
		}
		if !sameHash(was.SourceHash, now.SourceHash) || was.Status != now.Status {
			d.Changes = append(d.Changes, ChangeContent)
		}
		if was.Included != now.Included || was.Reason != now.Reason {
			d.Changes = append(d.Changes, ChangeDecision)
		}
		if d.Old.EmittedTokens != d.New.EmittedTokens {
			d.Changes = append(d.Changes, ChangeTokens)
		}
		if o, n := d.Old.Native, d.New.Native; o != nil || n != nil {
			var zero NativeState
			if o == nil {
				o = &zero
			}
			if n == nil {
				n = &zero
			}
			if o.LoadedTokens != n.LoadedTokens || o.LoadedBytes != n.LoadedBytes {
				d.Changes = append(d.Changes, ChangeLoaded)
			}
			if o.CutBytes != n.CutBytes {
				d.Changes = append(d.Changes, ChangeAgentCut)
			}
		}
		if len(d.Changes) == 0 {
			rep.Unchanged.Sources++
			continue
		}
		rep.Sources = append(rep.Sources, d)
	}
	for i := range a.Sources {
		if _, ok := newAt[a.Sources[i].ID]; !ok {
			rep.Sources = append(rep.Sources, SourceDiff{ID: a.Sources[i].ID, Changes: []Change{ChangeRemoved}, Old: sourceState(i, &a.Sources[i], na)})
		}
	}
}

// lcs returns the members of a longest common subsequence of a and b,
// which hold the same distinct ids: the ids outside it moved. Of the
// longest ones it returns the one that, read from the start, skips an id
// of b whenever that still leaves a longest one (a source moved up is the
// one reported): the choice of the table of lengths walked from its
// corner, found in time n log n rather than with its n × m cells (800 MB
// for 10,000 sources).
//
// As b is a permutation of a, a common subsequence is an increasing run of
// the positions in a of b's ids (pos). The walk takes b[j] exactly when no
// later id could stand in for it: when, among the ids that start an
// increasing run as long as the one still needed (runs[r]) and lie after
// the last one taken in a, b[j] is the last in b.
func lcs(a, b []string) map[string]bool {
	at := make(map[string]int, len(a))
	for i, id := range a {
		at[id] = i
	}
	pos := make([]int, len(b))
	for j, id := range b {
		pos[j] = at[id]
	}
	// long[j]: the longest increasing run of pos that starts at j, from
	// the right, with a Fenwick tree of the longest run by position in a
	// (indexed from the end, so that a prefix holds the larger positions)
	n := len(a)
	tree := make([]int, n+1)
	long := make([]int, len(b))
	most := 0
	for j := len(b) - 1; j >= 0; j-- {
		best := 0
		for k := n - 1 - pos[j]; k > 0; k -= k & -k { // positions > pos[j]
			best = max(best, tree[k])
		}
		long[j] = best + 1
		most = max(most, long[j])
		for k := n - pos[j]; k <= n; k += k & -k {
			tree[k] = max(tree[k], long[j])
		}
	}
	// runs[r]: the indexes j with long[j] == r, increasing; their
	// positions decrease (an earlier one with a smaller position would
	// start a longer run)
	runs := make([][]int, most+1)
	for j, l := range long {
		runs[l] = append(runs[l], j)
	}
	out := make(map[string]bool, most)
	from, above := 0, 0 // the next index of b, the least position in a
	for r := most; r > 0; r-- {
		c := runs[r]
		// the last index >= from whose position is >= above: positions
		// decrease along c, so those form a prefix of c[lo:]
		lo := sort.SearchInts(c, from)
		k := lo + sort.Search(len(c)-lo, func(x int) bool { return pos[c[lo+x]] < above }) - 1
		j := c[k]
		out[b[j]] = true
		from, above = j+1, pos[j]+1
	}
	return out
}

func sameHash(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func fileState(i int, f *manifest.FileRow) *FileState {
	return &FileState{Position: i + 1, ViewMode: f.ViewMode, Status: f.Status, SourceHash: f.SourceHash, EmittedTokens: f.EmittedTokens}
}

func diffFiles(rep *DiffReport, a, b []manifest.FileRow) {
	type key struct {
		kind manifest.FileKind
		path string
	}
	oldAt := map[key]int{}
	for i, f := range a {
		oldAt[key{f.Kind, f.Path}] = i
	}
	newKeys := map[key]bool{}
	for j := range b {
		nf := &b[j]
		k := key{nf.Kind, nf.Path}
		newKeys[k] = true
		d := FileDiff{Kind: nf.Kind, Path: nf.Path, New: fileState(j, nf)}
		i, ok := oldAt[k]
		if !ok {
			d.Changes = []Change{ChangeAdded}
			rep.Files = append(rep.Files, d)
			continue
		}
		of := &a[i]
		d.Old = fileState(i, of)
		if !sameHash(of.SourceHash, nf.SourceHash) {
			d.Changes = append(d.Changes, ChangeContent)
		}
		if of.ViewMode != nf.ViewMode {
			d.Changes = append(d.Changes, ChangeView)
		}
		if of.Status != nf.Status {
			d.Changes = append(d.Changes, ChangeStatus)
		}
		if of.EmittedTokens != nf.EmittedTokens {
			d.Changes = append(d.Changes, ChangeTokens)
		}
		if len(d.Changes) == 0 {
			rep.Unchanged.Files++
			continue
		}
		rep.Files = append(rep.Files, d)
	}
	for i := range a {
		if !newKeys[key{a[i].Kind, a[i].Path}] {
			rep.Files = append(rep.Files, FileDiff{Kind: a[i].Kind, Path: a[i].Path, Changes: []Change{ChangeRemoved}, Old: fileState(i, &a[i])})
		}
	}
}

func diffBudgets(rep *DiffReport, a, b *manifest.Manifest) {
	for _, nb := range b.Budgets {
		ob, ok := a.Budgets.Get(nb.Name)
		switch {
		case !ok:
			rep.Budgets = append(rep.Budgets, BudgetDiff{Name: nb.Name, New: &nb.Budget})
		case ob != nb.Budget:
			rep.Budgets = append(rep.Budgets, BudgetDiff{Name: nb.Name, Old: &ob, New: &nb.Budget})
		}
	}
	for _, ob := range a.Budgets {
		if _, ok := b.Budgets.Get(ob.Name); !ok {
			rep.Budgets = append(rep.Budgets, BudgetDiff{Name: ob.Name, Old: &ob.Budget})
		}
	}
}

func historyState(h *manifest.History) *HistoryState {
	if h == nil {
		return nil
	}
	return &HistoryState{File: h.File, SourceHash: h.SourceHash, MessagesOut: h.MessagesOut, TokensAfter: h.TokensAfter}
}

func diffHistory(a, b *manifest.History) *HistoryDiff {
	d := &HistoryDiff{Old: historyState(a), New: historyState(b)}
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		d.Changes = []Change{ChangeAdded}
	case b == nil:
		d.Changes = []Change{ChangeRemoved}
	default:
		if a.File != b.File {
			d.Changes = append(d.Changes, ChangePath)
		}
		if a.SourceHash != b.SourceHash {
			d.Changes = append(d.Changes, ChangeContent)
		}
		if a.TokensAfter != b.TokensAfter {
			d.Changes = append(d.Changes, ChangeTokens)
		}
		if len(d.Changes) == 0 {
			return nil
		}
	}
	return d
}
