package config

import (
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/measure"
)

// Aggregate holds the [files], [screenshots], [output] and [presets.NAME]
// tables used by the aggregation pipeline (package aggregate). Nil tables
// are absent.
type Aggregate struct {
	Files       *Files
	Screenshots *Screenshots
	Output      *Output
	// Presets are the [presets.NAME] tables in file order.
	Presets []Preset
}

// Files is the [files] table. Nil pointers are absent keys.
type Files struct {
	Line     int
	BaseDir  *string
	Paths    []FileEntry         // nil when absent
	Strategy *aggregate.Strategy // auto, summarize, full or tier3
	// Focus is focus, the Tier 3 focus files (nil when absent); it implies
	// strategy = "tier3".
	Focus []string
	// SummaryOnly is summary_only.
	SummaryOnly *bool
	// MaxTokens is max_tokens, the token budget of all aggregated files
	// together; MaxFileTokens is max_file_tokens, the cap per file. Left
	// out, or inf, is no limit (the zero measure.Limit); a set limit is 1
	// or more.
	MaxTokens     measure.Limit
	MaxFileTokens measure.Limit
	// MaxTokensAt is where max_tokens is, for messages:
	// "ctx.toml:9: files.max_tokens"; "" when absent or inf.
	MaxTokensAt string
	// Ignore is ignore: more patterns in gitignore syntax, relative to
	// base_dir, that globs and walks leave out; nil when absent.
	Ignore []string
	// DefaultIgnores is default_ignores: false turns off the default
	// ignore list (aggregate.DefaultIgnores); nil when absent (true).
	DefaultIgnores *bool
	// GitIgnore is gitignore: false turns git's ignore rules off in globs
	// and walks, for a tree inside a repository that ignores it; nil when
	// absent (true).
	GitIgnore *bool
}

// FileEntry is one element of a paths array: a path or glob string, or an
// inline table with the FileItem fields. A string entry has only Path set.
type FileEntry struct {
	Field string // "files.paths[i]", for messages
	Line  int
	Path  string
	// AutoAggregate is nil when absent (true).
	AutoAggregate  *bool
	ForceFull      bool
	ViewMode       aggregate.ViewMode // "" when absent
	Tier           int
	ASTMask        map[string]aggregate.MaskMode
	CustomSlices   []SliceEntry
	ASTSignatures  bool
	ASTDefinitions bool
	// Selected and InjectedAt are Manual Slop's selected and injected_at
	// (UI state: a multi-select flag and the time of the last injection),
	// accepted so that its entries load; they change nothing. InjectedAt
	// is nil when absent.
	Selected   bool
	InjectedAt any
}

// SliceEntry is one custom_slices element.
type SliceEntry struct {
	Field       string
	Line        int
	StartLine   int
	EndLine     int
	Tag         string
	Comment     string
	ContentHash string
	// HashAlgorithm is hash_algorithm: blake3, sha256, or "" (found out
	// by the hash that matches).
	HashAlgorithm string
	AnchorBefore  []string
	AnchorAfter   []string
	// AnchorContext is anchor_lines given as a list (Manual Slop's shape):
	// lines around the slice, before and after not told apart.
	AnchorContext []string
	Fingerprint   string
}

// Screenshots is the [screenshots] table.
type Screenshots struct {
	Line    int
	BaseDir *string
	Paths   []string // nil when absent
}

// Output is the [output] table.
type Output struct {
	Line      int
	OutputDir *string
	// OutputDirAt is where output_dir is, for messages:
	// "ctx.toml:5: output.output_dir"; "" when it is absent.
	OutputDirAt string
	Namespace   *string
	// Keep is keep: how many numbered outputs the output directory keeps;
	// 0 and inf keep all of them (no limit); nil when absent
	// (aggregate.DefaultKeep).
	Keep *measure.Limit
}

// Preset is a [presets.NAME] table: a named, reusable file set (package
// presets lists, checks and edits them).
type Preset struct {
	Name        string
	Line        int
	Description string
	Files       []FileEntry // nil when absent
	// Screenshots is nil when absent; ScreenshotsSet tells an explicit
	// empty list from an absent key.
	Screenshots    []string
	ScreenshotsSet bool
}

// Valid values, as in package aggregate.
func viewModes() []string {
	return []string{"full", "summary", "skeleton", "outline", "masked", "none", "custom"}
}
func strategies() []string { return []string{"auto", "summarize", "full", "tier3"} }
func maskModes() []string  { return []string{"def", "sig", "hide"} }

func oneOf(s string, valid []string) bool {
	for _, v := range valid {
		if s == v {
			return true
		}
	}
	return false
}

// decodeAggregate decodes the aggregation tables.
func decodeAggregate(t table, c *Config) error {
	a := &c.Aggregate
	if ft, ok, err := t.Sub("files"); err != nil {
		return err
	} else if ok {
		f, err := decodeFiles(ft)
		if err != nil {
			return err
		}
		a.Files = f
	}
	if st, ok, err := t.Sub("screenshots"); err != nil {
		return err
	} else if ok {
		if err := st.CheckKeys("base_dir", "paths"); err != nil {
			return err
		}
		s := &Screenshots{Line: st.doc.Line(st.Path)}
		if s.BaseDir, err = optPath(st, "base_dir"); err != nil {
			return err
		}
		if s.Paths, _, err = pathList(st, "paths"); err != nil {
			return err
		}
		a.Screenshots = s
	}
	if ot, ok, err := t.Sub("output"); err != nil {
		return err
	} else if ok {
		if err := ot.CheckKeys("output_dir", "namespace", "keep"); err != nil {
			return err
		}
		o := &Output{Line: ot.doc.Line(ot.Path)}
		if o.OutputDir, err = optPath(ot, "output_dir"); err != nil {
			return err
		}
		if o.OutputDir != nil {
			o.OutputDirAt = ot.doc.at(ot.Field("output_dir"))
		}
		if ns, ok, err := ot.String("namespace"); err != nil {
			return err
		} else if ok {
			if isBlank(ns) || strings.ContainsAny(ns, "/\\\x00") || ns == "." || ns == ".." {
				return ot.Errorf("namespace", "must be a non-empty name without slashes, not %q", ns)
			}
			o.Namespace = &ns
		}
		if k, ok, err := limit(ot, "keep", 0, "how many numbered outputs to keep (0 keeps them all)"); err != nil {
			return err
		} else if ok {
			// 0 has always kept them all
			k = k.ZeroIsNone()
			o.Keep = &k
		}
		a.Output = o
	}
	ps, err := decodePresets(t)
	if err != nil {
		return err
	}
	a.Presets = ps
	return nil
}

// DecodePresets decodes a presets file (the global presets.toml in the
// user configuration directory): [presets.NAME] tables and nothing else.
func DecodePresets(file string, data []byte) ([]Preset, error) {
	d, err := parseDoc(file, data)
	if err != nil {
		return nil, err
	}
	t := d.table()
	if err := t.CheckKeys("presets"); err != nil {
		return nil, err
	}
	return decodePresets(t)
}

func decodePresets(t table) ([]Preset, error) {
	pt, ok, err := t.Sub("presets")
	if err != nil || !ok {
		return nil, err
	}
	var out []Preset
	for _, name := range sortedByLine(pt) {
		if isBlank(name) {
			return nil, pt.Errorf(name, "preset name must not be empty")
		}
		st, _, err := pt.Sub(name)
		if err != nil {
			return nil, err
		}
		if err := st.CheckKeys("description", "files", "screenshots"); err != nil {
			return nil, err
		}
		p := Preset{Name: name, Line: st.doc.Line(st.Path)}
		if p.Description, _, err = st.String("description"); err != nil {
			return nil, err
		}
		if st.Has("files") {
			if p.Files, err = fileEntries(st, "files"); err != nil {
				return nil, err
			}
		}
		if p.Screenshots, p.ScreenshotsSet, err = pathList(st, "screenshots"); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func decodeFiles(t table) (*Files, error) {
	if err := t.CheckKeys("base_dir", "paths", "strategy", "focus", "summary_only", "max_tokens", "max_file_tokens",
		"ignore", "default_ignores", "gitignore"); err != nil {
		return nil, err
	}
	f := &Files{Line: t.doc.Line(t.Path)}
	var err error
	if f.BaseDir, err = optPath(t, "base_dir"); err != nil {
		return nil, err
	}
	if t.Has("paths") {
		if f.Paths, err = fileEntries(t, "paths"); err != nil {
			return nil, err
		}
	}
	if s, ok, err := t.String("strategy"); err != nil {
		return nil, err
	} else if ok {
		if !oneOf(s, strategies()) {
			return nil, t.Errorf("strategy", "must be auto, summarize, full or tier3, not %q", s)
		}
		st := aggregate.Strategy(s)
		f.Strategy = &st
	}
	if f.Focus, _, err = pathList(t, "focus"); err != nil {
		return nil, err
	}
	if f.Focus != nil && f.Strategy != nil && *f.Strategy != aggregate.StrategyTier3 {
		return nil, t.Errorf("focus", "applies to strategy = \"tier3\" (which focus implies), not to strategy = %q", *f.Strategy)
	}
	if b, ok, err := t.Bool("summary_only"); err != nil {
		return nil, err
	} else if ok {
		f.SummaryOnly = &b
	}
	if b, ok, err := t.Bool("default_ignores"); err != nil {
		return nil, err
	} else if ok {
		f.DefaultIgnores = &b
	}
	if b, ok, err := t.Bool("gitignore"); err != nil {
		return nil, err
	} else if ok {
		f.GitIgnore = &b
	}
	if l, ok, err := t.Strings("ignore"); err != nil {
		return nil, err
	} else if ok {
		for i, p := range l {
			if err := aggregate.CheckIgnorePattern(p); err != nil {
				if _, one := t.M["ignore"].(string); one {
					return nil, t.Errorf("ignore", "%v", err)
				}
				return nil, t.doc.Errorf(indexKey(t.Field("ignore"), i), "%v", err)
			}
		}
		f.Ignore = append([]string{}, l...)
	}
	for _, kv := range []struct {
		key string
		dst *measure.Limit
	}{{"max_tokens", &f.MaxTokens}, {"max_file_tokens", &f.MaxFileTokens}} {
		var err error
		if *kv.dst, _, err = limit(t, kv.key, 1, wantTokens); err != nil {
			return nil, err
		}
	}
	if f.MaxTokens.IsSet() {
		f.MaxTokensAt = t.doc.at(t.Field("max_tokens"))
	}
	return f, nil
}

// optPath reads an optional non-blank string.
func optPath(t table, key string) (*string, error) {
	s, ok, err := t.String(key)
	if err != nil || !ok {
		return nil, err
	}
	if isBlank(s) {
		return nil, t.Errorf(key, "must not be empty")
	}
	return &s, nil
}

// pathList reads a string or an array of non-blank strings; the result is
// non-nil when the key is present.
func pathList(t table, key string) ([]string, bool, error) {
	l, ok, err := t.Strings(key)
	if err != nil || !ok {
		return nil, ok, err
	}
	for i, s := range l {
		if isBlank(s) {
			return nil, true, t.doc.Errorf(indexKey(t.Field(key), i), "must not be empty")
		}
	}
	if l == nil {
		l = []string{}
	}
	return l, true, nil
}

// fileEntries reads a string, or an array of strings and inline tables.
func fileEntries(t table, key string) ([]FileEntry, error) {
	v := t.M[key]
	field := t.Field(key)
	switch x := v.(type) {
	case string:
		if isBlank(x) {
			return nil, t.Errorf(key, "must not be empty")
		}
		return []FileEntry{{Field: field, Line: t.doc.Line(field), Path: x}}, nil
	case []any:
		out := make([]FileEntry, 0, len(x))
		for i, e := range x {
			p := indexKey(field, i)
			switch y := e.(type) {
			case string:
				if isBlank(y) {
					return nil, t.doc.Errorf(p, "must not be empty")
				}
				out = append(out, FileEntry{Field: p, Line: t.doc.Line(p), Path: y})
			case map[string]any:
				fe, err := decodeFileEntry(table{doc: t.doc, Path: p, M: y})
				if err != nil {
					return nil, err
				}
				out = append(out, fe)
			default:
				return nil, t.doc.Errorf(p, "must be a path or a table with a path, not %s", typeName(e))
			}
		}
		return out, nil
	}
	return nil, t.Errorf(key, "must be a path or an array of paths and tables, not %s", typeName(v))
}

func decodeFileEntry(t table) (FileEntry, error) {
	fe := FileEntry{Field: t.Path, Line: t.doc.Line(t.Path)}
	if err := t.CheckKeys("path", "auto_aggregate", "force_full", "view_mode", "tier", "ast_mask",
		"custom_slices", "ast_signatures", "ast_definitions", "selected", "injected_at"); err != nil {
		return fe, err
	}
	p, ok, err := t.String("path")
	if err != nil {
		return fe, err
	}
	if !ok {
		return fe, t.doc.Errorf(t.Path, "missing path")
	}
	if isBlank(p) {
		return fe, t.Errorf("path", "must not be empty")
	}
	fe.Path = p
	if b, ok, err := t.Bool("auto_aggregate"); err != nil {
		return fe, err
	} else if ok {
		fe.AutoAggregate = &b
	}
	for _, kv := range []struct {
		key string
		dst *bool
	}{{"force_full", &fe.ForceFull}, {"ast_signatures", &fe.ASTSignatures}, {"ast_definitions", &fe.ASTDefinitions},
		{"selected", &fe.Selected}} {
		if *kv.dst, _, err = t.Bool(kv.key); err != nil {
			return fe, err
		}
	}
	if v, ok := t.M["injected_at"]; ok {
		switch v.(type) {
		case int64, float64, time.Time, toml.LocalDateTime, toml.LocalDate, toml.LocalTime:
			fe.InjectedAt = v
		default:
			return fe, t.Errorf("injected_at", "must be a timestamp (a number or a date-time), not %s", typeName(v))
		}
	}
	if vm, ok, err := t.String("view_mode"); err != nil {
		return fe, err
	} else if ok {
		if !oneOf(vm, viewModes()) {
			return fe, t.Errorf("view_mode", "must be one of %s, not %q", strings.Join(viewModes(), ", "), vm)
		}
		fe.ViewMode = aggregate.ViewMode(vm)
	}
	if n, ok, err := t.Int("tier"); err != nil {
		return fe, err
	} else if ok {
		if n < 0 || n > 1000 {
			return fe, t.Errorf("tier", "must be between 0 and 1000, not %d", n)
		}
		fe.Tier = int(n)
	}
	if mt, ok, err := t.Sub("ast_mask"); err != nil {
		return fe, err
	} else if ok {
		fe.ASTMask = make(map[string]aggregate.MaskMode, len(mt.M))
		for _, sym := range sortedByLine(mt) {
			if isBlank(sym) {
				return fe, mt.Errorf(sym, "symbol must not be empty")
			}
			m, _, err := mt.String(sym)
			if err != nil {
				return fe, err
			}
			if !oneOf(m, maskModes()) {
				return fe, mt.Errorf(sym, "must be def, sig or hide, not %q", m)
			}
			fe.ASTMask[sym] = aggregate.MaskMode(m)
		}
	}
	slices, _, err := t.Tables("custom_slices")
	if err != nil {
		return fe, err
	}
	for _, st := range slices {
		s, err := decodeSlice(st)
		if err != nil {
			return fe, err
		}
		fe.CustomSlices = append(fe.CustomSlices, s)
	}
	return fe, nil
}

func decodeSlice(t table) (SliceEntry, error) {
	s := SliceEntry{Field: t.Path, Line: t.doc.Line(t.Path)}
	if err := t.CheckKeys("start_line", "end_line", "tag", "comment", "content_hash", "hash_algorithm", "anchor_lines", "fingerprint"); err != nil {
		return s, err
	}
	for _, kv := range []struct {
		key string
		dst *int
	}{{"start_line", &s.StartLine}, {"end_line", &s.EndLine}} {
		n, ok, err := t.Int(kv.key)
		if err != nil {
			return s, err
		}
		if !ok {
			return s, t.doc.Errorf(t.Path, "missing %s", kv.key)
		}
		if n < 1 || n > 1<<31-1 {
			return s, t.Errorf(kv.key, "must be a line number (1 or more), not %d", n)
		}
		*kv.dst = int(n)
	}
	if s.EndLine < s.StartLine {
		return s, t.Errorf("end_line", "must not be before start_line (%d), not %d", s.StartLine, s.EndLine)
	}
	var err error
	for _, kv := range []struct {
		key string
		dst *string
	}{{"tag", &s.Tag}, {"comment", &s.Comment}, {"content_hash", &s.ContentHash}, {"fingerprint", &s.Fingerprint},
		{"hash_algorithm", &s.HashAlgorithm}} {
		if *kv.dst, _, err = t.String(kv.key); err != nil {
			return s, err
		}
	}
	if s.ContentHash != "" && !isHex(s.ContentHash, 64) {
		return s, t.Errorf("content_hash", "must be 64 lowercase hex digits (BLAKE3, or SHA-256 as Manual Slop writes it)")
	}
	if _, err := slice.ParseHashAlgorithm(s.HashAlgorithm); err != nil {
		return s, t.Errorf("hash_algorithm", "must be blake3 or sha256, not %q", s.HashAlgorithm)
	}
	if s.HashAlgorithm != "" && s.ContentHash == "" {
		return s, t.Errorf("hash_algorithm", "applies only with content_hash")
	}
	if _, isList := t.M["anchor_lines"].([]any); isList {
		// Manual Slop's shape: a list of the lines around the slice
		if s.AnchorContext, _, err = t.Strings("anchor_lines"); err != nil {
			return s, err
		}
		if s.AnchorContext == nil {
			s.AnchorContext = []string{}
		}
	} else if at, ok, err := t.Sub("anchor_lines"); err != nil {
		return s, t.Errorf("anchor_lines", "must be a table { before, after } or a list of lines, not %s", typeName(t.M["anchor_lines"]))
	} else if ok {
		if err := at.CheckKeys("before", "after"); err != nil {
			return s, err
		}
		if s.AnchorBefore, _, err = at.Strings("before"); err != nil {
			return s, err
		}
		if s.AnchorAfter, _, err = at.Strings("after"); err != nil {
			return s, err
		}
	}
	return s, nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
