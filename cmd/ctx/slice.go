package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/table"
)

// maxSliceFile bounds the file read by ctx slice add.
const maxSliceFile = aggregate.DefaultMaxFileBytes

func sliceCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:  "slice",
		Usage: "pin custom slices of files and check them against the current files",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "print a pinned slice as a TOML inline table for custom_slices",
				ArgsUsage: "FILE START END",
				Description: `Reads FILE and prints lines START..END (1-based, inclusive) as a pinned
slice: a TOML inline table with the range, the tag and comment, the BLAKE3
content hash, the anchor lines and the fingerprint that let ctx re-find the
slice after edits. Paste it into the custom_slices array of the file's
entry in [files] paths. ctx never edits ctx.toml itself, so your comments
and layout stay as they are.

Example:
   ctx slice add lib/util.py 10 24 --tag parser --comment "hot path"`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "tag", Usage: "slice `TAG`"},
					&cli.StringFlag{Name: "comment", Usage: "slice `COMMENT`"},
				},
				Action: func(c *cli.Context) error { return e.sliceAdd(c) },
			},
			{
				Name:      "check",
				Usage:     "report moved and orphaned slices of [files]; exit 1 when one is orphaned",
				ArgsUsage: " ",
				Flags:     aggregateFlags(),
				Action:    func(c *cli.Context) error { return e.sliceCheck(c) },
			},
		},
	}}
}

func (e *env) sliceAdd(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	if len(args) != 3 {
		return usagef("slice add takes FILE START END, got %d arguments", len(args))
	}
	file := args[0]
	var lines [2]int
	for i, a := range args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 {
			return usagef("%s must be a line number (1 or more), not %q", []string{"START", "END"}[i], a)
		}
		lines[i] = n
	}
	if lines[1] < lines[0] {
		return usagef("END (%d) must not be before START (%d)", lines[1], lines[0])
	}
	src, err := readCapped(file, maxSliceFile)
	if err != nil {
		return err
	}
	if aggregate.IsBinary(src) {
		return fmt.Errorf("%s: binary file", file)
	}
	s, err := aggregate.NewSlice(src, lines[0], lines[1], c.String("tag"), c.String("comment"))
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	_, err = fmt.Fprintln(e.stdout, sliceTOML(s))
	return err
}

func readCapped(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %w", file, unwrapPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %w", file, unwrapPath(err))
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", file)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", file, limit)
	}
	buf := make([]byte, st.Size())
	n, err := f.Read(buf)
	for err == nil && n < len(buf) {
		var m int
		m, err = f.Read(buf[n:])
		n += m
	}
	if n < len(buf) {
		return nil, fmt.Errorf("%s: cannot read: %w", file, unwrapPath(err))
	}
	return buf, nil
}

// sliceTOML renders s as a one-line TOML inline table (TOML 1.0 inline
// tables cannot span lines).
func sliceTOML(s aggregate.Slice) string {
	parts := []string{
		fmt.Sprintf("start_line = %d", s.StartLine),
		fmt.Sprintf("end_line = %d", s.EndLine),
	}
	if s.Tag != "" {
		parts = append(parts, "tag = "+tomlString(s.Tag))
	}
	if s.Comment != "" {
		parts = append(parts, "comment = "+tomlString(s.Comment))
	}
	parts = append(parts, "content_hash = "+tomlString(s.ContentHash))
	parts = append(parts, fmt.Sprintf("anchor_lines = { before = %s, after = %s }",
		tomlStrings(s.AnchorLines.Before), tomlStrings(s.AnchorLines.After)))
	parts = append(parts, "fingerprint = "+tomlString(s.Fingerprint))
	return "{ " + strings.Join(parts, ", ") + " }"
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlStrings(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func (e *env) sliceCheck(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	s, err := loadAggregate(c, nil, false)
	if err != nil {
		return err
	}
	o := s.opts
	// only entries with slices matter; their views are not needed
	var files []aggregate.FileItem
	for _, f := range o.Files {
		if len(f.CustomSlices) > 0 {
			f.ViewMode = aggregate.ViewNone
			f.ForceFull = false
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		_, err := fmt.Fprintln(e.stdout, "no custom slices")
		return err
	}
	o.Files, o.Screenshots, o.Strategy, o.SummaryOnly = files, nil, aggregate.StrategyFull, false
	items, err := aggregate.BuildItems(c.Context, o)
	if err != nil {
		return err
	}
	var rows [][]string
	orphaned, moved := 0, 0
	for _, it := range items {
		if it.Error != "" {
			rows = append(rows, []string{it.Path, "", "", "", "error: " + it.Error})
			orphaned += len(it.Settings().CustomSlices)
			continue
		}
		for _, sl := range it.Slices {
			now := "-"
			if !sl.Orphaned() {
				now = fmt.Sprintf("%d-%d", sl.NewStart, sl.NewEnd)
			}
			status := sl.Resolution
			switch sl.Resolution {
			case aggregate.ResolutionOrphaned:
				orphaned++
				status += ": " + sl.Reason
			case aggregate.ResolutionMoved, aggregate.ResolutionAnchored, aggregate.ResolutionFuzzy:
				moved++
			}
			rows = append(rows, []string{it.Path, sl.Tag, fmt.Sprintf("%d-%d", sl.OldStart, sl.OldEnd), now, status})
		}
	}
	if err := table.Write(e.stdout, []string{"file", "tag", "lines", "now", "resolution"}, rows); err != nil {
		return err
	}
	if orphaned > 0 {
		return &checkFailed{fmt.Sprintf("%d orphaned slice(s); re-pin them with 'ctx slice add'", orphaned)}
	}
	if moved > 0 {
		fmt.Fprintf(e.stderr, "ctx: hint: %d slice(s) moved; re-pin them with 'ctx slice add' to update their ranges\n", moved)
	}
	return nil
}
