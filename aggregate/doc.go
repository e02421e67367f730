// Package aggregate builds the file context that ctx gives an agent: it
// resolves the files of ctx.toml ([files], [screenshots]), renders each file
// in its view, composes one markdown document and records, per file, what
// was read and what was emitted. The user guide, with every difference from
// Manual Slop's pipeline and its reason, is docs/aggregate.md.
//
// # Pipeline
//
// [Run] resolves the entries ([FileItem]), reads the files in parallel with
// a bounded worker pool (output order stays the entry order), renders each
// with [View], composes the sections as [Markdown] does and, when an output
// directory is set, writes {output_dir}/{namespace}_{NNN}.md with the next
// free number ([WriteNumbered]: the file is created exclusively, so two
// concurrent runs never share a number; the directory it makes ignores
// itself with a .gitignore, [OutputIgnore], and Options.Keep bounds the
// numbered outputs it keeps). A path that does not exist is an error of the
// run ([MissingError]: a misspelling, never an "ERROR:" block in place of
// the file); a glob that matches nothing, a file that is too large, binary or
// unreadable, or whose view fails becomes an item with a status and an
// error, and the pipeline never stops on one file. A view that fails shows the original's
// text, "ERROR in {mode} view mode for {label}:\n{error}" ([ViewErrorText]).
//
// Run keeps the whole document (Result.Markdown, Result.Static) and every
// item's text, as manifest.Build needs them. [Stream] writes the same
// bytes, and a final newline, to an io.Writer and to the numbered file as
// they are produced: the workers finish files out of order, and a reorder
// window hands out a file only when at most a few per worker wait to be
// written, which is done in entry order, so that memory follows the
// largest files in the window and never the project or the document. Its
// Result has the items without their text. The numbered file is written
// to a temporary file in the output directory and takes its number only
// when the run succeeds: a run that fails or is cancelled leaves nothing.
// The document's tokens (in the [Summary]) are counted as it is written
// ([measure.Scan] measures each block in one pass, and the exact
// estimators' counts of the blocks are reused: their pre-tokenizers always
// cut a text after a line break before an ASCII character other than white
// space and "/", so counts add up at such places). Parsing is gated so that
// the workers never parse more than 2 MiB of source at once: a parse takes
// a hundred bytes and more per byte of source, and two of the largest files
// side by side would otherwise set the peak.
//
// # Cache
//
// Options.Cache ([Cache]; package cache keeps one in a directory) keeps
// what is costly to derive from a file's bytes between runs: the
// skeleton, outline, summary and masked views, the exact estimators' token
// counts, and the symbol counts of [MeasureFiles]. Each value is stored under a
// key that names all it depends on: the BLAKE3 of the bytes, the view and
// its settings (the mask), the file's extension, the engine and its
// grammar ([CacheableEngine]; codeview.Engine names the tree-sitter
// grammar), the estimator, and the build of ctx; a value found under
// another key is never used. Views that failed, and anything computed
// with a done context, are not stored. A cached view holds no fence: its
// fence is derived again from its mode and the file's name, and its length
// from the text, so that no entry decides how its text is shown. The
// output is the same, byte for byte, with or without a cache.
//
// # Paths
//
// An entry is a file, a directory (walked) or a glob with ** (doublestar);
// an entry that names an existing path is that path, even when it holds glob
// characters (app/[id]/page.tsx).
// Globs and walks skip .git and the output directory (Options.SkipDirs),
// even when it is a glob's base or the directory given; they respect
// .gitignore files at every level and .git/info/exclude ([GitIgnore],
// matched as git matches them; off with Options.NoGitIgnore), then the
// default ignore list ([DefaultIgnores]: lock files, .env files, private
// keys and credentials, dependency, build and cache directories; off with
// Options.NoDefaultIgnores), then Options.IgnorePatterns (gitignore syntax
// relative to the base directory; the last match wins). What the default
// list leaves out is listed in [Result.Ignored] (a directory once) and
// counted in the [Summary], never dropped silently; an entry whose every
// match was left out is an error item that says by what (the default
// list, the patterns, or git with the file, line and pattern). A file
// named explicitly is always read, and so is a directory named explicitly
// or as a glob's base, whatever ignores it: the rules apply below it. [Options.OrProject] makes the base
// directory the one entry when there is none (ctx aggregate and ctx stats
// without [files] paths, as repomix packs the directory it runs in).
// Options.Changed keeps only the files that git reports as changed
// ([ChangedFiles], which runs the git command); entries that match nothing
// stay as errors.
// A directory that a walk cannot read, or that lies more than
// [MaxWalkDepth] levels below where the walk started (or whose path would
// pass the system's limit), is not entered and becomes an error item that
// names it ("cannot read directory secret: permission denied"), in path
// order among the walk's files, once per run.
// history.toml and *_history.toml (any case) are never aggregated. A file
// reached by several entries (or through symbolic links) is kept once,
// where it first appears; an explicit entry's settings win over a glob's.
// A glob or directory that yields nothing becomes an error item ("no files
// matched: ..."); a path that does not exist is a [MissingError], which
// names where it was written (FileItem.At), unless FileItem.Optional (a
// preset's files) leaves it out. Labels are paths relative to the base directory with forward
// slashes, never host paths.
// Files above [Options.MaxFileBytes] are not read; files with a NUL byte in
// their first 8000 bytes or with invalid UTF-8 are listed, hashed and not
// inlined.
//
// # Views
//
//   - full: the bytes in a code fence longer than any backtick run inside,
//     the extension as language ("text" when none).
//   - summary: [Engine.Summary], as markdown.
//   - skeleton, masked: the engine's output fenced like full; outline:
//     fenced as text. A language the engine does not support falls back to
//     summary, Item.Fallback says why and the header says so, like the
//     other suffixes: "### `{label}` (Summary; skeleton not supported)"
//     ("(Summary; no custom slices)" for a custom view without slices). A view that a limit of the
//     engine cut (codeview: symbols nested deeper than 64 levels, a view
//     over 64 KiB plus 4 bytes per source byte) is shown as cut, and
//     Item.Truncated says what was left out (see [TruncatedError]).
//   - none: "(context excluded)", under "### `{label}` (excluded)" (the
//     original's heading).
//   - custom: only the custom slices, each "[Slice: <tag>] (<comment>)",
//     "Lines <start>-<end>:" and the lines, joined by blank lines, fenced.
//     Slices are re-resolved first ([slice.Resolve]); an orphaned slice shows
//     "ORPHANED" and never its stale lines.
//
// force_full renders in full whatever the view or strategy; auto_aggregate
// = false keeps the item out of the markdown: it is still read, hashed and
// listed, but, as in the original, no view is computed (so none can fail,
// and its slices are not resolved); its ViewMode is the one asked for.
//
// # Markdown
//
// Sections, joined by "\n\n---\n\n", empty ones left out:
//
//	## Files | ## Files (Summary) | ## Files (Tier 3 - Focused)
//	## Screenshots
//	## Beads Mode: Progress Track  (Options.Beads: [beads.Read], [beads.Section])
//	## Discussion History          (always last: the rest is a stable prefix)
//
// Each file block ([Item.Block]) is "### `{label}`\n\n{body}" (a label
// holding backticks is wrapped in a longer run of backticks), where the body
// is the view's text (Item.Content) in a code fence longer than any
// backtick run inside it, for the views that have one (full, skeleton,
// outline, masked, custom, errors), or the text as it is (summary, none,
// binary). Item.Content, and so the items of `ctx aggregate --format json`
// ([Result.WriteJSON]), hold the view's text as a runtime would embed it;
// Item.Emitted measures the whole block. Blocks are joined by
// "\n\n---\n\n". A screenshot block is "### `{label}`\n\n![{name}]({label})"
// with the path relative to the screenshot base directory. The strategy
// picks the files section: auto (summary when SummaryOnly), summarize (every
// file summarised, except view none and force_full), full (each file in
// its own view) or tier3. With strategy tier3, or focus files, the Tier 3
// section renders focus files (matched against the entry, the relative
// path, the base name or the absolute path, never by substring:
// [FocusMatches]), tier 3 items and force_full items in full; C and C++
// source files as outlines (" (AST Outline)"), headers and the other
// languages as skeletons (" (AST Skeleton)"), or, where unsupported,
// summaries (" (Summary; skeleton not supported)"); view none and custom
// items keep their view. Result.UnmatchedFocus lists the focus entries
// that matched no file.
//
// # Token budget
//
// Off by default. Options.MaxFileTokens ([files] max_file_tokens) caps each
// file block (its Emitted.Tokens: header and body) and Options.MaxTokens
// ([files] max_tokens, ctx aggregate --max-tokens) is a ceiling on the
// whole document as it is written, final newline included: the headings,
// the blocks, the separators, the list of what was left out and the
// sections after the files, counted a piece at a time without counting the
// document again (see budgetdoc.go). A file over a limit is degraded one
// step at a time along
// full → skeleton → outline → summary → omitted (masked and custom views
// sit with the skeleton), skipping a view that is not smaller than the
// current block or not supported for the file; an omitted file has status
// "omitted" and no block. The per-file cap is applied first, in order; then,
// while the total is over, the largest block (on a tie, the later file) is
// degraded by one step, with the omitted files counted at the end of the
// section; then their names are listed, in order, as far as the room left
// allows, and the others counted ("- … and 12 more files left out"). A
// budget that what it cannot leave out exceeds is a [BudgetError], and
// nothing is written. The largest block is kept at the top of a heap, and
// a file's cheaper views are rendered together, from one parse, the first
// time the file is degraded (those of the next files to degrade in
// parallel), so a step costs no scan of the files and no parse of its own.
// [Stream] keeps no file's bytes for the budget: a file is read again when
// it is degraded and when its block is written, and must have the hash it
// had ([ErrChanged] otherwise); the views' texts are kept up to 32 MiB and
// rendered again, or taken from the cache, past that. force_full, tier 3
// and Tier 3 focus files are exempt from the cap and degraded by the total
// only when every other file is omitted. Binary and view none blocks, which
// have no cheaper view, are omitted whole; error blocks and auto_aggregate =
// false items are never touched. The files section ends with the omitted
// files, each with its tokens, under [OmittedHeading] ("- `big.py` (2,985
// tokens)"), and the list counts against max_tokens. A degraded block's header says so,
// "### `{label}` (Skeleton; token budget)", and Item.Degraded records the
// steps and the limit behind them: "full → skeleton → omitted (max_tokens 4000)".
//
// # Summary
//
// [Result.Summary] counts what a run did ([Summary]): the files with a
// block, the tokens of the whole document, what the token budget degraded
// and omitted, errors, binary and excluded files, the five largest blocks
// and how many paths the default ignores left out. [Summary.Write] puts it
// in words, a few "ctx: " lines, which ctx aggregate prints on stderr at
// the end of every run.
//
// # Slices
//
// Package aggregate/slice pins a line range ([slice.New]: the hash of its
// text, its anchor lines, a fingerprint) and finds it again in the current
// file ([slice.Resolve]: unchanged, moved, anchored, fuzzy, orphaned or
// unpinned), Manual Slop's slices (SHA-256 hashes, anchor lines as one list)
// included. The custom view shows each [slice.Result] as above, and
// [CheckSlices] resolves the slices of the entries without rendering
// views, for `ctx slice check`.
//
// # Purity
//
// [View] and [ComputeFileStats] are pure functions of (label, bytes,
// settings) and the [Engine], so their results are cached by content hash
// (see Cache). Nothing in the package prints or keeps global state.
package aggregate
