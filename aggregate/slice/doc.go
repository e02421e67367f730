// Package slice pins and finds again ctx's custom slices. A custom slice is
// a line range of a file kept as a view of that file (the custom view of a
// [files] entry lists its custom_slices), found again after the file is
// edited by its content hash, its anchor lines, its context lines and a
// fuzzy match.
//
// [New] pins lines start..end of a file's bytes: it records the BLAKE3 hash
// of their text (Slice.ContentHash), up to three anchor lines on each side
// (Slice.AnchorLines) and a fingerprint, a short whitespace-normalised
// digest per line (Slice.Fingerprint, which holds no code). [NewFromFile]
// does the same with a file read through ctx's bounded reader, and
// [Slice.TOML] writes the slice as the inline table that `ctx slice add`
// prints for ctx.toml.
//
// [Resolve] finds a slice in the file's current bytes, and says how
// ([Result].Resolution):
//
//   - unchanged: the hash still matches at the recorded range;
//   - moved: the exact text was found once elsewhere (or, where it occurs
//     several times, once between its anchor lines);
//   - anchored: a range was found between the anchor lines (and, when the
//     slice has a fingerprint, it is similar enough to it);
//   - fuzzy: a similarity search over the fingerprint found one range that
//     reaches a threshold and leads the best range that does not overlap it
//     by a margin;
//   - orphaned: none of these found it; the Result has no content, so that
//     stale lines are never shown;
//   - unpinned: a hand-written slice without a content hash, shown at its
//     range as it is, since a change cannot be detected.
//
// Manual Slop's slices load too: a SHA-256 content hash (Slice.HashAlgorithm,
// or found out by the hash that matches, BLAKE3 first; Result.HashAlgorithm
// records it) and anchor lines as one list (Anchors.Context), tried at every
// split into a block before and a block after, and accepted only when the
// splits agree on one range.
//
// The package sits below aggregate, which renders the resolved slices in
// its custom view and checks them (aggregate.CheckSlices, `ctx slice
// check`); it reads no ctx.toml (config decodes custom_slices into
// [Slice]) and knows nothing of the pipeline.
package slice
