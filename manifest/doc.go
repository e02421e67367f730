// Package manifest builds, encodes and decodes the ctx manifest: the record
// of every instruction source considered for an agent, what was decided
// about it, its sizes and BLAKE3 hashes, and the text emitted for it.
//
// # Building
//
// [Build] discovers the sources (see package discover), reads each one
// without rewriting a byte, and decides in rendering order, first rule
// first: audience_excluded, native_autoload (a native, or a duplicate of
// one), the source's own status (missing, unreadable, empty),
// shadowed_by_native (with a profile: a file the agent deliberately skips
// for a native of the same folder, such as Claude Code's AGENTS.md beside
// CLAUDE.md), same_path or
// same_content (a duplicate of an included source), fallback_not_selected
// (CLAUDE.md while AGENTS.md is available), else included. Budgets then cut
// the included text by source id or kind: lines, then characters ([Cut]),
// then tokens ([CutTokens], counted with the manifest's estimator and cut
// at a token boundary that is also a character boundary). A source cut to
// "" becomes budget_exhausted. Nothing is inserted into the text:
// truncation is recorded in the row.
//
// One estimator (Options.Estimator, named in the manifest's estimator
// field) counts every token: sources, files, history, sections and token
// budgets.
//
// # Encoding
//
// [Marshal] and [Encode] write deterministic JSON: the same inputs give the
// same bytes. [Decode] reads the schema version first, refuses anything but
// version 1 ([ErrVersion]) and unknown fields, and checks that fragments
// and source ids are aligned ([ErrAlignment]). The JSON Schema lives in
// package schemas.
//
// # Extensions
//
// Version 1 is extended compatibly with optional fields: files (aggregated
// project files), history (the chat history), sections (rendered blocks
// after the instruction fragments), and the token budgets' max_tokens (in
// budgets) and max_tokens and omitted_tokens (after the 36 fields of a row
// whose budget has max_tokens). A manifest without them is the original
// format.
package manifest
