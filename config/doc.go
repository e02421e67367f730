// Package config reads ctx.toml and turns it into the options of every
// stage of ctx: it is the one place where configuration becomes options,
// for the ctx command and for Go programs that embed ctx alike.
//
// # Doing what the command does
//
// [LoadProject] finds the project's ctx.toml (or reads a given file) with
// the defaults of the command: the working directory, the home directory
// and the environment of the process. The [Project] it returns gives the
// options of each stage:
//
//	p, err := config.LoadProject(config.ProjectOptions{Dir: dir})
//	m, err := manifest.Build(ctx, p.ManifestOptions()) // ctx manifest
//	text := render.Text(m)                             // ctx render
//	ao, err := p.AuditOptions()                        // ctx audit: thresholds, secret scanner
//	rep, err := audit.RunContext(ctx, m, ao)
//	err = audit.Write(w, rep, audit.FormatJSON, audit.WriteOptions{Home: p.Home})
//
// [Project.ManifestOptions] covers discovery, [[sources]], budgets,
// [files], [screenshots] and [history]; [Project.AggregateOptions] is
// what `ctx aggregate` runs; [History.HistoryOptions] is what `ctx
// history` builds with. A caller may change any option before use, as the
// command's flags do. The example program examples/runtime prints exactly
// what the command prints, through these calls only.
//
// # Errors
//
// Decoding is strict: malformed TOML, unknown keys and values of the wrong
// type are [*Error] values that name the file, the line (where known) and
// the field, as "ctx.toml:12: budgets.memory.max_chars: must be a
// nonnegative whole number or inf, not -1". Every key is documented in
// docs/config.md.
package config
