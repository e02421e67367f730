package bpe

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// The vocabularies, as hash tables ready to use: loading one reads its
// header, and a lookup reads the pages it touches straight from the
// binary, so that a process neither decodes nor builds anything (nor
// holds a copy on its heap). buildVocab writes them from the vocabularies
// that github.com/tiktoken-go/tokenizer compiles in, through
// TestVocabularyIsUpstream, which also checks them against it:
//
//go:generate env CTX_UPDATE=1 go test -run=^TestVocabularyIsUpstream$ -count=1 .
var (
	//go:embed o200k_base.vocab
	o200kVocab string
	//go:embed cl100k_base.vocab
	cl100kVocab string
)

// A vocabulary file is vocabMagic, then as uvarints the number of tokens,
// of slots and of bytes of data, then the slots (8 bytes each, little
// endian), then the data: the bytes of the tokens one after the other, in
// the order of their ids.
const vocabMagic = "ctx bpe vocabulary 1\n"

const noRank = math.MaxUint32

// A slot of the hash table is 0 when empty, else a token: from the high
// bits down, tagBits bits of its hash (which rule out most other tokens of
// the same slot without reading their bytes), its rank, where its bytes
// start in the data and their length. The table is open-addressed with
// linear probing from the slot of the hash's low bits, at most half full,
// so that a miss (most pairs tried in merging are not tokens) ends at an
// empty slot soon. A lookup reads one slot and the bytes of the token it
// finds there.
const (
	tagBits   = 14
	rankBits  = 18
	offBits   = 24
	lenBits   = 8
	rankMask  = 1<<rankBits - 1
	maxToken  = 1<<lenBits - 1 // bytes
	maxData   = 1<<offBits - 1 // bytes of all the tokens
	rankShift = offBits + lenBits
	tagShift  = rankShift + rankBits
)

// vocab maps a token's bytes to its rank (its id). It is read-only.
type vocab struct {
	slots string // the table: 8 bytes a slot
	mask  uint64 // the number of slots - 1
	data  string // the tokens' bytes
}

// parseVocab reads the header of a vocabulary file of size tokens.
func parseVocab(file string, size int) (*vocab, error) {
	if len(file) < len(vocabMagic) || file[:len(vocabMagic)] != vocabMagic {
		return nil, errors.New("not a vocabulary file")
	}
	rest := file[len(vocabMagic):]
	var header [3]uint64
	for i := range header {
		n, k := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
		if k <= 0 {
			return nil, errors.New("truncated header")
		}
		header[i], rest = n, rest[k:]
	}
	tokens, slots, data := header[0], header[1], header[2]
	switch {
	case tokens != uint64(size) || size > rankMask:
		return nil, fmt.Errorf("%d tokens, want %d", tokens, size)
	case slots < 2*tokens || slots&(slots-1) != 0 || slots > 1<<32:
		return nil, fmt.Errorf("%d slots for %d tokens", slots, tokens)
	case data > maxData || uint64(len(rest)) != 8*slots+data:
		return nil, fmt.Errorf("%d bytes after the header, want %d", len(rest), 8*slots+data)
	}
	return &vocab{slots: rest[:8*slots], mask: slots - 1, data: rest[8*slots:]}, nil
}

// buildVocab returns the vocabulary file of tokens, in the order of their
// ids (for TestVocabularyIsUpstream, which writes and checks the files),
// and the longest run of probes a lookup of one of them makes.
func buildVocab(tokens []string) (file []byte, maxProbes int, err error) {
	if len(tokens) > rankMask {
		return nil, 0, fmt.Errorf("%d tokens, at most %d", len(tokens), rankMask)
	}
	slots := make([]uint64, 1<<bits.Len(uint(2*len(tokens))))
	mask := uint64(len(slots) - 1)
	var data []byte
	for r, tok := range tokens {
		if len(tok) == 0 || len(tok) > maxToken || len(data)+len(tok) > maxData {
			return nil, 0, fmt.Errorf("token %d: %d bytes, after %d", r, len(tok), len(data))
		}
		h := hash(tok)
		i, probes := h&mask, 1
		for ; slots[i] != 0; i, probes = (i+1)&mask, probes+1 {
			e := slots[i]
			if other := int(e >> rankShift & rankMask); tokens[other] == tok {
				return nil, 0, fmt.Errorf("token %d (%q) is also token %d", r, tok, other)
			}
		}
		maxProbes = max(maxProbes, probes)
		slots[i] = h>>tagShift<<tagShift | uint64(r)<<rankShift | uint64(len(data))<<lenBits | uint64(len(tok))
		data = append(data, tok...)
	}
	file = []byte(vocabMagic)
	for _, n := range []int{len(tokens), len(slots), len(data)} {
		file = binary.AppendUvarint(file, uint64(n))
	}
	for _, e := range slots {
		file = binary.LittleEndian.AppendUint64(file, e)
	}
	return append(file, data...), maxProbes, nil
}

// rank returns the rank of the token s, or noRank if s is not a token.
func (v *vocab) rank(s string) uint32 {
	if len(s) > maxToken {
		return noRank
	}
	h := hash(s)
	tag := h >> tagShift
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		e := le64(v.slots[8*i:])
		if e == 0 {
			return noRank
		}
		if e>>tagShift != tag || int(e&maxToken) != len(s) {
			continue
		}
		off := int(e >> lenBits & maxData)
		tok := v.data[off : off+len(s)]
		if len(s) <= 8 && pack(tok) == pack(s) || len(s) > 8 && tok == s { // pack: inlined, no call of memequal
			return uint32(e >> rankShift & rankMask)
		}
	}
}

// hash is the hash of the tables (fixed: they are built in advance): for
// the short strings that most lookups are, one multiplication, inlined;
// for longer ones, one for every 8 bytes.
func hash(s string) uint64 {
	if len(s) <= 8 {
		return mix(pack(s)^hashKey0, uint64(len(s))^hashKey1)
	}
	h := uint64(len(s)) ^ hashKey1
	for t := s; len(t) > 8; t = t[8:] {
		h = mix(le64(t)^hashKey0, h^hashKey2)
	}
	return mix(le64(s[len(s)-8:])^hashKey0, h^hashKey1)
}

// The keys of hash: odd constants with bits spread (wyhash's).
const (
	hashKey0 = 0xa0761d6478bd642f
	hashKey1 = 0xe7037ed1a0b428db
	hashKey2 = 0x8ebc6af09c88c6e3
)

// mix multiplies a and b into 128 bits and folds them.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// pack returns the bytes of s, of at most 8 bytes, as a number that no
// other string of the same length has.
func pack(s string) uint64 {
	switch {
	case len(s) >= 4: // the first four bytes and the last four
		return uint64(le32(s)) | uint64(le32(s[len(s)-4:]))<<32
	case len(s) > 0: // the first, middle and last
		return uint64(s[0]) | uint64(s[len(s)>>1])<<8 | uint64(s[len(s)-1])<<16
	}
	return 0
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
