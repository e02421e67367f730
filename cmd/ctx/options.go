package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/config"
	"github.com/ctxaudit/ctx/manifest"
)

// commonFlags are accepted by every command that builds a manifest.
func commonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project-dir", Aliases: []string{"C"}, Usage: "project `DIR` (default: the current directory)"},
		&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (default: DIR/ctx.toml when it exists)"},
		&cli.StringFlag{Name: "agent", Usage: "consumer `NAME`, such as claude or codex"},
		&cli.StringFlag{Name: "workspace", Usage: "workspace `DIR` holding USER.md and SOUL.md"},
		&cli.StringFlag{Name: "shared", Usage: "shared instruction `PATH` (default: $AGENTS_GLOBAL_MD, then ~/.config/agents/GLOBAL.md)"},
		&cli.BoolFlag{Name: "no-shared", Usage: "discover no shared file"},
		&cli.StringSliceFlag{Name: "native", Usage: "a `PATH` the agent already loads by itself (repeatable)"},
		&cli.BoolFlag{Name: "no-discover", Usage: "list only native and configured sources"},
	}
}

// setup is a loaded configuration with the flags applied.
type setup struct {
	projectDir string // as given, absolute
	cfg        *config.Config
	opts       manifest.Options
	home       string
}

func homeDir() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// loadConfig resolves the project directory of c and reads the
// configuration: --config FILE, else DIR/ctx.toml when it exists. Paths in
// the configuration resolve against the project directory.
func loadConfig(c *cli.Context) (abs, home string, cfg *config.Config, err error) {
	home = homeDir()
	dir := c.String("project-dir")
	if c.IsSet("project-dir") && discover.Blank(dir) {
		// -C '' is an error, not the current directory
		return "", "", nil, usagef("--project-dir: must not be empty")
	}
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return "", "", nil, err
		}
	}
	if abs, err = discover.ProjectDir(dir, home); err != nil {
		return "", "", nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", "", nil, fmt.Errorf("project directory %s: not a directory", displayPath(dir, home))
	}
	if p := c.String("config"); p != "" {
		cfg, err = config.Load(p, true)
	} else {
		cfg, err = config.Load(relativeTo(filepath.Join(abs, config.FileName)), false)
	}
	if err != nil {
		return "", "", nil, err
	}
	return abs, home, cfg, nil
}

// loadSetup reads the configuration and applies the flags of c.
func loadSetup(c *cli.Context) (*setup, error) {
	abs, home, cfg, err := loadConfig(c)
	if err != nil {
		return nil, err
	}
	s := &setup{projectDir: abs, cfg: cfg, home: home}
	d := discover.Options{ProjectDir: abs, Home: home, Getenv: os.Getenv}
	if cfg.Agent != nil {
		d.Agent = *cfg.Agent
	}
	if c.IsSet("agent") {
		d.Agent = c.String("agent")
	}
	if discover.Blank(d.Agent) {
		if c.IsSet("agent") || cfg.Agent != nil {
			return nil, fmt.Errorf("agent: must not be empty")
		}
		return nil, usagef("no agent: pass --agent NAME or set agent in %s", config.FileName)
	}
	if cfg.WorkspaceDir != nil {
		d.WorkspaceDir = *cfg.WorkspaceDir
	}
	if c.IsSet("workspace") {
		d.WorkspaceDir = c.String("workspace")
	}
	switch {
	case c.Bool("no-shared"):
		if c.IsSet("shared") {
			return nil, usagef("--shared and --no-shared cannot be used together")
		}
		d.SharedMode = discover.SharedDisabled
	case c.IsSet("shared"):
		if discover.Blank(c.String("shared")) {
			return nil, usagef("--shared: must not be empty (use --no-shared to disable the shared file)")
		}
		d.SharedMode, d.SharedPath = discover.SharedPath, c.String("shared")
	case cfg.SharedPath.Set && cfg.SharedPath.Disabled:
		d.SharedMode = discover.SharedDisabled
	case cfg.SharedPath.Set:
		d.SharedMode, d.SharedPath = discover.SharedPath, cfg.SharedPath.Path
	}
	d.NativePaths = append(d.NativePaths, cfg.NativePaths...)
	if c.IsSet("native") {
		d.NativePaths = c.StringSlice("native")
	}
	if cfg.Discover != nil {
		d.NoDiscover = !*cfg.Discover
	}
	if c.Bool("no-discover") {
		d.NoDiscover = true
	}
	for _, src := range cfg.Sources {
		d.Extras = append(d.Extras, discover.Extra{
			ID: src.ID, Kind: src.Kind, Path: src.Path, Text: src.Text, Audience: src.Audience,
			Delivery: src.Delivery, Origin: src.Origin, Scope: src.Scope, ConfigPath: src.ConfigPath,
			NativeEvidence: src.NativeEvidence, Order: src.Order,
			Where: fmt.Sprintf("%s:%d", cfg.File, src.Line),
		})
	}
	for _, b := range cfg.Budgets {
		s.opts.Budgets = append(s.opts.Budgets, manifest.NamedBudget{Name: b.Name, Budget: manifest.Budget{MaxChars: b.MaxChars, MaxLines: b.MaxLines}})
	}
	s.opts.Discover = d
	return s, nil
}

// buildError adds the configuration file and line to budget errors.
func (s *setup) buildError(err error) error {
	var be *manifest.BudgetError
	if errors.As(err, &be) {
		for _, b := range s.cfg.Budgets {
			if b.Name == be.Name {
				return fmt.Errorf("%s:%d: %s", s.cfg.File, b.Line, be.Error())
			}
		}
	}
	return err
}

// thresholds returns the audit thresholds from [audit] and the flags.
func (s *setup) thresholds(c *cli.Context) (audit.Thresholds, error) {
	th := audit.DefaultThresholds()
	if s != nil && s.cfg != nil {
		if v := s.cfg.Audit.LayerTokens; v != nil {
			th.LayerTokens = *v
		}
		if v := s.cfg.Audit.TotalTokens; v != nil {
			th.TotalTokens = *v
		}
	}
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"layer-tokens", &th.LayerTokens}, {"total-tokens", &th.TotalTokens}} {
		if !c.IsSet(f.name) {
			continue
		}
		v, err := parseThreshold(c.String(f.name))
		if err != nil {
			return th, usagef("--%s: %v", f.name, err)
		}
		*f.dst = v
	}
	return th, nil
}

func parseThreshold(s string) (float64, error) {
	if s == "inf" || s == "Inf" {
		return math.Inf(1), nil
	}
	// the whole argument must be a number: Sscanf("%g") read "1e3x" as 1000
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("must be a nonnegative number or inf, not %q", s)
	}
	return v, nil
}

// displayPath shows home as ~ and nothing else changed.
func displayPath(p, home string) string {
	if home == "" || home == "/" {
		return p
	}
	homes := []string{strings.TrimSuffix(home, "/")}
	// paths under a symlinked home are recorded resolved
	if r, err := filepath.EvalSymlinks(home); err == nil && r != homes[0] {
		homes = append(homes, r)
	}
	for _, h := range homes {
		if p == h {
			return "~"
		}
		if strings.HasPrefix(p, h+"/") {
			return "~" + p[len(h):]
		}
	}
	return p
}

// relativeTo shows p relative to the working directory when it lies below it.
func relativeTo(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
