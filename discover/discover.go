// Package discover lists the instruction sources an agent is given, in the
// order ctx considers them, without reading them.
//
// # Sources
//
// The list is: the natives (files the agent already loads by itself), then
// the discovered files, then the extra sources from configuration. Each gets
// a default order equal to its 1-based position; the list is then sorted
// stably by order, so an extra source with order 2.5 lands between the
// second and third.
//
// Discovery finds, in this order: the shared file (id "shared"), the
// project's AGENTS.md ("project_agents") and CLAUDE.md ("project_claude",
// the fallback for AGENTS.md), and with a workspace directory its USER.md
// ("workspace_user") and SOUL.md ("workspace_soul"). Nothing else is
// discovered implicitly; callers add other files as extra sources.
//
// # Paths
//
// A leading ~ expands to the home directory. A relative path is joined to
// the project directory without cleaning, so "./a.md" keeps its "./" in
// Path; the manifest's canonical path is the cleaned, symlink-resolved form.
//
// Discovery produces one chain of sources. Agent profiles that load several
// chains can call [Sources] once per chain.
package discover

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Delivery says how a source reaches the agent.
type Delivery string

// The deliveries.
const (
	// DeliveryConsumer: ctx puts the source into the context (the default).
	DeliveryConsumer Delivery = "consumer"
	// DeliveryHook: a hook of the agent adds it; ctx treats it as consumer.
	DeliveryHook Delivery = "hook"
	// DeliveryNative: the agent loads the source by itself, so ctx never
	// sends it again.
	DeliveryNative Delivery = "native"
)

// The ids of discovered sources.
const (
	IDShared        = "shared"
	IDProjectAgents = "project_agents"
	IDProjectClaude = "project_claude"
	IDWorkspaceUser = "workspace_user"
	IDWorkspaceSoul = "workspace_soul"
)

// Kinds of the sources discovery and natives produce (extra sources name
// their own kinds).
const (
	KindProject  = "project"
	KindShared   = "shared"
	KindIdentity = "identity"
	KindNative   = "native"
)

// DefaultSharedPath is used when no shared path is given and
// AGENTS_GLOBAL_MD is unset or empty.
const DefaultSharedPath = "~/.config/agents/GLOBAL.md"

// SharedEnv names the environment variable that locates the shared file.
const SharedEnv = "AGENTS_GLOBAL_MD"

// SharedMode says where the shared file comes from.
type SharedMode int

const (
	// SharedUnset uses $AGENTS_GLOBAL_MD, then DefaultSharedPath.
	SharedUnset SharedMode = iota
	// SharedPath uses Options.SharedPath.
	SharedPath
	// SharedDisabled discovers no shared file.
	SharedDisabled
)

// Extra is a source given by configuration rather than discovered.
type Extra struct {
	ID   string
	Kind string
	// Exactly one of Path and Text is set.
	Path           *string
	Text           *string
	Audience       []string // nil means ["*"]
	Delivery       Delivery // "" means consumer
	Origin         string
	Scope          string
	ConfigPath     string
	NativeEvidence string
	Order          *float64 // nil means the position in the list
	// Where is where the source was declared, for error messages ("ctx.toml:12").
	Where string
}

// Native is a file the agent loads by itself that an agent profile found
// (package profile), with the rule that loads it.
type Native struct {
	// Path is absolute.
	Path string
	// Evidence is the agent's rule and where it is documented.
	Evidence string
	// Origin and Scope are recorded as they are ("profile:claude", a
	// directory, "user").
	Origin, Scope string
}

// Options are the inputs of discovery. Fields left empty get the defaults
// of the ctx command: the working directory, the home directory and the
// environment of the process.
type Options struct {
	Agent string
	// ProjectDir is made absolute and symlink-resolved by [Sources]; ""
	// is the working directory.
	ProjectDir   string
	WorkspaceDir string // "" for none; relative resolves against ProjectDir
	SharedMode   SharedMode
	SharedPath   string // with SharedPath
	NativePaths  []string
	// Natives are the files an agent profile loads; they follow the
	// NativePaths natives, in load order, deduplicated with them by
	// canonical path.
	Natives []Native
	Extras  []Extra
	// NoDiscover turns off discovery: only natives and extras are listed.
	NoDiscover bool
	// Home is the home directory used to expand ~; "" is the process's
	// (os.UserHomeDir), looked up only when a path needs it.
	Home string
	// Getenv reads the environment (for AGENTS_GLOBAL_MD); nil is
	// os.Getenv. Pass func(string) string { return "" } to read none.
	Getenv func(string) string
}

// withDefaults fills the empty fields of o from the process.
func (o Options) withDefaults() (Options, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.ProjectDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, &Error{Field: "project_dir", Msg: "cannot find the working directory: " + err.Error()}
		}
		o.ProjectDir = wd
	}
	if o.Home == "" && needsHome(o) {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return o, &Error{Field: "home", Msg: "a path starts with ~ but the home directory is unknown"}
		}
		o.Home = h
	}
	return o, nil
}

// Candidate is one source before it is read.
type Candidate struct {
	ID             string
	Kind           string
	Order          float64
	RequestedPath  string // as given ("" for text)
	Path           string // ~ expanded and joined to the project directory ("" for text)
	Text           *string
	Audience       []string
	Delivery       Delivery
	Origin         string
	Scope          string
	ConfigPath     string
	NativeEvidence string
	// Implicit is true for a file ctx looks up by itself at its default
	// location, which nobody named: the project's AGENTS.md and CLAUDE.md,
	// and the shared file when neither a flag, shared_path nor
	// AGENTS_GLOBAL_MD gives its path.
	Implicit bool
}

// IsText reports whether the source is inline text rather than a file.
func (c Candidate) IsText() bool { return c.Text != nil }

// Result is the discovered chain.
type Result struct {
	Agent      string
	ProjectDir string
	Sources    []Candidate
}

// Error is an invalid discovery input.
type Error struct {
	Field string // such as "agent", "native_paths[2]", "sources[0].id"
	Where string // where the value was declared, when known
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Blank reports whether s has only space, tab, CR and LF.
func Blank(s string) bool {
	return strings.Trim(s, " \t\r\n") == ""
}

// CheckAgent refuses a name that cannot be an agent's: blank, or holding
// space or control characters (a name is shown in tables and annotations,
// and a repository's ctx.toml could otherwise plant terminal escapes in
// it).
func CheckAgent(a string) error {
	if Blank(a) {
		return errors.New("must not be empty")
	}
	if strings.ContainsFunc(a, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return fmt.Errorf("invalid agent name %q: no spaces or control characters", a)
	}
	return nil
}

// Sources validates opts and returns the sorted candidate list.
func Sources(ctx context.Context, opts Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if Blank(opts.Agent) {
		return nil, &Error{Field: "agent", Msg: "must not be empty"}
	}
	if opts.ProjectDir != "" && Blank(opts.ProjectDir) {
		return nil, &Error{Field: "project_dir", Msg: "must not be empty"}
	}
	if opts.SharedMode == SharedPath && Blank(opts.SharedPath) {
		return nil, &Error{Field: "shared_path", Msg: "must not be empty"}
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	project, err := ProjectDir(opts.ProjectDir, opts.Home)
	if err != nil {
		return nil, err
	}
	var list []Candidate

	// natives, deduplicated by canonical path (first spelling kept)
	seen := map[string]bool{}
	for i, p := range opts.NativePaths {
		if Blank(p) {
			return nil, &Error{Field: fmt.Sprintf("native_paths[%d]", i), Msg: "must not be empty"}
		}
		path := Join(project, opts.Home, p)
		key := Canonical(path)
		if seen[key] {
			continue
		}
		seen[key] = true
		list = append(list, Candidate{
			ID: "native:" + path, Kind: KindNative, RequestedPath: p, Path: path,
			Audience: []string{"*"}, Delivery: DeliveryNative,
			NativeEvidence: "native_paths argument",
		})
	}

	for _, n := range opts.Natives {
		key := Canonical(n.Path)
		if seen[key] {
			continue
		}
		seen[key] = true
		list = append(list, Candidate{
			ID: "native:" + n.Path, Kind: KindNative, RequestedPath: n.Path, Path: n.Path,
			Audience: []string{"*"}, Delivery: DeliveryNative, Origin: n.Origin, Scope: n.Scope,
			NativeEvidence: n.Evidence,
		})
	}

	if !opts.NoDiscover {
		if c, ok := shared(project, opts); ok {
			list = append(list, c)
		}
		list = append(list,
			fileCandidate(IDProjectAgents, KindProject, project, "AGENTS.md", project, true),
			fileCandidate(IDProjectClaude, KindProject, project, "CLAUDE.md", project, true))
		if !Blank(opts.WorkspaceDir) {
			ws := Join(project, opts.Home, opts.WorkspaceDir)
			wsScope := ws
			if c, err := filepath.EvalSymlinks(ws); err == nil {
				wsScope = c
			}
			list = append(list,
				fileCandidate(IDWorkspaceUser, KindShared, ws, "USER.md", wsScope, false),
				fileCandidate(IDWorkspaceSoul, KindIdentity, ws, "SOUL.md", wsScope, false))
		}
	}

	for i, e := range opts.Extras {
		c, err := extra(project, opts.Home, i, e)
		if err != nil {
			return nil, err
		}
		list = append(list, c)
	}

	ids := map[string]bool{}
	for i := range list {
		if ids[list[i].ID] {
			field, where := "id", ""
			if k := i - (len(list) - len(opts.Extras)); k >= 0 {
				field, where = fmt.Sprintf("sources[%d].id", k), opts.Extras[k].Where
			}
			return nil, &Error{Field: field, Where: where, Msg: fmt.Sprintf("duplicate source id %q", list[i].ID)}
		}
		ids[list[i].ID] = true
		if list[i].Order == 0 && !hasOrder(opts, list, i) {
			list[i].Order = float64(i + 1)
		}
	}
	sort.SliceStable(list, func(a, b int) bool { return list[a].Order < list[b].Order })
	return &Result{Agent: opts.Agent, ProjectDir: project, Sources: list}, nil
}

func hasOrder(opts Options, list []Candidate, i int) bool {
	k := i - (len(list) - len(opts.Extras))
	return k >= 0 && opts.Extras[k].Order != nil
}

func shared(project string, opts Options) (Candidate, bool) {
	var req string
	implicit := false
	switch opts.SharedMode {
	case SharedDisabled:
		return Candidate{}, false
	case SharedPath:
		req = opts.SharedPath
	default:
		if opts.Getenv != nil {
			req = opts.Getenv(SharedEnv)
		}
		if req == "" {
			req, implicit = DefaultSharedPath, true
		}
	}
	return Candidate{
		ID: IDShared, Kind: KindShared, RequestedPath: req, Path: Join(project, opts.Home, req),
		Audience: []string{"*"}, Delivery: DeliveryConsumer, Scope: "global", Implicit: implicit,
	}, true
}

func fileCandidate(id, kind, dir, name, scope string, implicit bool) Candidate {
	path := dir + "/" + name
	if strings.HasSuffix(dir, "/") {
		path = dir + name
	}
	return Candidate{
		ID: id, Kind: kind, RequestedPath: path, Path: path,
		Audience: []string{"*"}, Delivery: DeliveryConsumer, Scope: scope, Implicit: implicit,
	}
}

func extra(project, home string, i int, e Extra) (Candidate, error) {
	field := fmt.Sprintf("sources[%d]", i)
	fail := func(f, msg string) error { return &Error{Field: field + f, Where: e.Where, Msg: msg} }
	if Blank(e.ID) {
		return Candidate{}, fail(".id", "must not be empty")
	}
	if Blank(e.Kind) {
		return Candidate{}, fail(".kind", "must not be empty")
	}
	if (e.Path == nil) == (e.Text == nil) {
		return Candidate{}, fail("", "set exactly one of path and text")
	}
	c := Candidate{
		ID: e.ID, Kind: e.Kind, Text: e.Text, Audience: e.Audience, Delivery: e.Delivery,
		Origin: e.Origin, Scope: e.Scope, ConfigPath: e.ConfigPath, NativeEvidence: e.NativeEvidence,
	}
	if e.Text != nil && !utf8.ValidString(*e.Text) {
		return Candidate{}, fail(".text", "must be valid UTF-8")
	}
	if e.Path != nil {
		if Blank(*e.Path) {
			return Candidate{}, fail(".path", "must not be empty")
		}
		c.RequestedPath = *e.Path
		c.Path = Join(project, home, *e.Path)
	}
	if c.Audience == nil {
		c.Audience = []string{"*"}
	}
	if len(c.Audience) == 0 {
		return Candidate{}, fail(".audience", "must not be an empty list")
	}
	for j, a := range c.Audience {
		if Blank(a) {
			return Candidate{}, fail(fmt.Sprintf(".audience[%d]", j), "must not be empty")
		}
	}
	switch c.Delivery {
	case "":
		c.Delivery = DeliveryConsumer
	case DeliveryConsumer, DeliveryHook, DeliveryNative:
	default:
		return Candidate{}, fail(".delivery", fmt.Sprintf("must be consumer, hook or native, not %q", c.Delivery))
	}
	if e.Order != nil {
		if math.IsNaN(*e.Order) || math.IsInf(*e.Order, 0) {
			return Candidate{}, fail(".order", "must be a finite number")
		}
		c.Order = *e.Order
	}
	return c, nil
}

// ProjectDir makes dir absolute (expanding ~) and resolves symlinks when it exists.
func ProjectDir(dir, home string) (string, error) {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		dir = home + dir[1:]
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", &Error{Field: "project_dir", Msg: err.Error()}
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return abs, nil
}

// Join applies the path rule: expand a leading ~, keep absolute paths, join
// anything else to base without cleaning.
func Join(base, home, p string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return strings.TrimSuffix(home, "/") + p[1:]
	}
	if filepath.IsAbs(p) {
		return p
	}
	if strings.HasSuffix(base, "/") {
		return base + p
	}
	return base + "/" + p
}

// Canonical returns the cleaned absolute path of p with symlinks resolved,
// or p unchanged when it cannot be resolved (a missing file is not
// canonicalised).
func Canonical(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	if a, err := filepath.Abs(r); err == nil {
		return a
	}
	return r
}

// Canonicals makes many paths canonical as [Canonical] does, resolving
// each directory once: once its directory is known, a path whose last
// element is not a symbolic link costs one Lstat instead of one per
// element. The zero value is ready to use; it remembers directories, so
// it serves one run over files that do not change meanwhile.
type Canonicals struct {
	dirs map[string]resolved
}

type resolved struct {
	path string
	ok   bool
}

// Canonical returns what [Canonical] returns for p.
func (c *Canonicals) Canonical(p string) string {
	dir, base := filepath.Split(p)
	if base == "" || base == "." || base == ".." || dir == "" {
		return Canonical(p)
	}
	if c.dirs == nil {
		c.dirs = map[string]resolved{}
	}
	d, known := c.dirs[dir]
	if !known {
		r, err := filepath.EvalSymlinks(dir)
		d = resolved{r, err == nil}
		c.dirs[dir] = d
	}
	if !d.ok {
		return p // a missing directory: EvalSymlinks(p) fails too
	}
	full := filepath.Join(d.path, base)
	fi, err := os.Lstat(full)
	switch {
	case err != nil:
		return p
	case fi.Mode()&os.ModeSymlink != 0:
		return Canonical(p)
	}
	if a, err := filepath.Abs(full); err == nil {
		return a
	}
	return full
}

// needsHome reports whether any path of opts expands ~.
func needsHome(opts Options) bool {
	tilde := func(p string) bool { return p == "~" || strings.HasPrefix(p, "~/") }
	paths := append([]string{opts.ProjectDir, opts.WorkspaceDir}, opts.NativePaths...)
	switch {
	case opts.NoDiscover:
	case opts.SharedMode == SharedPath:
		paths = append(paths, opts.SharedPath)
	case opts.SharedMode == SharedUnset:
		env := ""
		if opts.Getenv != nil {
			env = opts.Getenv(SharedEnv)
		}
		if env == "" {
			env = DefaultSharedPath
		}
		paths = append(paths, env)
	}
	for _, e := range opts.Extras {
		if e.Path != nil {
			paths = append(paths, *e.Path)
		}
	}
	for _, p := range paths {
		if tilde(p) {
			return true
		}
	}
	return false
}
