package config

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"
)

// ProjectOptions say which project to load. Every field may be left empty:
// the defaults are those of the ctx command.
type ProjectOptions struct {
	// Dir is the project directory; "" finds it from the working
	// directory as git finds .git: the nearest directory, from the working
	// directory up to the repository root, that holds a ctx.toml, else the
	// working directory itself. A leading ~ expands to Home.
	Dir string
	// File is the configuration file; "" reads Dir/ctx.toml when it
	// exists (no file is no error: every key keeps its default).
	File string
	// Home is the home directory; "" is the process's (os.UserHomeDir).
	Home string
	// Getenv reads the environment (AGENTS_GLOBAL_MD); nil is os.Getenv.
	Getenv func(string) string
	// UserConfigDir holds the user's presets.toml (see [PresetsFile]);
	// "" is os.UserConfigDir(), and no user presets when there is none.
	UserConfigDir string
}

// Project is a project directory with its configuration: what every ctx
// command starts from. Its methods turn the configuration into the options
// of each stage; a caller may change those options before use, as the
// command's flags do.
type Project struct {
	// Dir is the project directory, absolute with symlinks resolved.
	Dir string
	// WorkDir is the directory the agent starts in: the working
	// directory when the project was found from it (a ctx.toml in a parent
	// directory), else Dir. A profile's chain starts there.
	WorkDir string
	// Home and Getenv are those of ProjectOptions, with the defaults
	// filled in.
	Home          string
	Getenv        func(string) string
	UserConfigDir string
	// Config is the decoded file; an empty Config when there is none.
	Config *Config
	// User is the user's own configuration ([UserFile] in
	// UserConfigDir): allow_outside.
	User *User
}

// LoadProject resolves the project directory, which must exist, and reads
// its configuration strictly: an error names the file, the line and the
// field (*Error).
func LoadProject(o ProjectOptions) (*Project, error) {
	p := &Project{Home: o.Home, Getenv: o.Getenv, UserConfigDir: o.UserConfigDir}
	if p.Home == "" {
		p.Home, _ = os.UserHomeDir()
	}
	if p.UserConfigDir == "" {
		p.UserConfigDir, _ = os.UserConfigDir()
	}
	if p.Getenv == nil {
		p.Getenv = os.Getenv
	}
	dir := o.Dir
	search := dir == "" && o.File == ""
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("cannot find the working directory: %w", err)
		}
		dir = wd
	} else if discover.Blank(dir) {
		return nil, &discover.Error{Field: "project_dir", Msg: "must not be empty"}
	}
	abs, err := discover.ProjectDir(dir, p.Home)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("project directory %s: not a directory", display.Path(dir, p.Home))
	}
	p.Dir, p.WorkDir = abs, abs
	if search {
		p.Dir = FindProject(abs)
	}
	if o.File != "" {
		p.Config, err = Load(o.File, true)
	} else {
		p.Config, err = Load(display.RelativeToWD(filepath.Join(p.Dir, FileName)), false)
	}
	if err != nil {
		return nil, err
	}
	if p.User, err = LoadUser(p.UserConfigDir, p.Home); err != nil {
		return nil, err
	}
	return p, nil
}

// FindProject returns the project directory of a working directory, as
// git finds .git: the nearest of dir and its parents, up to the
// repository root (the nearest directory with a .git), that holds a
// ctx.toml; dir itself when none does or dir is in no repository.
func FindProject(dir string) string {
	root := ""
	for d := dir; root == ""; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir // in no repository
		}
		d = parent
	}
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, FileName)); err == nil && !st.IsDir() {
			return d
		}
		if d == root || filepath.Dir(d) == d {
			return dir
		}
	}
}

// ShownPath shows a path for people: relative to the working directory
// when below it, else with the home directory as ~.
func (p *Project) ShownPath(path string) string {
	if r := display.RelativeToWD(path); r != path {
		return display.Path(r, "")
	}
	return display.Path(path, p.Home)
}

// where names line of the configuration file for messages ("ctx.toml:12").
func (p *Project) where(line int) string { return fmt.Sprintf("%s:%d", p.Config.File, line) }

// ManifestOptions returns the options of manifest.Build for the project:
// discovery (agent, workspace, shared file, natives, [[sources]]), the
// budgets, the estimator (of every stage), the aggregated files when
// [files] or [screenshots] is present, the history when [history] is,
// the profile, relative_paths, [secrets] (redact and the allowlist), and
// the user's allow_outside. The agent is "" when the file sets none
// (manifest.Build then uses the profile's name, else generic). A caller
// that changes the estimator uses Options.SetEstimator, so that every
// stage counts alike.
func (p *Project) ManifestOptions() manifest.Options {
	c := p.Config
	d := discover.Options{ProjectDir: p.Dir, Home: p.Home, Getenv: p.Getenv}
	if c.Agent != nil {
		d.Agent = *c.Agent
	}
	if c.WorkspaceDir != nil {
		d.WorkspaceDir = *c.WorkspaceDir
	}
	var configured []string
	switch {
	case c.SharedPath.Set && c.SharedPath.Disabled:
		d.SharedMode = discover.SharedDisabled
	case c.SharedPath.Set:
		d.SharedMode, d.SharedPath = discover.SharedPath, c.SharedPath.Path
		configured = append(configured, discover.IDShared)
	}
	if c.WorkspaceDir != nil {
		configured = append(configured, discover.IDWorkspaceUser, discover.IDWorkspaceSoul)
	}
	d.NativePaths = append(d.NativePaths, c.NativePaths...)
	if c.Discover != nil {
		d.NoDiscover = !*c.Discover
	}
	for _, s := range c.Sources {
		d.Extras = append(d.Extras, discover.Extra{
			ID: s.ID, Kind: s.Kind, Path: s.Path, Text: s.Text, Audience: s.Audience,
			Delivery: s.Delivery, Origin: s.Origin, Scope: s.Scope, ConfigPath: s.ConfigPath,
			NativeEvidence: s.NativeEvidence, Order: s.Order, Where: p.where(s.Line),
		})
	}
	o := manifest.Options{Discover: d, Estimator: c.Estimator, ConfiguredSources: configured}
	if c.Profile != nil {
		o.Profile = profile.Name(*c.Profile)
	}
	if p.WorkDir != "" && p.WorkDir != p.Dir {
		// the agent starts in the working directory, below the project
		o.ProfileOptions.Dir = p.WorkDir
	}
	if c.RelativePaths != nil {
		o.RelativePaths = *c.RelativePaths
	}
	for _, b := range c.Budgets {
		o.Budgets = append(o.Budgets, manifest.NamedBudget{Name: b.Name, Where: p.where(b.Line),
			Budget: manifest.Budget{MaxChars: b.MaxChars, MaxLines: b.MaxLines, MaxTokens: b.MaxTokens}})
	}
	if c.Aggregate.Files != nil || c.Aggregate.Screenshots != nil {
		f := p.AggregateOptions()
		o.Files = &f
	}
	o.Beads = p.Config.BeadsOptions(p.Dir, p.Home)
	o.History = p.HistoryOptions()
	o.AllowOutside = p.AllowOutside()
	if sc, err := c.RedactScanner(); err == nil {
		// the scanner of --redact, without the repository's allowlist: its
		// rules compile only when it scans
		o.Scanner = sc
	}
	if c.Secrets.Redact != nil {
		o.Redact = *c.Secrets.Redact
	}
	return o
}

// AggregateOptions returns the options of aggregate.Run for the project
// (see [Config.AggregateOptions]), bounded by the project directory and
// the user's allow_outside.
func (p *Project) AggregateOptions() aggregate.Options {
	o := p.Config.AggregateOptions(p.Dir, p.Home)
	o.ProjectDir = p.Dir
	o.AllowOutside = p.AllowOutside()
	return o
}

// AllowOutside returns the directories outside the project that the user's
// own configuration allows ctx to read (allow_outside of [UserFile]); a
// repository's ctx.toml cannot add to them.
func (p *Project) AllowOutside() []string {
	if p.User == nil {
		return nil
	}
	return append([]string(nil), p.User.AllowOutside...)
}

// HistoryOptions returns how [history] builds the chat history, with its
// paths resolved against the project directory and the estimator of the
// file; nil without [history]. Errors name the table as the file does
// ("ctx.toml:12: history", or discussion in a file with the old name).
func (p *Project) HistoryOptions() *manifest.HistoryOptions {
	d := p.Config.History
	if d == nil {
		return nil
	}
	h := &manifest.HistoryOptions{
		Path:    discover.Join(p.Dir, p.Home, d.History),
		Name:    d.History,
		Options: d.HistoryOptions(),
		Where:   p.where(d.Line) + ": " + d.Table,
	}
	if d.HistoryLine > 0 {
		h.WhereHistory = p.where(d.HistoryLine) + ": " + d.Table + ".history"
	}
	if d.AttachmentsLine > 0 {
		h.WhereAttachments = p.where(d.AttachmentsLine) + ": " + d.Table + ".attachments"
	}
	h.Options.Estimator = p.Config.Estimator
	h.AllowOutside = p.AllowOutside()
	if d.Attachments != nil {
		h.AttachmentsDir = discover.Join(p.Dir, p.Home, *d.Attachments)
	}
	return h
}

// Thresholds returns the audit thresholds: [audit] over the defaults.
func (p *Project) Thresholds() audit.Thresholds {
	th := audit.DefaultThresholds()
	if v := p.Config.Audit.LayerTokens; v != nil {
		th.LayerTokens = *v
	}
	if v := p.Config.Audit.TotalTokens; v != nil {
		th.TotalTokens = *v
	}
	return th
}

// AuditOptions returns the options of audit.RunContext for the project, as
// `ctx audit`, `ctx mcp` and examples/runtime run it: the thresholds of
// [audit] and the secret scanner with the project's allowlist. The total
// is counted with the estimator the manifest names.
func (p *Project) AuditOptions() (audit.Options, error) {
	sc, err := p.Config.Scanner()
	if err != nil {
		return audit.Options{}, err
	}
	return audit.Options{Thresholds: p.Thresholds(), Secrets: sc}, nil
}
