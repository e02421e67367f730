// Package provenance follows a context over time: it checks a stored
// manifest against the files it records, and compares two manifests.
//
// # Verifying a stored manifest
//
// A manifest committed beside the code (by convention ctx.manifest.json,
// written by `ctx manifest --relative -o ctx.manifest.json`) says exactly
// what an agent was given. [Verify] re-reads every instruction source,
// aggregated file and history file it records and reports each row as
// unchanged, changed (the old and the new BLAKE3 hash), missing (it was
// read, it is gone), or appeared (it was missing, it exists now). It also
// rebuilds the manifest from the same inputs (the recorded agent, the
// project directory and the options of its ctx.toml) and compares the
// lists: a source or file that would now be added is new, one that would
// no longer be listed is removed. Any row that is not unchanged is drift:
//
//	m, err := manifest.ReadFile("ctx.manifest.json")
//	dir, err := provenance.ProjectDir(m, "", "")          // "." for a relative manifest
//	p, err := config.LoadProject(config.ProjectOptions{Dir: dir})
//	rep, err := provenance.Verify(ctx, m, p.ManifestOptions())
//	err = provenance.WriteVerify(os.Stdout, rep, provenance.FormatTable, 0)
//	if rep.Drifted > 0 { ... }
//
// A relative manifest (see manifest.Relativize) is resolved against the
// directory given, so the same committed manifest verifies in any clone.
//
// # Comparing two manifests
//
// [Diff] compares an older and a newer manifest: sources added, removed,
// re-ordered, moved to another path, re-budgeted, with other content or
// another decision, and their emitted tokens up or down; files added,
// removed or changed; budgets and the history; and the total emitted
// tokens before and after. Both manifests are compared in their relative
// form, so that manifests built in two clones compare by what they hold.
//
// [WriteVerify] and [WriteDiff] print the reports as a table that fits the
// width they are given (100 columns by default; long ids and paths wrap
// after a slash, never cut), or as JSON (the report types themselves).
package provenance
