package slice

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/measure"
)

// Slice is a custom line range of a file, pinned so that it survives edits
// (a fuzzy anchor). [New] fills in the pins; a hand-written slice with
// only StartLine and EndLine is shown as it is and reported "unpinned".
//
// The slice text is the lines StartLine..EndLine (1-based, inclusive) of the
// file split at "\n", joined with "\n" (no final newline; a "\r" before a
// "\n" stays part of its line).
type Slice struct {
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Tag       string `json:"tag,omitempty"`
	Comment   string `json:"comment,omitempty"`
	// ContentHash is the hash of the slice text: BLAKE3 ([measure.Hash]) for
	// the slices ctx pins, or SHA-256, as Manual Slop's fuzzy anchors
	// have it (HashAlgorithm).
	ContentHash string `json:"content_hash,omitempty"`
	// HashAlgorithm is the algorithm of ContentHash: HashBLAKE3,
	// HashSHA256, or "" to find out, BLAKE3 first, by the hash that
	// matches (see [Resolve]).
	HashAlgorithm string `json:"hash_algorithm,omitempty"`
	// AnchorLines are up to three lines just before and just after the
	// slice, as they were when it was pinned; or, in Manual Slop's shape,
	// a list of surrounding lines that does not say which are before and
	// which after (Anchors.Context).
	AnchorLines Anchors `json:"anchor_lines,omitzero"`
	// Fingerprint holds one short digest per slice line: the first six hex
	// digits of the BLAKE3 hash of the line with its whitespace normalised
	// (runs collapsed, ends trimmed), "-" for a blank line, separated by
	// spaces. The similarity search uses it; it never stores the code.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Anchors are the context lines around a slice.
type Anchors struct {
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
	// Context is Manual Slop's anchor_lines list: lines around the slice,
	// in order, the ones before it first. [Resolve] accepts a place
	// only where some split of the list into a block before and a block
	// after encloses one range, and one range only.
	Context []string `json:"context,omitempty"`
}

// IsZero reports whether there are no anchor lines.
func (a Anchors) IsZero() bool { return len(a.Before) == 0 && len(a.After) == 0 && len(a.Context) == 0 }

// The hash algorithms of Slice.ContentHash.
const (
	HashBLAKE3 = measure.HashAlgorithm // "blake3": the slices ctx pins
	HashSHA256 = "sha256"              // Manual Slop's fuzzy anchors
)

// ParseHashAlgorithm checks s: blake3, sha256, or "" (find out).
func ParseHashAlgorithm(s string) (string, error) {
	switch s {
	case "", HashBLAKE3, HashSHA256:
		return s, nil
	}
	return "", fmt.Errorf("unknown hash algorithm %q (want %s or %s)", s, HashBLAKE3, HashSHA256)
}

// hashMatcher reports whether a slice text has the slice's content hash,
// and remembers the algorithm that matched. SHA-256 is compared with and
// without a final newline, since Manual Slop may hash the lines with their
// line ends.
type hashMatcher struct {
	want, algo string
}

func (h *hashMatcher) match(text string) bool {
	if h.algo != HashSHA256 && measure.Hash([]byte(text)) == h.want {
		h.algo = HashBLAKE3
		return true
	}
	if h.algo != HashBLAKE3 {
		if sha256Hex(text) == h.want || sha256Hex(text+"\n") == h.want {
			h.algo = HashSHA256
			return true
		}
	}
	return false
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Resolution is how a slice was found in the current file.
type Resolution string

// Resolutions of a slice against the current file.
const (
	// ResolutionUnchanged: the hash still matches at the recorded range.
	ResolutionUnchanged Resolution = "unchanged"
	// ResolutionMoved: the exact text was found once, elsewhere.
	ResolutionMoved Resolution = "moved"
	// ResolutionAnchored: the range was found between its anchor lines.
	ResolutionAnchored Resolution = "anchored"
	// ResolutionFuzzy: the similarity search found one clear best range.
	ResolutionFuzzy Resolution = "fuzzy"
	// ResolutionOrphaned: the slice could not be found; nothing is shown.
	ResolutionOrphaned Resolution = "orphaned"
	// ResolutionUnpinned: the slice has no content hash, so a change cannot
	// be detected; the recorded range is shown as it is.
	ResolutionUnpinned Resolution = "unpinned"
)

// Tuning of the resolver.
const (
	anchorContext     = 3    // anchor lines kept on each side
	fuzzyThreshold    = 0.7  // minimum similarity of a fuzzy match
	fuzzyMargin       = 0.15 // minimum lead over the best non-overlapping runner-up
	anchoredThreshold = 0.5  // minimum similarity of an anchored range (when a fingerprint exists)
	fuzzyRefine       = 3    // lines by which a fuzzy range may grow or shrink at each end
)

// Result is the resolution of one slice.
type Result struct {
	Tag        string     `json:"tag,omitempty"`
	Comment    string     `json:"comment,omitempty"`
	Resolution Resolution `json:"resolution"`
	OldStart   int        `json:"old_start"`
	OldEnd     int        `json:"old_end"`
	// NewStart and NewEnd are 0 when the slice is orphaned.
	NewStart int `json:"new_start"`
	NewEnd   int `json:"new_end"`
	// Score is the similarity (0..1) of a fuzzy or anchored match.
	Score float64 `json:"score,omitempty"`
	// Reason explains an orphaned slice.
	Reason string `json:"reason,omitempty"`
	// HashAlgorithm is the algorithm of the slice's content hash: as
	// configured, or the one that matched; "" for an unpinned slice, or
	// when the text changed and the configuration does not say.
	HashAlgorithm string `json:"hash_algorithm,omitempty"`
	// Content is the resolved slice text; empty when orphaned.
	Content string `json:"-"`
}

// Orphaned reports whether the slice could not be found.
func (r Result) Orphaned() bool { return r.Resolution == ResolutionOrphaned }

// splitLines splits text at "\n"; a final "\n" does not start a line.
func splitLines(src []byte) []string {
	if len(src) == 0 {
		return nil
	}
	s := string(src)
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

func normLine(l string) string { return strings.Join(strings.Fields(l), " ") }

func lineDigest(l string) string {
	n := normLine(l)
	if n == "" {
		return "-"
	}
	return measure.Hash([]byte(n))[:6]
}

func sliceText(lines []string, start, end int) string {
	return strings.Join(lines[start-1:end], "\n")
}

// New pins lines start..end (1-based, inclusive) of src: it records the
// content hash, the anchor lines and the fingerprint.
func New(src []byte, start, end int, tag, comment string) (Slice, error) {
	lines := splitLines(src)
	if start < 1 || end < start {
		return Slice{}, fmt.Errorf("invalid line range %d-%d", start, end)
	}
	if end > len(lines) {
		return Slice{}, fmt.Errorf("line range %d-%d is past the end of the file (%d lines)", start, end, len(lines))
	}
	s := Slice{StartLine: start, EndLine: end, Tag: tag, Comment: comment}
	s.ContentHash = measure.Hash([]byte(sliceText(lines, start, end)))
	for i := max(0, start-1-anchorContext); i < start-1; i++ {
		s.AnchorLines.Before = append(s.AnchorLines.Before, strings.TrimSuffix(lines[i], "\r"))
	}
	for i := end; i < min(len(lines), end+anchorContext); i++ {
		s.AnchorLines.After = append(s.AnchorLines.After, strings.TrimSuffix(lines[i], "\r"))
	}
	fp := make([]string, 0, end-start+1)
	for _, l := range lines[start-1 : end] {
		fp = append(fp, lineDigest(l))
	}
	s.Fingerprint = strings.Join(fp, " ")
	return s, nil
}

// Resolve finds s in src, the file's current bytes. It tries, in order:
// the recorded range (hash match), a unique exact match of the slice text
// anywhere, the anchor lines, and a whitespace-normalised similarity search
// over the fingerprint that must reach a threshold and lead the best
// non-overlapping runner-up by a margin. Otherwise the slice is orphaned and
// its Content is empty: stale lines are never returned.
func Resolve(src []byte, s Slice) Result {
	r := Result{Tag: s.Tag, Comment: s.Comment, OldStart: s.StartLine, OldEnd: s.EndLine}
	hm := &hashMatcher{want: s.ContentHash, algo: s.HashAlgorithm}
	lines := splitLines(src)
	orphan := func(reason string) Result {
		r.Resolution, r.Reason, r.NewStart, r.NewEnd, r.Content, r.Score = ResolutionOrphaned, reason, 0, 0, "", 0
		if s.ContentHash != "" {
			r.HashAlgorithm = hm.algo
		}
		return r
	}
	found := func(how Resolution, start, end int, score float64) Result {
		r.Resolution, r.NewStart, r.NewEnd, r.Score = how, start, end, score
		r.Content = sliceText(lines, start, end)
		if s.ContentHash != "" {
			r.HashAlgorithm = hm.algo
		}
		return r
	}
	if s.StartLine < 1 || s.EndLine < s.StartLine {
		return orphan("invalid line range")
	}
	n := s.EndLine - s.StartLine + 1
	inFile := s.EndLine <= len(lines)
	if s.ContentHash == "" {
		if !inFile {
			return orphan(fmt.Sprintf("unpinned slice is past the end of the file (%d lines)", len(lines)))
		}
		return found(ResolutionUnpinned, s.StartLine, s.EndLine, 0)
	}
	// (1) the recorded range
	if inFile && hm.match(sliceText(lines, s.StartLine, s.EndLine)) {
		return found(ResolutionUnchanged, s.StartLine, s.EndLine, 0)
	}
	var fp []string
	if s.Fingerprint != "" {
		fp = strings.Fields(s.Fingerprint)
		if len(fp) != n {
			fp = nil // inconsistent pin: do not trust it
		}
	}
	var digests []string
	if fp != nil {
		digests = make([]string, len(lines))
		for i, l := range lines {
			digests[i] = lineDigest(l)
		}
	}
	// (2) unique exact match
	exact := exactMatches(lines, digests, fp, n, hm)
	if len(exact) == 1 {
		return found(ResolutionMoved, exact[0], exact[0]+n-1, 0)
	}
	// (3) anchors
	if len(exact) > 1 {
		// several copies: the anchors pick one
		var picked []int
		for _, st := range exact {
			if anchorsAt(lines, s.AnchorLines, st, st+n-1) {
				picked = append(picked, st)
			}
		}
		if len(picked) == 1 {
			return found(ResolutionMoved, picked[0], picked[0]+n-1, 0)
		}
	}
	st, en, ok := byAnchors(lines, s.AnchorLines, n)
	if !ok && len(s.AnchorLines.Context) > 0 {
		st, en, ok = byContext(lines, s.AnchorLines.Context, n)
	}
	if ok {
		score := -1.0
		if fp != nil {
			// stay between the anchors, but drop lines inserted next to them
			var s0, e0 int
			s0, e0, score = refine(digests, fp, st-1, en-1, st-1, en-1)
			st, en = s0+1, e0+1
		}
		if fp == nil || score >= anchoredThreshold {
			return found(ResolutionAnchored, st, en, max(score, 0))
		}
	}
	// (4) similarity search
	if fp == nil {
		return orphan("the slice text changed and the slice has no fingerprint for a similarity search")
	}
	st, en, score, ok := fuzzySearch(digests, fp)
	if ok {
		return found(ResolutionFuzzy, st, en, score)
	}
	return orphan("the slice text was not found in the current file")
}

// exactMatches returns the 1-based starts of windows of n lines whose text
// has the slice's hash (at most two are collected).
func exactMatches(lines, digests, fp []string, n int, hm *hashMatcher) []int {
	var out []int
	for i := 0; i+n <= len(lines); i++ {
		if fp != nil {
			// cheap pre-check on the normalised digests
			same := true
			for j := 0; j < n; j++ {
				if digests[i+j] != fp[j] {
					same = false
					break
				}
			}
			if !same {
				continue
			}
		}
		if hm.match(strings.Join(lines[i:i+n], "\n")) {
			out = append(out, i+1)
			if len(out) == 2 {
				break
			}
		}
	}
	return out
}

// blockAt reports whether block matches lines starting at index i (0-based),
// comparing whitespace-normalised lines.
func blockAt(lines, block []string, i int) bool {
	if i < 0 || i+len(block) > len(lines) {
		return false
	}
	for j, b := range block {
		if normLine(lines[i+j]) != normLine(b) {
			return false
		}
	}
	return true
}

func anchorsAt(lines []string, a Anchors, start, end int) bool {
	if a.IsZero() {
		return false
	}
	ok := true
	if len(a.Before) > 0 {
		ok = ok && blockAt(lines, a.Before, start-1-len(a.Before))
	}
	if len(a.After) > 0 {
		ok = ok && blockAt(lines, a.After, end)
	}
	return ok
}

// occurrences returns the 0-based indexes where block occurs. A block made
// only of blank lines is too weak to anchor anything.
func occurrences(lines, block []string) []int {
	if len(block) == 0 {
		return nil
	}
	blank := true
	for _, b := range block {
		if normLine(b) != "" {
			blank = false
		}
	}
	if blank {
		return nil
	}
	var out []int
	for i := 0; i+len(block) <= len(lines); i++ {
		if blockAt(lines, block, i) {
			out = append(out, i)
		}
	}
	return out
}

// byAnchors finds the range between the anchor blocks. With both blocks a
// unique pair enclosing a non-empty range of plausible length wins; with one
// usable block the slice keeps its length.
func byAnchors(lines []string, a Anchors, n int) (int, int, bool) {
	before := occurrences(lines, a.Before)
	after := occurrences(lines, a.After)
	if len(before) > 0 && len(after) > 0 {
		switch pairs := enclosed(before, after, len(a.Before), n); len(pairs) {
		case 0:
		case 1:
			return pairs[0][0], pairs[0][1], true
		default:
			return 0, 0, false
		}
	}
	if len(before) == 1 {
		st := before[0] + len(a.Before) + 1
		if en := st + n - 1; en <= len(lines) {
			return st, en, true
		}
	}
	if len(after) == 1 {
		en := after[0]
		if st := en - n + 1; st >= 1 {
			return st, en, true
		}
	}
	return 0, 0, false
}

// byContext finds the range enclosed by an unsided list of context lines
// (Manual Slop's anchor_lines): every split of the list into a non-empty
// block before and a non-empty block after is tried, and the range is
// accepted only when the splits that enclose a range agree on one.
func byContext(lines, ctx []string, n int) (int, int, bool) {
	found := map[[2]int]bool{}
	for i := 1; i < len(ctx); i++ {
		if pairs := enclosed(occurrences(lines, ctx[:i]), occurrences(lines, ctx[i:]), i, n); len(pairs) == 1 {
			found[pairs[0]] = true
		}
	}
	if len(found) != 1 {
		return 0, 0, false
	}
	for r := range found {
		return r[0], r[1], true
	}
	return 0, 0, false
}

// enclosed returns the ranges (1-based, inclusive) between an occurrence
// of a before block of beforeLen lines and one of an after block (their
// 0-based indexes, from [occurrences]) that are non-empty and of
// plausible length for a slice of n lines: at most max(2n, n+20) lines.
// The anchors place the slice when there is one.
func enclosed(before, after []int, beforeLen, n int) [][2]int {
	maxLen := max(2*n, n+20)
	var pairs [][2]int
	for _, b := range before {
		st := b + beforeLen + 1 // 1-based first line after the block
		for _, q := range after {
			en := q // 1-based line just before the after block
			if en >= st && en-st+1 <= maxLen {
				pairs = append(pairs, [2]int{st, en})
			}
		}
	}
	return pairs
}

// matched counts the non-blank digests of b that pair with one of a.
func matched(a, b []string) int {
	ca := map[string]int{}
	for _, d := range a {
		if d != "-" {
			ca[d]++
		}
	}
	n := 0
	for _, d := range b {
		if d != "-" && ca[d] > 0 {
			ca[d]--
			n++
		}
	}
	return n
}

// dice is the Dice coefficient of the multisets of non-blank digests.
func dice(a, b []string) float64 {
	ca := map[string]int{}
	na, nb := 0, 0
	for _, d := range a {
		if d != "-" {
			ca[d]++
			na++
		}
	}
	inter := 0
	for _, d := range b {
		if d == "-" {
			continue
		}
		nb++
		if ca[d] > 0 {
			ca[d]--
			inter++
		}
	}
	if na+nb == 0 {
		return 0
	}
	return 2 * float64(inter) / float64(na+nb)
}

// fuzzySearch slides a window of len(fp) lines over digests, scoring each by
// dice, then refines the best window's ends. It succeeds when the best score
// reaches fuzzyThreshold and leads the best window that does not overlap it
// by fuzzyMargin.
func fuzzySearch(digests, fp []string) (int, int, float64, bool) {
	n := len(fp)
	if n == 0 || len(digests) == 0 {
		return 0, 0, 0, false
	}
	want := map[string]int{}
	nfp := 0
	for _, d := range fp {
		if d != "-" {
			want[d]++
			nfp++
		}
	}
	if nfp == 0 {
		return 0, 0, 0, false
	}
	w := min(n, len(digests))
	have := map[string]int{}
	inter, nw := 0, 0
	add := func(d string, sign int) {
		if d == "-" {
			return
		}
		if sign > 0 {
			if have[d] < want[d] {
				inter++
			}
			have[d]++
			nw++
		} else {
			have[d]--
			if have[d] < want[d] {
				inter--
			}
			nw--
		}
	}
	scores := make([]float64, len(digests)-w+1)
	for i := 0; i < len(digests); i++ {
		add(digests[i], 1)
		if i >= w {
			add(digests[i-w], -1)
		}
		if i >= w-1 {
			scores[i-w+1] = 2 * float64(inter) / float64(nfp+nw)
		}
	}
	best := 0
	for i, sc := range scores {
		if sc > scores[best] {
			best = i
		}
	}
	runner := 0.0
	for i, sc := range scores {
		if (i+w <= best || i >= best+w) && sc > runner {
			runner = sc
		}
	}
	if scores[best] < fuzzyThreshold || scores[best]-runner < fuzzyMargin {
		return 0, 0, 0, false
	}
	st, en, sc := refine(digests, fp, best, best+w-1, 0, len(digests)-1)
	return st + 1, en + 1, sc, true
}

// refine moves each end of the 0-based range [st, en] by up to fuzzyRefine
// lines, within [lo, hi], to match as many fingerprint lines as possible,
// preferring the length closest to the fingerprint's (so an edited line at
// an end is kept, while unrelated lines next to the slice are dropped), then
// drops blank lines pulled in at the ends. It returns the dice score.
func refine(digests, fp []string, st, en, lo, hi int) (int, int, float64) {
	n := len(fp)
	bs, be := st, en
	bi := matched(fp, digests[st:en+1])
	for ds := -fuzzyRefine; ds <= fuzzyRefine; ds++ {
		for de := -fuzzyRefine; de <= fuzzyRefine; de++ {
			s, e := st+ds, en+de
			if s < lo || e > hi || e < s {
				continue
			}
			in := matched(fp, digests[s:e+1])
			if in > bi || (in == bi && abs((e-s+1)-n) < abs((be-bs+1)-n)) {
				bs, be, bi = s, e, in
			}
		}
	}
	for bs < be && digests[bs] == "-" && fp[0] != "-" {
		bs++
	}
	for be > bs && digests[be] == "-" && fp[n-1] != "-" {
		be--
	}
	return bs, be, dice(fp, digests[bs:be+1])
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// NewFromFile reads file through ctx's bounded reader (a regular text
// file of at most limit bytes; `ctx slice add` passes the pipeline's,
// aggregate.DefaultMaxFileBytes) and pins lines start..end of it as [New]
// does. Errors name the file as given.
func NewFromFile(file string, limit int64, start, end int, tag, comment string) (Slice, error) {
	src, _, err := fileio.Read(file, limit)
	if err != nil {
		return Slice{}, fmt.Errorf("%s: %s", file, fileio.Describe(err))
	}
	if fileio.IsBinary(src) {
		return Slice{}, fmt.Errorf("%s: binary file", file)
	}
	s, err := New(src, start, end, tag, comment)
	if err != nil {
		return Slice{}, fmt.Errorf("%s: %v", file, err)
	}
	return s, nil
}
