package provenance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
)

// State is what verifying one row found.
type State string

// The states of a row. Every state but unchanged is drift.
const (
	// StateUnchanged: the same bytes (or still missing, still unreadable).
	StateUnchanged State = "unchanged"
	// StateChanged: other bytes (old and new hash), or the file became
	// unreadable or readable.
	StateChanged State = "changed"
	// StateMissing: the file was read and is gone.
	StateMissing State = "missing"
	// StateAppeared: the file was missing and exists now.
	StateAppeared State = "appeared"
	// StateNew: rebuilding the manifest from the same inputs would add
	// this source or file.
	StateNew State = "new"
	// StateRemoved: rebuilding would no longer list this source or file.
	StateRemoved State = "removed"
	// StateRedecided: the same bytes, but rebuilding decides otherwise
	// (included or the reason) or emits other text or another number of
	// tokens: a budget, the estimator or the profile changed. The note
	// says what.
	StateRedecided State = "redecided"
)

// States lists the states in the order reports count them.
func States() []State {
	return []State{StateUnchanged, StateChanged, StateMissing, StateAppeared, StateNew, StateRemoved, StateRedecided}
}

// RowKind says what a row of a [VerifyReport] records.
type RowKind string

// The kinds of rows.
const (
	KindSource     RowKind = "source"
	KindFile       RowKind = "file"
	KindScreenshot RowKind = "screenshot"
	KindHistory    RowKind = "history"
	KindBeads      RowKind = "beads"
)

// VerifyReport is the result of [Verify], and the JSON document of `ctx
// verify --format json`.
type VerifyReport struct {
	// Agent is the manifest's agent.
	Agent string `json:"agent"`
	// ProjectDir is the directory the paths were resolved against:
	// absolute, symlinks resolved.
	ProjectDir string `json:"project_dir"`
	// Paths is "relative" or "absolute": how the manifest records paths.
	Paths string `json:"paths"`
	// Settings are the settings the rebuild does not share with the
	// manifest (the estimator, the profile, the budgets), in that order.
	Settings []SettingDrift `json:"settings"`
	// Rows are the sources in the manifest's order and then the new
	// ones, the files likewise, then the Beads store and the history file.
	Rows []VerifyRow `json:"rows"`
	// Drifted counts the settings that changed and the rows that are not
	// unchanged, machine-local rows aside.
	Drifted int `json:"drifted"`
	// Local counts the machine-local rows that are not unchanged: reported,
	// not drift.
	Local int `json:"machine_local_changes"`
}

// SettingDrift is a setting of the manifest that differs now: ctx.toml or
// the flags changed it since the manifest was written.
type SettingDrift struct {
	// Setting is "estimator", "profile" or "budget:" and the budget's
	// name.
	Setting string `json:"setting"`
	// Old is what the manifest records, New what the rebuild has; "" where
	// there is none (no profile, a budget added or removed). A budget is
	// shown as its limits, "max_lines 100, max_tokens 2000" ("unlimited"
	// when it sets none).
	Old string `json:"old"`
	New string `json:"new"`
}

// DriftedRows returns the number of rows that are not unchanged.
func (r *VerifyReport) DriftedRows() int { return r.Drifted - len(r.Settings) }

// VerifyRow is one source, file or history file of a [VerifyReport].
type VerifyRow struct {
	// Kind says what the row records: source, file, screenshot, beads or
	// history.
	Kind RowKind `json:"kind"`
	// ID is the source id; "file:PATH" or "screenshot:PATH" for a file
	// row (the id the audit gives it); "beads" for the Beads store;
	// "history" for the history file.
	ID string `json:"id"`
	// Path is the file as a relative manifest records it: relative to the
	// project directory, ~ for the home directory, else absolute (files:
	// relative to their base directory); "" for a text source.
	Path string `json:"path"`
	// State is what verifying found; every state but unchanged is drift.
	State State `json:"state"`
	// OldStatus and NewStatus are the source status (available, empty,
	// missing, unreadable) or the file row status (ok, error, binary, ...);
	// "" on the side where the row does not exist.
	OldStatus string `json:"old_status"`
	NewStatus string `json:"new_status"`
	// OldHash and NewHash are the BLAKE3 of the bytes; null when they
	// could not be read.
	OldHash *string `json:"old_hash"`
	NewHash *string `json:"new_hash"`
	// Note says more when the state alone does not ("no longer a
	// candidate" for a row that also changed).
	Note string `json:"note,omitempty"`
	// MachineLocal is set, in a manifest of relative paths, for a file
	// outside the repository (the home directory, a user-level agent file,
	// an absolute path): it is each machine's own, so whatever state it
	// has is reported but is not drift.
	MachineLocal bool `json:"machine_local,omitempty"`
}

// Count returns the number of rows in state s.
func (r *VerifyReport) Count(s State) int {
	n := 0
	for _, row := range r.Rows {
		if row.State == s {
			n++
		}
	}
	return n
}

// ProjectDir returns the directory to verify m in, made absolute with
// symlinks resolved: for a relative manifest dir, or the working directory
// when dir is ""; for an absolute manifest its project_dir, which dir must
// name when it is not "". home expands a leading ~ of dir; "" is the
// process's home directory.
func ProjectDir(m *manifest.Manifest, dir, home string) (string, error) {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if !m.Relative() {
		if dir == "" {
			return m.ProjectDir, nil
		}
		d, err := discover.ProjectDir(dir, home)
		if err != nil {
			return "", err
		}
		if d != m.ProjectDir {
			return "", fmt.Errorf("project directory %s: the manifest records absolute paths in %s (build it with relative paths to verify it elsewhere)", dir, m.ProjectDir)
		}
		return d, nil
	}
	return discover.ProjectDir(dir, home)
}

// Verify checks m against the files it records. rebuild are the options
// the manifest would be built with now (config.Project.ManifestOptions
// with the command's flags): its project directory (see [ProjectDir];
// "" is the working directory) resolves the paths of a relative manifest,
// its home directory (Discover.Home, else the process's) expands ~, its
// MaxSourceBytes bounds each source as in manifest.Build, and its
// discovery and files options give the lists to compare with. The agent
// and the relative form are the manifest's; so are the profile and the
// estimator when rebuild leaves them empty (neither ctx.toml nor a flag
// names one); the history is read from the file it records.
//
// Each instruction source with a path is read again (manifest.ReadSource)
// and its hash compared with the recorded source_hash; a text source is
// compared with the rebuilt source of the same id. Files rows are
// compared with the rows of the rebuilt manifest by path, so that a file
// a glob now matches is new. Verify never changes a file. An error means
// the inputs are bad (the directory, ctx.toml); drift is in the report.
func Verify(ctx context.Context, m *manifest.Manifest, rebuild manifest.Options) (*VerifyReport, error) {
	home := rebuild.Discover.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	dir, err := ProjectDir(m, rebuild.Discover.ProjectDir, home)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("project directory %s: not a directory", dir)
	}
	rebuild.Discover.Agent = m.Agent
	// what neither ctx.toml nor the flags set is the manifest's: a manifest
	// built with --profile or --estimator verifies without them
	if rebuild.Profile == "" && m.Profile != nil {
		name, err := profile.Parse(m.Profile.Name)
		if err != nil {
			return nil, fmt.Errorf("the manifest's profile: %w", err)
		}
		rebuild.Profile = name
	}
	if rebuild.Estimator == nil && m.Estimator != "" {
		est, err := measure.EstimatorNamed(m.Estimator)
		if err != nil {
			return nil, fmt.Errorf("the manifest's estimator: %w", err)
		}
		rebuild.SetEstimator(est)
	}
	rebuild.Discover.ProjectDir = dir
	rebuild.Discover.Home = home
	rebuild.RelativePaths = m.Relative()
	// the history file and the Beads store are read below: a missing one
	// is drift, not an error
	rebuild.History, rebuild.Beads = nil, nil
	now, err := manifest.Build(ctx, rebuild)
	if err != nil {
		return nil, err
	}
	rep := &VerifyReport{Agent: m.Agent, ProjectDir: dir, Paths: "absolute", Settings: settings(m, now), Rows: []VerifyRow{}}
	if m.Relative() {
		rep.Paths = manifest.PathsRelative
	}
	v := verifier{dir: dir, home: home, max: rebuild.MaxSourceBytes}
	if err := v.sources(ctx, rep, m, now); err != nil {
		return nil, err
	}
	// where file rows are looked for (only to tell a deleted file from one
	// no longer matched): the base directories, the project's by default
	base, shots := dir, ""
	if f := rebuild.Files; f != nil {
		if f.BaseDir != "" {
			base = f.BaseDir
		}
		shots = f.ScreenshotBaseDir
	}
	if shots == "" {
		shots = base
	}
	v.files(rep, m.Files, now.Files, base, shots)
	if m.Beads != nil && m.Beads.File != "" {
		rep.Rows = append(rep.Rows, v.beads(m.Beads))
	}
	if m.History != nil && m.History.File != "" {
		rep.Rows = append(rep.Rows, v.history(m.History))
	}
	rep.Drifted = len(rep.Settings)
	for i := range rep.Rows {
		row := &rep.Rows[i]
		row.MachineLocal = m.Paths == manifest.PathsRelative && machineLocal(row.Path)
		switch {
		case row.State == StateUnchanged:
		case row.MachineLocal:
			rep.Local++
		default:
			rep.Drifted++
		}
	}
	return rep, nil
}

// machineLocal reports whether a path of a relative manifest names a file
// outside the repository: one in the home directory (~) or absolute (a
// relative manifest records the files of the repository relative to the
// project directory, ../ up to the repository root).
func machineLocal(p string) bool {
	return p == "~" || strings.HasPrefix(p, "~/") || filepath.IsAbs(p)
}

// settings compares the settings of the stored manifest m with those of
// the rebuilt one.
func settings(m, now *manifest.Manifest) []SettingDrift {
	out := []SettingDrift{}
	if m.Estimator != now.Estimator {
		out = append(out, SettingDrift{Setting: "estimator", Old: m.Estimator, New: now.Estimator})
	}
	name := func(p *manifest.Profile) string {
		if p == nil {
			return ""
		}
		return p.Name
	}
	if a, b := name(m.Profile), name(now.Profile); a != b {
		out = append(out, SettingDrift{Setting: "profile", Old: a, New: b})
	}
	for _, nb := range now.Budgets {
		ob, ok := m.Budgets.Get(nb.Name)
		switch {
		case !ok:
			out = append(out, SettingDrift{Setting: "budget:" + nb.Name, New: limits(nb.Budget)})
		case ob != nb.Budget:
			out = append(out, SettingDrift{Setting: "budget:" + nb.Name, Old: limits(ob), New: limits(nb.Budget)})
		}
	}
	for _, ob := range m.Budgets {
		if _, ok := now.Budgets.Get(ob.Name); !ok {
			out = append(out, SettingDrift{Setting: "budget:" + ob.Name, Old: limits(ob.Budget)})
		}
	}
	return out
}

// redecided says how the rebuilt source now differs from the stored one
// s, whose bytes are the same: its decision, the text it emits, and the
// tokens of that text; "" when it does not.
func redecided(s, now *manifest.Source) string {
	var notes []string
	if s.Included != now.Included || s.Reason != now.Reason || s.DuplicateOf != now.DuplicateOf {
		notes = append(notes, decision(s)+" → "+decision(now))
	}
	ob, nb := deref(s.EmittedBytes), deref(now.EmittedBytes)
	if ob != nb || !sameHash(s.EmittedHash, now.EmittedHash) {
		if ob != nb {
			notes = append(notes, "emitted "+display.Int(ob)+" → "+display.Int(nb)+" bytes")
		} else {
			notes = append(notes, "other emitted text")
		}
	}
	if ot, nt := deref(s.EmittedTokens), deref(now.EmittedTokens); ot != nt {
		notes = append(notes, "emitted "+display.Int(ot)+" → "+display.Int(nt)+" tokens")
	}
	// the emitted bytes are said by the decision when nothing is sent
	if len(notes) == 3 && (!s.Included || !now.Included) {
		notes = append(notes[:1], notes[2])
	}
	return strings.Join(notes, "; ")
}

// decision shows a source's decision: its reason, with the row it
// duplicates.
func decision(s *manifest.Source) string {
	if s.DuplicateOf != "" {
		return string(s.Reason) + " (" + s.DuplicateOf + ")"
	}
	return string(s.Reason)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// verifier holds what every row needs.
type verifier struct {
	dir, home string
	max       int64
}

// show is how a report shows a recorded path.
func (v *verifier) show(p string) string {
	if p == "" {
		return ""
	}
	return manifest.RelativePath(manifest.ResolvePath(p, v.dir, v.home), v.dir, v.home)
}

func (v *verifier) sources(ctx context.Context, rep *VerifyReport, m, now *manifest.Manifest) error {
	type key struct{ id, path string }
	rebuilt := map[key]*manifest.Source{}
	for i := range now.Sources {
		s := &now.Sources[i]
		rebuilt[key{s.ID, s.Path}] = s
	}
	stored := map[key]bool{}
	for _, s := range m.Sources {
		if err := ctx.Err(); err != nil {
			return err
		}
		stored[key{s.ID, s.Path}] = true
		match := rebuilt[key{s.ID, s.Path}]
		row := VerifyRow{Kind: KindSource, ID: s.ID, Path: v.show(s.Path), OldStatus: string(s.Status), OldHash: s.SourceHash}
		switch {
		case s.Path != "":
			st, b := manifest.ReadSource(manifest.ResolvePath(s.Path, v.dir, v.home), v.max)
			row.NewStatus = string(st)
			if b != nil {
				row.NewHash = hashp(b)
			}
		case match != nil:
			row.NewStatus, row.NewHash = string(match.Status), match.SourceHash
		default:
			// a text source that ctx.toml no longer has
			row.NewStatus, row.NewHash = row.OldStatus, row.OldHash
		}
		row.State = compare(row.OldStatus == string(manifest.StatusMissing), row.OldHash,
			row.NewStatus == string(manifest.StatusMissing), row.NewHash, row.OldStatus != row.NewStatus)
		switch {
		case match == nil && row.State == StateUnchanged:
			row.State = StateRemoved
		case match == nil:
			row.Note = "no longer a candidate"
		case row.State == StateUnchanged:
			if note := redecided(&s, match); note != "" {
				row.State, row.Note = StateRedecided, note
			}
		}
		rep.Rows = append(rep.Rows, row)
	}
	for _, s := range now.Sources {
		if stored[key{s.ID, s.Path}] {
			continue
		}
		rep.Rows = append(rep.Rows, VerifyRow{Kind: KindSource, ID: s.ID, Path: v.show(s.Path), State: StateNew,
			NewStatus: string(s.Status), NewHash: s.SourceHash})
	}
	return nil
}

// files compares the stored file rows with the rebuilt ones by kind and
// path; base and shots are the directories of files and screenshots.
func (v *verifier) files(rep *VerifyReport, stored, rebuilt []manifest.FileRow, base, shots string) {
	type key struct {
		kind manifest.FileKind
		path string
	}
	now := map[key]*manifest.FileRow{}
	for i := range rebuilt {
		now[key{rebuilt[i].Kind, rebuilt[i].Path}] = &rebuilt[i]
	}
	seen := map[key]bool{}
	for _, f := range stored {
		k := key{f.Kind, f.Path}
		seen[k] = true
		row := fileRow(f)
		row.OldStatus, row.OldHash = string(f.Status), f.SourceHash
		dir := base
		if f.Kind == manifest.FileKindScreenshot {
			dir = shots
		}
		gone := !exists(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if n := now[k]; n != nil {
			row.NewStatus, row.NewHash = string(n.Status), n.SourceHash
			switch {
			case f.SourceHash == nil && n.SourceHash == nil:
				// still not read (missing, too large, matched nothing)
				row.State = StateUnchanged
			case f.SourceHash == nil:
				row.State = StateAppeared
			case n.SourceHash == nil && gone:
				row.State = StateMissing
			case n.SourceHash == nil || *n.SourceHash != *f.SourceHash:
				row.State = StateChanged
			default:
				row.State = StateUnchanged
				if note := fileRedecided(&f, n); note != "" {
					row.State, row.Note = StateRedecided, note
				}
			}
		} else {
			row.State = StateRemoved
			if f.SourceHash != nil && gone {
				row.State = StateMissing
			}
		}
		rep.Rows = append(rep.Rows, row)
	}
	for _, f := range rebuilt {
		if seen[key{f.Kind, f.Path}] {
			continue
		}
		row := fileRow(f)
		row.State, row.NewStatus, row.NewHash = StateNew, string(f.Status), f.SourceHash
		rep.Rows = append(rep.Rows, row)
	}
}

// fileRedecided says how the rebuilt file row now differs from the stored
// one f, whose bytes are the same: its view, its status, its block in the
// files section; "" when it does not.
func fileRedecided(f, now *manifest.FileRow) string {
	var notes []string
	if f.ViewMode != now.ViewMode {
		notes = append(notes, fmt.Sprintf("view %s → %s", f.ViewMode, now.ViewMode))
	}
	if f.Status != now.Status {
		notes = append(notes, fmt.Sprintf("status %s → %s", f.Status, now.Status))
	}
	if f.EmittedTokens != now.EmittedTokens {
		notes = append(notes, "emitted "+display.Int(f.EmittedTokens)+" → "+display.Int(now.EmittedTokens)+" tokens")
	} else if f.EmittedHash != now.EmittedHash && len(notes) == 0 {
		notes = append(notes, "other emitted text")
	}
	return strings.Join(notes, "; ")
}

func fileRow(f manifest.FileRow) VerifyRow {
	if f.Kind == manifest.FileKindScreenshot {
		return VerifyRow{Kind: KindScreenshot, ID: "screenshot:" + f.Path, Path: f.Path}
	}
	return VerifyRow{Kind: KindFile, ID: "file:" + f.Path, Path: f.Path}
}

// beads reads the Beads store again: the file recorded, or, when there
// was none, the store the directory recorded holds now.
func (v *verifier) beads(b *manifest.Beads) VerifyRow {
	row := VerifyRow{Kind: KindBeads, ID: "beads", Path: v.show(b.File), OldHash: b.SourceHash,
		OldStatus: string(manifest.StatusAvailable)}
	if b.SourceHash == nil {
		row.OldStatus = string(manifest.StatusMissing)
	}
	file := beads.StoreFile(manifest.ResolvePath(b.File, v.dir, v.home))
	var data []byte
	err := fs.ErrNotExist
	if file != "" {
		data, _, err = fileio.Read(file, beads.MaxBytes)
	}
	row.readNow(data, err)
	row.State = compare(b.SourceHash == nil, row.OldHash, row.NewStatus == string(manifest.StatusMissing), row.NewHash, false)
	return row
}

// readNow records what reading the file again gave: missing, unreadable
// (with the cause as the note) or available with the hash of data.
func (row *VerifyRow) readNow(data []byte, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		row.NewStatus = string(manifest.StatusMissing)
	case err != nil:
		row.NewStatus = string(manifest.StatusUnreadable)
		row.Note = fileio.Cause(err).Error()
	default:
		row.NewStatus, row.NewHash = string(manifest.StatusAvailable), hashp(data)
	}
}

// history reads the history file again.
func (v *verifier) history(h *manifest.History) VerifyRow {
	old := h.SourceHash
	row := VerifyRow{Kind: KindHistory, ID: "history", Path: v.show(h.File),
		OldStatus: string(manifest.StatusAvailable), OldHash: &old}
	data, _, err := fileio.Read(manifest.ResolvePath(h.File, v.dir, v.home), history.MaxRequestBytes)
	row.readNow(data, err)
	row.State = compare(false, row.OldHash, row.NewStatus == string(manifest.StatusMissing), row.NewHash, false)
	return row
}

// compare decides the state of a row from what was and what is: whether
// the file was and is missing, the hashes (nil when the bytes could not be
// read), and whether the status changed otherwise.
func compare(wasMissing bool, old *string, isMissing bool, now *string, statusChanged bool) State {
	switch {
	case old != nil && now != nil:
		if *old == *now {
			return StateUnchanged
		}
		return StateChanged
	case wasMissing && isMissing:
		return StateUnchanged
	case wasMissing:
		return StateAppeared
	case isMissing:
		return StateMissing
	case old == nil && now == nil && !statusChanged:
		// still unreadable
		return StateUnchanged
	}
	// readable ↔ unreadable
	return StateChanged
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

func hashp(b []byte) *string {
	h := measure.Hash(b)
	return &h
}
