package main

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// The help of every command, fitted to the terminal: urfave/cli lays the
// help out but never wraps it, so option lines ran to 200 columns and the
// descriptions kept the line breaks of the source.

// helpWidth is the width of the help when stdout is not a terminal.
const helpWidth = 80

func init() {
	cli.FlagStringer = flagString
	cli.HelpPrinter = printHelp
}

// printHelp renders the help as urfave/cli does and fits it to the width
// of w (helpWidth when w is not a terminal): see fitHelp.
func printHelp(w io.Writer, templ string, data any) {
	var b bytes.Buffer
	cli.HelpPrinterCustom(&b, templ, data, nil)
	width := terminalWidth(w)
	if width <= 0 {
		width = helpWidth
	}
	_, _ = io.WriteString(w, fitHelp(b.String(), width))
}

// flagString is a flag's line in the help: its names with the value's
// placeholder, a tab, and its usage. Unlike urfave/cli's it names a
// repeatable flag once (the usage says it repeats), shows no default for a
// boolean (false) or a number that means "not set" (0), none when the
// usage already says what the default is, and a string's default without
// quotes.
func flagString(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	placeholder, usage := unquoteUsage(df.GetUsage())
	if df.TakesValue() && placeholder == "" {
		placeholder = "VALUE"
	}
	var names []string
	for _, n := range df.Names() {
		if n == "" {
			continue
		}
		s := dashed(n)
		if placeholder != "" {
			s += " " + placeholder
		}
		names = append(names, s)
	}
	def := ""
	if _, isBool := f.(*cli.BoolFlag); !isBool && !strings.Contains(usage, "default:") {
		def = df.GetDefaultText()
		if u, err := strconv.Unquote(def); err == nil {
			def = u
		}
		if def == "0" || def == "[]" {
			def = ""
		}
	}
	if def != "" {
		usage += " (default: " + def + ")"
	}
	return strings.Join(names, ", ") + "\t" + strings.TrimSpace(usage)
}

// unquoteUsage returns the first `word` of usage, the placeholder of the
// flag's value, and usage without its backquotes.
func unquoteUsage(usage string) (string, string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	name := usage[i+1 : i+1+j]
	return name, usage[:i] + name + usage[i+2+j:]
}

// fitHelp fits the help text to width columns:
//
//   - the paragraphs of a DESCRIPTION (lines indented by three spaces, up
//     to a blank line or a line indented more, such as an example) are
//     joined and wrapped again, so that their lines are even;
//   - a longer line of two columns (an option or a command and its usage,
//     which urfave/cli separates by two spaces or more) wraps its usage
//     under the usage column, or, when that column is past half the
//     width, on lines of its own indented by eight spaces;
//   - an example of a DESCRIPTION (indented more) stays whole, its comment
//     moved closer, or onto a line of its own above it;
//   - any other long line wraps with its indent plus three.
//
// A word longer than a line stays whole.
func fitHelp(text string, width int) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var out []string
	section := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case indent == 0 && strings.HasSuffix(line, ":"):
			section = line
			out = append(out, line)
		case section == "DESCRIPTION:" && indent == 3:
			para := []string{trimmed}
			for i+1 < len(lines) && indentOf(lines[i+1]) == 3 && !strings.HasSuffix(lines[i+1], ":") {
				i++
				para = append(para, strings.TrimSpace(lines[i]))
			}
			out = append(out, wrapWords(strings.Join(para, " "), "   ", "   ", width)...)
		case section == "DESCRIPTION:" && columns(line) > width:
			// an example: its comment moves closer, or above it; a command
			// stays whole
			if cmd, comment, ok := strings.Cut(trimmed, "  #"); ok {
				line = lead(indent) + strings.TrimRight(cmd, " ") + "  #" + comment
				if columns(line) > width {
					out = append(out, lead(indent)+"#"+comment)
					line = lead(indent) + strings.TrimRight(cmd, " ")
				}
			}
			out = append(out, line)
		case columns(line) > width:
			out = append(out, fitLine(line, indent, width)...)
		default:
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// fitLine wraps one line of the help (see fitHelp).
func fitLine(line string, indent, width int) []string {
	lead := strings.Repeat(" ", indent)
	body := line[indent:]
	if gap := strings.Index(body, "  "); gap > 0 {
		rest := strings.TrimLeft(body[gap:], " ")
		col := len(line) - len(rest)
		if col <= width/2 {
			return wrapWords(rest, line[:col], strings.Repeat(" ", col), width)
		}
		return append([]string{lead + body[:gap]}, wrapWords(rest, strings.Repeat(" ", 8), strings.Repeat(" ", 8), width)...)
	}
	return wrapWords(body, lead, lead+"   ", width)
}

// wrapWords breaks text at spaces into lines of at most width columns, the
// first starting with first and the others with next.
func wrapWords(text, first, next string, width int) []string {
	var out []string
	line := first
	empty := true
	for _, w := range strings.Fields(text) {
		if !empty && columns(line)+1+columns(w) > width {
			out = append(out, line)
			line, empty = next, true
		}
		if !empty {
			line += " "
		}
		line += w
		empty = false
	}
	return append(out, line)
}

func lead(n int) string { return strings.Repeat(" ", n) }

func indentOf(line string) int {
	if strings.TrimSpace(line) == "" {
		return -1
	}
	return len(line) - len(strings.TrimLeft(line, " "))
}

// columns is the width of s on a terminal (the help holds no wide
// characters).
func columns(s string) int { return utf8.RuneCountInString(s) }
