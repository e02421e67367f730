package main

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestNormalizeArgs(t *testing.T) {
	app := &cli.App{
		Name:  "ctx",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "version"}},
		Commands: []*cli.Command{
			{Name: "aggregate", Flags: []cli.Flag{
				&cli.BoolFlag{Name: "stdout"},
				&cli.StringFlag{Name: "format"},
				&cli.StringFlag{Name: "project-dir", Aliases: []string{"C"}},
			}},
			{Name: "slice", Subcommands: []*cli.Command{
				{Name: "add", Flags: []cli.Flag{&cli.StringFlag{Name: "tag"}}},
			}},
		},
	}
	app.Setup()
	for _, tc := range []struct{ in, want string }{
		{"ctx", "ctx"},
		{"ctx --version", "ctx --version"},
		{"ctx aggregate", "ctx aggregate"},
		{"ctx aggregate a b", "ctx aggregate -- a b"},
		{"ctx aggregate a --stdout b", "ctx aggregate --stdout -- a b"},
		{"ctx aggregate a --format json b", "ctx aggregate --format json -- a b"},
		{"ctx aggregate a --format=json -C dir b", "ctx aggregate --format=json -C dir -- a b"},
		{"ctx aggregate --stdout -- -x --format", "ctx aggregate --stdout -- -x --format"},
		{"ctx aggregate a -- --stdout", "ctx aggregate -- a --stdout"},
		{"ctx aggregate --format --stdout a", "ctx aggregate --format --stdout -- a"},
		{"ctx aggregate a --bogus b", "ctx aggregate --bogus -- a b"},
		{"ctx aggregate a --format", "ctx aggregate --format -- a"},
		{"ctx aggregate - --stdout", "ctx aggregate --stdout -- -"},
		{"ctx slice add f 1 2 --tag t", "ctx slice add --tag t -- f 1 2"},
		{"ctx slice nosuch --tag t", "ctx slice --tag -- nosuch t"}, // --tag is no flag of slice
		{"ctx nosuch --stdout a", "ctx nosuch --stdout a"},
		{"ctx help aggregate", "ctx help aggregate"},
		{"ctx --version aggregate a --stdout", "ctx --version aggregate --stdout -- a"},
	} {
		got := strings.Join(normalizeArgs(app, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("normalizeArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A flag's help line names a repeatable flag once and shows one default:
// none for a boolean or for a usage that says its default, a string's
// without quotes.
func TestFlagString(t *testing.T) {
	for _, tc := range []struct {
		f    cli.Flag
		want string
	}{
		{&cli.BoolFlag{Name: "redact", Usage: "redact (default: redact in [secrets] of ctx.toml)"}, "--redact\tredact (default: redact in [secrets] of ctx.toml)"},
		{&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "say nothing"}, "--quiet, -q\tsay nothing"},
		{&cli.IntFlag{Name: "max-tokens", Usage: "budget `N` (0: no limit; default: [files] max_tokens)"}, "--max-tokens N\tbudget N (0: no limit; default: [files] max_tokens)"},
		{&cli.IntFlag{Name: "top", Usage: "the `N` largest"}, "--top N\tthe N largest"},
		{&cli.IntFlag{Name: "keep", Usage: "keep `N`", Value: 2}, "--keep N\tkeep N (default: 2)"},
		{&cli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT`: table or json"}, "--format FORMAT\tFORMAT: table or json (default: table)"},
		{&cli.StringSliceFlag{Name: "ignore", Usage: "leave out `PATTERN` (repeatable)"}, "--ignore PATTERN\tleave out PATTERN (repeatable)"},
	} {
		if got := flagString(tc.f); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

func TestFitHelp(t *testing.T) {
	in := "NAME:\n   ctx x - a usage\n\nDESCRIPTION:\n   one two three\n   four five six seven\n\n   Examples:\n      ctx x --long-flag value   # a comment that is long\n\nOPTIONS:\n   --flag N  the usage of the flag, which is long\n   --f       short\n"
	want := "NAME:\n   ctx x - a usage\n\nDESCRIPTION:\n   one two three four five six\n   seven\n\n   Examples:\n      # a comment that is long\n      ctx x --long-flag value\n\nOPTIONS:\n   --flag N  the usage of the\n             flag, which is\n             long\n   --f       short\n"
	if got := fitHelp(in, 30); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
