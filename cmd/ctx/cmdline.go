package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	suggestpkg "github.com/ctxaudit/ctx/internal/suggest"

	"github.com/urfave/cli/v2"
)

// The command line, the same in every command: flags may follow arguments
// ("ctx history h.json --format markdown"), "--" ends the flags ("ctx
// aggregate --stdout -- -leading.txt"), and a mistyped command or flag gets
// a "did you mean".

// normalizeArgs rewrites args (args[0] is the program) so that the flag
// parser of urfave/cli, which stops at the first argument, sees every flag:
// for each command on the line (and subcommand, as in "ctx slice add"), the
// flags found among its arguments move before them, and the arguments follow
// a "--". A flag that takes a value takes the next word, as the parser
// would; everything after the first "--" is an argument. Unknown flags
// move too, so that the parser reports them. When the first argument at
// the top level names no command the line is left as it is (the top-level
// action reports the unknown command); "help" takes its arguments as they
// are.
func normalizeArgs(app *cli.App, args []string) []string {
	if len(args) == 0 {
		return args
	}
	out := []string{args[0]}
	flags, cmds := app.Flags, app.Commands
	rest := args[1:]
	root := true
	for {
		var fl, pos []string
		var next *cli.Command
		i := 0
	scan:
		for i < len(rest) {
			a := rest[i]
			switch {
			case a == "--":
				pos = append(pos, rest[i+1:]...)
				i = len(rest)
				break scan
			case len(a) > 1 && a[0] == '-':
				fl = append(fl, a)
				if takesValue(flags, a) && i+1 < len(rest) {
					fl = append(fl, rest[i+1])
					i++
				}
			case len(pos) == 0 && len(cmds) > 0:
				next = findCommand(cmds, a)
				if next == nil && root {
					// an unknown command: the top-level action says so
					return args
				}
				if next != nil {
					i++
					break scan
				}
				pos = append(pos, a)
			default:
				pos = append(pos, a)
			}
			i++
		}
		out = append(out, fl...)
		if next == nil {
			if len(pos) > 0 {
				out = append(out, "--")
				out = append(out, pos...)
			}
			return out
		}
		out = append(out, next.Name)
		rest = rest[i:]
		if next.Name == "help" {
			return append(out, rest...)
		}
		flags, cmds, root = next.Flags, next.Subcommands, false
	}
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// flagWord returns the name in a flag word ("--format=json" is "format"),
// and whether the word carries its value.
func flagWord(a string) (name string, hasValue bool) {
	a = strings.TrimPrefix(a, "-")
	a = strings.TrimPrefix(a, "-")
	name, _, hasValue = strings.Cut(a, "=")
	return name, hasValue
}

// takesValue reports whether the flag word a names a flag of flags that
// takes a value and does not carry it ("--format", not "--format=json" or
// "--stdout"). Unknown flags take none.
func takesValue(flags []cli.Flag, a string) bool {
	name, hasValue := flagWord(a)
	if hasValue {
		return false
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				d, ok := f.(cli.DocGenerationFlag)
				return ok && d.TakesValue()
			}
		}
	}
	return false
}

// badValue matches the flag parser's error for a value that does not
// parse: `invalid value "abc" for flag -max-tokens: parse error`, or
// `invalid boolean value "maybe" for -stdout: parse error`.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): (.*)$`)

// commandFlags returns the flags of c's command (the app's at the top
// level).
func commandFlags(c *cli.Context) []cli.Flag {
	if c == nil || c.Command == nil {
		return nil
	}
	flags := c.Command.Flags
	if c.Command.Name == "" || c.Command.Name == c.App.Name {
		flags = append(append([]cli.Flag(nil), flags...), c.App.Flags...)
	}
	return flags
}

// valueError says, in ctx's words, what a flag's value must be: "--top:
// must be a whole number, not "x"".
func valueError(flags []cli.Flag, name, quoted, cause string) error {
	value, err := strconv.Unquote(quoted)
	if err != nil {
		value = quoted
	}
	var f cli.Flag
	for _, fl := range flags {
		for _, n := range fl.Names() {
			if n == name {
				f = fl
			}
		}
	}
	want := "a valid value"
	switch f.(type) {
	case *cli.BoolFlag:
		want = "true or false"
	case *cli.IntFlag, *cli.Int64Flag:
		want = "a whole number"
		if strings.Contains(cause, "out of range") {
			// with thousands separators, as ctx prints numbers
			want += " up to " + message.NewPrinter(language.English).Sprintf("%d", math.MaxInt)
		}
	case *cli.UintFlag, *cli.Uint64Flag:
		want = "a whole number, 0 or more"
	case *cli.Float64Flag:
		want = "a number"
	}
	return fmt.Errorf("%s: must be %s, not %q", dashed(name), want, value)
}

// flagUsageError turns an error of the flag parser into a usage error in
// ctx's words, with a "did you mean" for an unknown flag of c's command.
func flagUsageError(c *cli.Context, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return &usageError{err: fmt.Errorf("%s needs a value", dashed(name))}
	}
	if m := badValue.FindStringSubmatch(msg); m != nil {
		return &usageError{err: valueError(commandFlags(c), m[2], m[1], m[3])}
	}
	name, ok := strings.CutPrefix(msg, "flag provided but not defined: -")
	if !ok || c == nil || c.Command == nil {
		return &usageError{err: err}
	}
	var names []string
	for _, f := range commandFlags(c) {
		names = append(names, f.Names()...)
	}
	ue := &usageError{err: fmt.Errorf("unknown flag %s", dashed(name))}
	if s := suggest(name, names); len(s) > 0 {
		for i := range s {
			s[i] = dashed(s[i])
		}
		ue.hint = "did you mean " + orList(s) + "?"
	} else if strings.ContainsAny(name, "./") {
		ue.hint = "a path that starts with - goes after --, as in: ctx " + c.Command.Name + " -- -" + name
	}
	return ue
}

// unknownCommand is the usage error of a command name that names no
// command of cmds, under the command path parent ("ctx", "ctx slice").
func unknownCommand(parent, name string, cmds []*cli.Command) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	ue := &usageError{err: fmt.Errorf("unknown command %q", name)}
	if parent != "ctx" {
		ue.err = fmt.Errorf("unknown command %q for %s", name, parent)
	}
	if s := suggest(name, names); len(s) > 0 {
		for i := range s {
			s[i] = "'" + parent + " " + s[i] + "'"
		}
		ue.hint = "did you mean " + orList(s) + "?"
	}
	return ue
}

// groupAction is the action of a command that only holds subcommands
// (ctx slice, ctx preset): its help, or an unknown subcommand.
func groupAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return unknownCommand("ctx "+c.Command.Name, c.Args().First(), c.Command.Subcommands)
	}
	return cli.ShowSubcommandHelp(c)
}

func dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// suggest is suggest.Names: the names closest to a mistyped one.
func suggest(typed string, names []string) []string { return suggestpkg.Names(typed, names) }
