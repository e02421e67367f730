package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
)

// FileName is the configuration file looked up in the project directory.
const FileName = "ctx.toml"

// MaxFileSize bounds how much of a configuration file is read.
const MaxFileSize = 4 << 20

// Config is the decoded ctx.toml. Pointer and nil fields are absent keys, so
// that command-line flags can override only what they set.
type Config struct {
	// File is the path of the file as given (for messages); "" when none was read.
	File string

	Agent *string
	// Profile is the agent profile (package profile); nil when absent.
	Profile      *string
	WorkspaceDir *string
	// SharedPath: Set false means the key is absent; Disabled means shared_path = false.
	SharedPath  SharedPath
	NativePaths []string // nil when absent
	Discover    *bool
	Sources     []Source
	Budgets     []Budget // in file order
	Audit       Audit
	// Estimator counts every token (the estimator key: chars4, o200k or
	// cl100k); nil when absent, which is the default, chars4.
	Estimator measure.Estimator

	// Aggregation ([files], [screenshots], [output], [presets.NAME]); see files.go.
	Aggregate Aggregate
	// The chat history ([history]); see history.go.
	History *History

	// RelativePaths is relative_paths: record paths relative to the
	// project directory (manifest.Options.RelativePaths); nil when absent.
	RelativePaths *bool

	// Secrets is the [secrets] table; see secrets.go.
	Secrets Secrets

	// ExecutionMode is execution_mode: "beads" adds the Beads section
	// (Manual Slop's execution mode); "" when absent. BeadsPath is
	// beads_path, the store (a JSONL file or a directory), relative to the
	// project directory; nil when absent (.beads). The lines are those of
	// the keys, for messages.
	ExecutionMode     string
	ExecutionModeLine int
	BeadsPath         *string
	BeadsPathLine     int

	// Warnings are what the file still accepts but should say otherwise,
	// each naming the file and line ("ctx.toml:12: [discussion] is now
	// [history]"); the ctx command prints each as "ctx: warning: ...".
	Warnings []string
}

// ExecutionModeBeads is the execution_mode that adds the Beads section.
const ExecutionModeBeads = "beads"

// SharedPath is the shared_path key: a path, false, or absent.
type SharedPath struct {
	Set      bool
	Disabled bool
	Path     string
}

// Source is one [[sources]] entry. Path and Text are pointers because
// exactly one of them must be set.
type Source struct {
	Field          string // "sources[i]", for messages
	Line           int
	ID             string
	Kind           string
	Path           *string
	Text           *string
	Audience       []string          // nil when absent (means ["*"])
	Delivery       discover.Delivery // "" when absent (means consumer)
	Origin         string
	Scope          string
	ConfigPath     string
	NativeEvidence string
	Order          *float64
}

// Budget is one [budgets.NAME] table. A limit left out, or inf, is no
// limit (the zero measure.Limit); Max(0) allows nothing.
type Budget struct {
	Name      string
	Line      int
	MaxChars  measure.Limit
	MaxLines  measure.Limit
	MaxTokens measure.Limit
}

// Audit is the [audit] table. A nil threshold (left out) keeps the
// default (audit.DefaultThresholds); one set to inf is no limit, the zero
// measure.Limit.
type Audit struct {
	LayerTokens *measure.Limit
	TotalTokens *measure.Limit
}

// Load reads path. When mustExist is false and the file does not exist, it
// returns an empty Config and no error.
func Load(path string, mustExist bool) (*Config, error) {
	data, _, err := fileio.Read(path, MaxFileSize)
	if err != nil {
		if !mustExist && errors.Is(err, fs.ErrNotExist) {
			return &Config{}, nil
		}
		return nil, readError(path, err)
	}
	return Decode(path, data)
}

// readError is the error of a failed fileio.Read of a configuration file.
func readError(path string, err error) error {
	return &Error{File: path, Msg: fileio.Describe(err)}
}

// Decode decodes a configuration file's bytes; file names it in messages.
func Decode(file string, data []byte) (*Config, error) {
	d, err := parseDoc(file, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: file}
	t := d.table()
	// the old name of [history] is accepted, but never listed
	if err := withoutKey(t, oldHistoryTable).CheckKeys("agent", "profile", "workspace_dir", "shared_path", "native_paths", "discover", "estimator",
		"sources", "budgets", "audit", "files", "screenshots", "output", "presets", "history",
		"relative_paths", "secrets", "execution_mode", "beads_path"); err != nil {
		return nil, err
	}
	if err := decodeCore(t, c); err != nil {
		return nil, err
	}
	if err := decodeAggregate(t, c); err != nil {
		return nil, err
	}
	if err := decodeHistory(t, c); err != nil {
		return nil, err
	}
	if err := decodeSecrets(t, c); err != nil {
		return nil, err
	}
	return c, nil
}

func decodeCore(t table, c *Config) error {
	if s, ok, err := t.String("agent"); err != nil {
		return err
	} else if ok {
		if err := discover.CheckAgent(s); err != nil {
			return t.Errorf("agent", "%v", err)
		}
		c.Agent = &s
	}
	if s, ok, err := t.String("profile"); err != nil {
		return err
	} else if ok {
		if _, err := profile.Parse(s); err != nil {
			return t.Errorf("profile", "%v", err)
		}
		c.Profile = &s
	}
	if s, ok, err := t.String("workspace_dir"); err != nil {
		return err
	} else if ok {
		if isBlank(s) {
			return t.Errorf("workspace_dir", "must not be empty (leave it out for no workspace)")
		}
		c.WorkspaceDir = &s
	}
	if v, ok := t.M["shared_path"]; ok {
		switch x := v.(type) {
		case string:
			if isBlank(x) {
				return t.Errorf("shared_path", "must not be empty (use false to disable the shared file)")
			}
			c.SharedPath = SharedPath{Set: true, Path: x}
		case bool:
			if x {
				return t.Errorf("shared_path", "must be a path or false, not true")
			}
			c.SharedPath = SharedPath{Set: true, Disabled: true}
		default:
			return t.Errorf("shared_path", "must be a path or false, not %s", typeName(v))
		}
	}
	if v, ok := t.M["native_paths"]; ok {
		if _, isArr := v.([]any); !isArr {
			return t.Errorf("native_paths", "must be an array of strings, not %s", typeName(v))
		}
		l, _, err := t.Strings("native_paths")
		if err != nil {
			return err
		}
		for i, p := range l {
			if isBlank(p) {
				return t.doc.Errorf(indexKey(t.Field("native_paths"), i), "must not be empty")
			}
		}
		c.NativePaths = append([]string{}, l...)
	}
	if b, ok, err := t.Bool("discover"); err != nil {
		return err
	} else if ok {
		c.Discover = &b
	}
	if b, ok, err := t.Bool("relative_paths"); err != nil {
		return err
	} else if ok {
		c.RelativePaths = &b
	}
	if s, ok, err := t.String("execution_mode"); err != nil {
		return err
	} else if ok {
		if s != ExecutionModeBeads {
			return t.Errorf("execution_mode", "must be %q (the one mode that changes the context; leave the key out otherwise), not %q", ExecutionModeBeads, s)
		}
		c.ExecutionMode, c.ExecutionModeLine = s, t.doc.Line(t.Field("execution_mode"))
	}
	if s, ok, err := t.String("beads_path"); err != nil {
		return err
	} else if ok {
		if isBlank(s) {
			return t.Errorf("beads_path", "must not be empty (leave it out for .beads)")
		}
		if c.ExecutionMode != ExecutionModeBeads {
			return t.Errorf("beads_path", "applies only with execution_mode = %q", ExecutionModeBeads)
		}
		c.BeadsPath, c.BeadsPathLine = &s, t.doc.Line(t.Field("beads_path"))
	}
	if s, ok, err := t.String("estimator"); err != nil {
		return err
	} else if ok {
		est, err := measure.ParseEstimator(s)
		if err != nil {
			return t.Errorf("estimator", "%v", err)
		}
		c.Estimator = est
	}
	srcs, _, err := t.Tables("sources")
	if err != nil {
		return err
	}
	for _, st := range srcs {
		s, err := decodeSource(st)
		if err != nil {
			return err
		}
		c.Sources = append(c.Sources, s)
	}
	if bt, ok, err := t.Sub("budgets"); err != nil {
		return err
	} else if ok {
		names := sortedByLine(bt)
		for _, name := range names {
			b, err := decodeBudget(bt, name)
			if err != nil {
				return err
			}
			c.Budgets = append(c.Budgets, b)
		}
	}
	if at, ok, err := t.Sub("audit"); err != nil {
		return err
	} else if ok {
		if err := at.CheckKeys("layer_tokens", "total_tokens"); err != nil {
			return err
		}
		for _, kv := range []struct {
			key string
			dst **measure.Limit
		}{{"layer_tokens", &c.Audit.LayerTokens}, {"total_tokens", &c.Audit.TotalTokens}} {
			l, ok, err := limit(at, kv.key, 0, wantLimit)
			if err != nil {
				return err
			}
			if ok {
				*kv.dst = &l
			}
		}
	}
	return nil
}

func decodeSource(t table) (Source, error) {
	s := Source{Field: t.Path, Line: t.doc.Line(t.Path)}
	if err := t.CheckKeys("id", "kind", "path", "text", "audience", "delivery", "origin", "scope",
		"config_path", "native_evidence", "order"); err != nil {
		return s, err
	}
	req := func(key string) (string, error) {
		v, ok, err := t.String(key)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", t.doc.Errorf(t.Path, "missing %s", key)
		}
		if isBlank(v) {
			return "", t.Errorf(key, "must not be empty")
		}
		return v, nil
	}
	var err error
	if s.ID, err = req("id"); err != nil {
		return s, err
	}
	if s.Kind, err = req("kind"); err != nil {
		return s, err
	}
	p, hasPath, err := t.String("path")
	if err != nil {
		return s, err
	}
	txt, hasText, err := t.String("text")
	if err != nil {
		return s, err
	}
	switch {
	case hasPath && hasText:
		return s, t.Errorf("text", "set exactly one of path and text, not both")
	case !hasPath && !hasText:
		return s, t.doc.Errorf(t.Path, "set exactly one of path and text")
	case hasPath:
		if isBlank(p) {
			return s, t.Errorf("path", "must not be empty")
		}
		s.Path = &p
	default:
		s.Text = &txt
	}
	if l, ok, err := t.Strings("audience"); err != nil {
		return s, err
	} else if ok {
		for i, a := range l {
			if isBlank(a) {
				return s, t.doc.Errorf(indexKey(t.Field("audience"), i), "must not be empty")
			}
		}
		if len(l) == 0 {
			return s, t.Errorf("audience", "must not be an empty list")
		}
		s.Audience = l
	}
	if d, ok, err := t.String("delivery"); err != nil {
		return s, err
	} else if ok {
		switch d {
		case "consumer", "hook", "native":
		default:
			return s, t.Errorf("delivery", "must be consumer, hook or native, not %q", d)
		}
		s.Delivery = discover.Delivery(d)
	}
	for _, kv := range []struct {
		key string
		dst *string
	}{{"origin", &s.Origin}, {"scope", &s.Scope}, {"config_path", &s.ConfigPath}, {"native_evidence", &s.NativeEvidence}} {
		v, _, err := t.String(kv.key)
		if err != nil {
			return s, err
		}
		*kv.dst = v
	}
	if o, ok, err := t.Number("order"); err != nil {
		return s, err
	} else if ok {
		if math.IsInf(o, 0) || math.IsNaN(o) {
			return s, t.Errorf("order", "must be a finite number")
		}
		s.Order = &o
	}
	return s, nil
}

func decodeBudget(bt table, name string) (Budget, error) {
	b := Budget{Name: name, Line: bt.doc.Line(bt.Field(name))}
	t, _, err := bt.Sub(name)
	if err != nil {
		return b, err
	}
	if err := t.CheckKeys("max_chars", "max_lines", "max_tokens"); err != nil {
		return b, err
	}
	if !t.Has("max_chars") && !t.Has("max_lines") && !t.Has("max_tokens") {
		return b, bt.Errorf(name, "set max_chars, max_lines or max_tokens (at least one)")
	}
	for _, kv := range []struct {
		key string
		dst *measure.Limit
	}{{"max_chars", &b.MaxChars}, {"max_lines", &b.MaxLines}, {"max_tokens", &b.MaxTokens}} {
		if *kv.dst, _, err = limit(t, kv.key, 0, wantLimit); err != nil {
			return b, err
		}
	}
	return b, nil
}

// What a limit of ctx.toml must be, in the errors of [limit]: a
// nonnegative whole number, or a token budget of [files] and [history],
// where no tokens would leave nothing.
const (
	wantLimit  = "a nonnegative whole number or inf"
	wantTokens = "a number of tokens (1 or more), or inf (or leave it out) for no limit"
)

// limit decodes the limit at key, the one decoder of every limit of
// ctx.toml: a whole number, least or more (a float without a fraction
// counts), or inf for no limit, TOML's inf or a string that
// measure.ParseLimit reads as no limit ("inf", "none"). ok is false when
// the key is absent, which is no limit too unless the caller keeps a
// default. An error reads "must be WANT, not VALUE": a fraction, a
// negative number or one below least, -inf, nan, another string or type.
func limit(t table, key string, least int64, want string) (measure.Limit, bool, error) {
	v, ok := t.M[key]
	if !ok {
		return measure.Limit{}, false, nil
	}
	switch x := v.(type) {
	case string:
		if l, err := measure.ParseLimit(x); err == nil && !l.IsSet() {
			return l, true, nil
		}
	case int64:
		if x >= least {
			return measure.Max(x), true, nil
		}
	case float64:
		if math.IsInf(x, 1) {
			return measure.Limit{}, true, nil
		}
		// -2^63 <= x < 2^63 converts exactly; NaN is not whole
		if x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63 && int64(x) >= least {
			return measure.Max(int64(x)), true, nil
		}
	}
	if tooLarge(v) {
		return measure.Limit{}, true, t.Errorf(key, "%s is more than the largest limit, 9,223,372,036,854,775,807 (inf is no limit)", describeValue(v))
	}
	return measure.Limit{}, true, t.Errorf(key, "must be %s, not %s", want, describeValue(v))
}

// tooLarge reports whether v, a value limit refused, is a whole number
// too large for a limit: a float without a fraction from 2^63 on, or a
// string of digits past the largest int64.
func tooLarge(v any) bool {
	switch x := v.(type) {
	case float64:
		return x == math.Trunc(x) && x >= 1<<63 && !math.IsInf(x, 1)
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return errors.Is(err, strconv.ErrRange) && n > 0
	}
	return false
}

func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case int64:
		return fmt.Sprint(x)
	case float64:
		return describe(x)
	}
	return typeName(v)
}

func sortedByLine(t table) []string {
	names := make([]string, 0, len(t.M))
	for k := range t.M {
		names = append(names, k)
	}
	sortStrings(names, func(a, b string) bool {
		la, lb := t.doc.Line(t.Field(a)), t.doc.Line(t.Field(b))
		if la != lb {
			return la < lb
		}
		return a < b
	})
	return names
}

func isBlank(s string) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
