package manifest

import (
	"context"
	"os"
	"strings"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
)

// DefaultAgent is the agent of a manifest built with neither an agent nor
// a profile.
const DefaultAgent = "generic"

// Profile records what the agent of an agent profile loads by itself (see
// package profile): each file it loads, in its load order, with the rule
// and how much of it the agent keeps, and the problems found. The files
// are also source rows (delivery native), so ctx never sends them again.
type Profile struct {
	Name string `json:"name"`
	// Root is the project root the agent's rules walk from ("" when none
	// was found).
	Root   string         `json:"root"`
	Files  []ProfileFile  `json:"files"`
	Issues []ProfileIssue `json:"issues"`
}

// ProfileFile is one file an agent loads by itself.
type ProfileFile struct {
	// ID is the source row of the file.
	ID       string `json:"id"`
	Rule     string `json:"rule"`
	Evidence string `json:"evidence"`
	// ImportedBy is the source row of the file that imports this one, and
	// Import the reference as written there; absent for files a rule loads.
	ImportedBy string `json:"imported_by,omitempty"`
	Import     string `json:"import,omitempty"`
	// Condition is absent for a file loaded in every session; otherwise
	// when the agent loads it (applyTo, globs, agent-requested, manual).
	Condition string `json:"condition,omitempty"`
	// LoadedBytes and LoadedTokens measure what the agent keeps of the
	// file (the text it sends: Claude Code leaves out frontmatter and HTML
	// comments, Codex cuts); CutBytes what it drops, by its own limits or
	// its own rules.
	LoadedBytes  int `json:"loaded_bytes"`
	LoadedTokens int `json:"loaded_tokens"`
	CutBytes     int `json:"cut_bytes"`
}

// ProfileIssue is a problem found while applying the profile.
type ProfileIssue struct {
	// Code is agent_truncation, import_cycle, import_missing,
	// import_too_deep or over_agent_limit.
	Code profile.Code `json:"code"`
	// SourceID is the row of the file concerned (the importing file for
	// import issues).
	SourceID string `json:"source_id"`
	// Target is the import reference or the cycle.
	Target string `json:"target,omitempty"`
	// Count and Limit are the numbers behind the issue, in Unit (bytes,
	// chars or lines).
	Count int    `json:"count,omitempty"`
	Limit int    `json:"limit,omitempty"`
	Unit  string `json:"unit,omitempty"`
	// Advice is true when the limit is the agent's advice rather than a
	// rule it enforces.
	Advice bool `json:"advice,omitempty"`
	// Detail says which rule of the agent applies.
	Detail string `json:"detail"`
}

// Discover returns the candidate sources of opts in order, as [Build]
// considers them: with Options.Profile, the files that agent loads by
// itself are natives (after the native_paths natives, in the agent's load
// order), and the chain is returned too. The agent defaults to the profile's
// name, then to [DefaultAgent].
func Discover(ctx context.Context, opts Options) (*discover.Result, *profile.Chain, error) {
	d := opts.Discover
	if d.Agent == "" {
		d.Agent = DefaultAgent
		if opts.Profile != "" {
			d.Agent = string(opts.Profile)
		}
	}
	var chain *profile.Chain
	if opts.Profile != "" {
		po := opts.ProfileOptions
		if po.Dir == "" {
			dir := d.ProjectDir
			if dir == "" {
				wd, err := os.Getwd()
				if err != nil {
					return nil, nil, err
				}
				dir = wd
			}
			if discover.Blank(dir) {
				return nil, nil, &discover.Error{Field: "project_dir", Msg: "must not be empty"}
			}
			home := d.Home
			if home == "" {
				home, _ = os.UserHomeDir()
			}
			p, err := discover.ProjectDir(dir, home)
			if err != nil {
				return nil, nil, err
			}
			po.Dir = p
		}
		if po.Home == "" {
			po.Home = d.Home
		}
		if po.Getenv == nil {
			po.Getenv = d.Getenv
		}
		var err error
		if chain, err = profile.Load(ctx, opts.Profile, po); err != nil {
			return nil, nil, err
		}
		if opts.RelativePaths {
			chain = repositoryFiles(chain, po.Dir)
		}
		origin := "profile:" + string(opts.Profile)
		d.Natives = append([]discover.Native(nil), d.Natives...)
		// the importer as a relative manifest records it, the same in every
		// clone: relative to the project (../ up to the repository root),
		// else with home as ~
		rel := newRelativizer(po.Dir, po.Home)
		rel.setRoot(chain.Root)
		for _, f := range chain.Files {
			ev := f.Rule + " (" + f.Evidence + ")"
			if f.ImportedBy != "" {
				ev = f.Rule + ": " + f.Import + " in " + rel.path(f.ImportedBy) + " (" + f.Evidence + ")"
			}
			if f.Condition != "" {
				ev += "; loaded when " + f.Condition
			}
			d.Natives = append(d.Natives, discover.Native{Path: f.Path, Evidence: ev, Origin: origin, Scope: f.Scope})
		}
	}
	res, err := discover.Sources(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	return res, chain, nil
}

// profileRecord records chain against the rows.
func profileRecord(chain *profile.Chain, rows []row, est measure.Estimator) *Profile {
	ids := map[string]string{}
	raw := map[string][]byte{}
	for i := range rows {
		r := &rows[i]
		if r.c.Delivery != discover.DeliveryNative || r.c.IsText() {
			continue
		}
		if _, ok := ids[r.canonical]; !ok {
			ids[r.canonical] = r.c.ID
			raw[r.c.ID] = r.raw
		}
	}
	idOf := func(p string) string {
		if id, ok := ids[discover.Canonical(p)]; ok {
			return id
		}
		return "native:" + p
	}
	rec := &Profile{Name: string(chain.Profile), Root: chain.Root, Files: []ProfileFile{}, Issues: []ProfileIssue{}}
	for _, f := range chain.Files {
		id := idOf(f.Path)
		pf := ProfileFile{ID: id, Rule: f.Rule, Evidence: f.Evidence, Import: f.Import, Condition: f.Condition,
			LoadedBytes: f.Loaded, CutBytes: f.Size - f.Loaded}
		if f.ImportedBy != "" {
			pf.ImportedBy = idOf(f.ImportedBy)
		}
		if b := raw[id]; f.Loaded+f.Stripped <= len(b) {
			pf.LoadedTokens = measure.Measure(chain.Kept(f, b), est).Tokens
		}
		rec.Files = append(rec.Files, pf)
	}
	for _, is := range chain.Issues {
		rec.Issues = append(rec.Issues, ProfileIssue{Code: is.Code, SourceID: idOf(is.Path), Target: is.Target,
			Count: is.Bytes, Limit: is.Limit, Unit: is.Unit, Advice: is.Advice, Detail: is.Detail})
	}
	return rec
}

// repositoryFiles returns chain with only the files of the repository: the
// files in the project directory dir or below the chain's root. A relative
// manifest is the one a repository commits, the same in every clone; the
// agent's files in the home directory (~/.claude/CLAUDE.md,
// ~/.codex/AGENTS.md, ~/.gemini/GEMINI.md and what they import), the
// managed policy and the files above the repository belong to a person or
// a machine, and a teammate with other ones would see drift. The issues
// about them go too, and so do imports of ~/ paths, which name a file of
// the person's.
func repositoryFiles(chain *profile.Chain, dir string) *profile.Chain {
	inside := func(p string) bool {
		return within(p, dir) || chain.Root != "" && within(p, chain.Root)
	}
	out := *chain
	out.Files, out.Issues = nil, nil
	kept := map[string]bool{}
	for _, f := range chain.Files {
		if inside(f.Path) {
			out.Files = append(out.Files, f)
			kept[f.Path] = true
		}
	}
	for _, is := range chain.Issues {
		if kept[is.Path] && !strings.HasPrefix(is.Target, "@~/") {
			out.Issues = append(out.Issues, is)
		}
	}
	return &out
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// shadowedBy maps the canonical path of each file the chain's agent
// deliberately skips to the id of the native row that takes its place
// (see profile.Shadowed); nil without a chain.
func shadowedBy(chain *profile.Chain, rows []row) map[string]string {
	if chain == nil || len(chain.Shadowed) == 0 {
		return nil
	}
	ids := map[string]string{}
	for i := range rows {
		if r := &rows[i]; r.c.Delivery == discover.DeliveryNative && !r.c.IsText() {
			if _, ok := ids[r.canonical]; !ok {
				ids[r.canonical] = r.c.ID
			}
		}
	}
	out := map[string]string{}
	for _, s := range chain.Shadowed {
		// a file that takes the place of another without being loaded
		// (unreadable) shadows nothing ctx could name
		if by, ok := ids[discover.Canonical(s.By)]; ok {
			out[discover.Canonical(s.Path)] = by
		}
	}
	return out
}
