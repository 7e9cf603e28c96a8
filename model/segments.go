package model

import (
	"encoding/binary"
	"unsafe"
)

// Partitioned is implemented by ByteStates specs whose state bytes are a
// head followed by count parts of size bytes each (head+count*size is
// StateSize), such that a step usually changes few of them: the KV-cache
// spec's shared records, then one part per rank, of which a rank's own
// step changes one. The checker then works part by part (see segments):
// a successor's unchanged parts are neither hashed nor encoded again, a
// frontier state's parts that equal the previous frontier state's are not
// decoded again, and an invariant's Part, when it has one, is evaluated
// once per distinct (head, part) rather than once per state. It is
// optional; with more than maxSegments-1 parts the state is one segment.
type Partitioned interface {
	Parts() (head, size, count int)
}

// LocalSteps is implemented by Partitioned specs that can tell from an
// action alone that its step changes nothing outside the head and one
// part (the KV-cache spec: a rank-local step, Spec.Locality, changes its
// rank and at most the shared crash record). The search then compares
// only those two segments of a successor with its parent's and takes the
// parent's hashes for the others, instead of comparing every part. A
// wrong answer here merges states that differ, so the spec's tests must
// check it on reachable states (spec's TestLocalPartsStayPut); the
// search does not use it under symmetry reduction, whose canonical form
// may move parts.
type LocalSteps[A any] interface {
	LocalPart(a A) (part int, local bool)
}

// maxSegments bounds the segments of a layout (a bit mask per successor).
const maxSegments = 64

// segments is how a ByteStates spec's state bytes are split: segment j is
// bytes [bounds[j], bounds[j+1]). Without Partitioned the whole state is
// one segment; with it, segment 0 is the head and segment 1+r part r.
//
// The state's encoding is, per segment, a uvarint length and the zero-run
// encoding (zerorun.go) of its bytes, so a segment's encoding can be
// copied from the parent's, or compared with the previous state's,
// without looking at the others. A state's fingerprint combines the
// hashes of its segments (combineHashes).
type segments struct {
	bounds []int
	parts  bool // segments 1.. are the spec's parts (Invariant.Part applies)
}

// newSegments returns the layout of a ByteStates spec whose encoded
// prefix is size bytes.
func newSegments(spec any, size int) segments {
	if p, ok := spec.(Partitioned); ok {
		head, part, count := p.Parts()
		if head >= 0 && part > 0 && count > 0 && count < maxSegments && head+part*count == size {
			b := []int{0}
			for r := range count + 1 {
				b = append(b, head+r*part)
			}
			return segments{bounds: b, parts: true}
		}
	}
	return segments{bounds: []int{0, size}}
}

// count is the number of segments (0 for a spec that is not ByteStates).
func (l segments) count() int { return max(len(l.bounds)-1, 0) }

// appendSegment appends segment j of the state at p (an object of full
// bytes) to dst: its encoding's length, then the encoding.
func (l segments) appendSegment(dst []byte, p unsafe.Pointer, j int) []byte {
	lo, hi := l.bounds[j], l.bounds[j+1]
	at := len(dst)
	dst = append(dst, 0)
	dst = appendZeroRuns(dst, unsafe.Add(p, lo), hi-lo, hi-lo)
	if n := len(dst) - at - 1; n >= 0x80 {
		// Rare (a segment of many literal bytes): make room for a longer
		// length.
		var hdr [binary.MaxVarintLen64]byte
		h := binary.PutUvarint(hdr[:], uint64(n))
		dst = append(dst, hdr[:h-1]...)
		copy(dst[at+h:], dst[at+1:at+1+n])
		copy(dst[at:], hdr[:h])
	} else {
		dst[at] = byte(n)
	}
	return dst
}

// appendEncoded appends the encoding of the state at p.
func (l segments) appendEncoded(dst []byte, p unsafe.Pointer) []byte {
	for j := range l.count() {
		dst = l.appendSegment(dst, p, j)
	}
	return dst
}

// next returns the entry of the segment that starts src (length and
// encoding), its encoding and the rest of src.
func nextSegment(src []byte) (entry, enc, rest []byte) {
	if len(src) > 0 && src[0] < 0x80 && int(src[0]) < len(src) {
		end := 1 + int(src[0])
		return src[:end], src[1:end], src[end:]
	}
	n, h := binary.Uvarint(src)
	if h <= 0 || uint64(len(src)-h) < n {
		panic("model: corrupt state encoding")
	}
	end := h + int(n)
	return src[:end], src[h:end], src[end:]
}

// decode sets the state at p from its encoding.
func (l segments) decode(src []byte, p unsafe.Pointer) {
	for j := range l.count() {
		var enc []byte
		_, enc, src = nextSegment(src)
		lo, hi := l.bounds[j], l.bounds[j+1]
		decodeZeroRuns(enc, unsafe.Add(p, lo), hi-lo, hi-lo)
	}
}

// hashSegment is the hash of segment j of the state at p.
func (l segments) hashSegment(p unsafe.Pointer, j int) uint64 {
	lo, hi := l.bounds[j], l.bounds[j+1]
	return hashState(unsafe.Slice((*byte)(unsafe.Add(p, lo)), hi-lo))
}

// sameSegment reports whether segment j is the same in the states at p
// and q.
func (l segments) sameSegment(p, q unsafe.Pointer, j int) bool {
	lo, hi := l.bounds[j], l.bounds[j+1]
	return string(unsafe.Slice((*byte)(unsafe.Add(p, lo)), hi-lo)) == string(unsafe.Slice((*byte)(unsafe.Add(q, lo)), hi-lo))
}

// combineHashes is a state's fingerprint from its segments' hashes.
func combineHashes(h []uint64) uint64 {
	return hashState(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(h))), 8*len(h)))
}

// fingerprintBytes is the fingerprint of the ByteStates state at p, as
// the search computes it segment by segment.
func (l segments) fingerprint(p unsafe.Pointer) uint64 {
	var buf [maxSegments]uint64
	h := buf[:l.count()]
	for j := range h {
		h[j] = l.hashSegment(p, j)
	}
	return combineHashes(h)
}

// decoded is a worker's record of the frontier state it decoded last:
// its encoding (copied, since the queue block it came from is recycled),
// where each segment's entry ends in it, and each segment's hash.
// Decoding the next frontier state rewrites only the segments whose
// entries differ; expanding it, a successor's unchanged segments take
// these hashes and entries. The encodings of the last two states take
// turns in two buffers, so that decoding writes no pointer.
type decoded struct {
	valid  bool
	which  int       // bufs[which] holds the state's encoding
	bufs   [2][]byte // at full capacity; lens says how much is used
	lens   [2]int
	ends   [2][]int32 // segment j's entry ends at ends[which][j]
	hashes []uint64
}

// entryOf returns segment j's entry of the state decoded last or, with
// prev, of the one decoded before it (whose encoding and ends are still in
// the other buffers).
func (d *decoded) entryOf(prev bool, j int) []byte {
	which := d.which
	if prev {
		which ^= 1
	}
	ends := d.ends[which]
	lo := int32(0)
	if j > 0 {
		lo = ends[j-1]
	}
	return d.bufs[which][lo:ends[j]]
}

// decodeFrontier sets the state at p, which holds the state d describes
// when d.valid, to the state src encodes, and d to describe it; parts
// come through cache when it is not nil.
func (l segments) decodeFrontier(d *decoded, src []byte, p unsafe.Pointer, cache *partCache) {
	n := l.count()
	if len(d.hashes) != n {
		d.hashes, d.ends, d.valid = make([]uint64, n), [2][]int32{make([]int32, n), make([]int32, n)}, false
	}
	old, now := d.which, d.which^1
	if cap(d.bufs[now]) < len(src) {
		d.bufs[now] = make([]byte, 2*len(src))
	}
	buf := d.bufs[now][:len(src)]
	copy(buf, src)
	oldBuf, oldEnds, ends := d.bufs[old][:d.lens[old]], d.ends[old], d.ends[now]
	pos, oldLo := 0, int32(0)
	for j := range n {
		// The segment's entry: its length (one byte below 0x80, else a
		// uvarint), then its encoding.
		h, size := 1, 0
		if pos < len(buf) && buf[pos] < 0x80 {
			size = int(buf[pos])
		} else {
			v, k := binary.Uvarint(buf[pos:])
			h, size = k, int(v)
		}
		end := pos + h + size
		if h <= 0 || size < 0 || end > len(buf) {
			panic("model: corrupt state encoding")
		}
		ends[j] = int32(end)
		if !d.valid || string(buf[pos:end]) != string(oldBuf[oldLo:oldEnds[j]]) {
			lo, hi := l.bounds[j], l.bounds[j+1]
			enc := buf[pos+h : end]
			if j > 0 && cache != nil {
				d.hashes[j] = cache.decode(buf[pos:end], enc, unsafe.Add(p, lo))
			} else {
				decodeZeroRuns(enc, unsafe.Add(p, lo), hi-lo, hi-lo)
				d.hashes[j] = l.hashSegment(p, j)
			}
		}
		if d.valid {
			oldLo = oldEnds[j]
		}
		pos = end
	}
	if pos != len(buf) {
		panic("model: corrupt state encoding")
	}
	d.which, d.lens[now], d.valid = now, len(src), true
}

// partCache is a worker's direct-mapped caches of the parts of a
// Partitioned spec's states (the states of a multi-rank search hold few
// distinct ranks): decoding looks a part's entry up to copy its bytes and
// hash instead of decoding and hashing them, encoding looks a part's hash
// up to copy its entry instead of encoding it. A decode hit is exact (the
// entry is compared byte for byte); an encode hit takes equal hashes for
// equal parts, which the fingerprint, a hash of the parts' hashes, takes
// already.
type partCache struct {
	size int // bytes of a part
	// decode side: slot i holds an entry (decEntry[i], at most
	// maxCachedEntry bytes), the part's bytes it decodes to and their hash.
	decKey   []uint64 // entryKey of the entry, 0 for an empty slot
	decLen   []uint8
	decEntry []byte // maxCachedEntry bytes a slot
	decPart  []byte // size bytes a slot
	decHash  []uint64
	// encode side: slot i holds a part's hash and its entry (encLen 0:
	// empty; an entry is never empty).
	encKey   []uint64
	encLen   []uint8
	encEntry []byte // maxCachedEntry bytes a slot
}

const (
	decCacheBits   = 10
	encCacheBits   = 10
	maxCachedEntry = 248
)

func newPartCache(size int) *partCache {
	return &partCache{
		size:     size,
		decKey:   make([]uint64, 1<<decCacheBits),
		decLen:   make([]uint8, 1<<decCacheBits),
		decEntry: make([]byte, maxCachedEntry<<decCacheBits),
		decPart:  make([]byte, size<<decCacheBits),
		decHash:  make([]uint64, 1<<decCacheBits),
		encKey:   make([]uint64, 1<<encCacheBits),
		encLen:   make([]uint8, 1<<encCacheBits),
		encEntry: make([]byte, maxCachedEntry<<encCacheBits),
	}
}

// decode sets the part at p from its entry and returns its hash.
func (c *partCache) decode(entry, enc []byte, p unsafe.Pointer) uint64 {
	part := unsafe.Slice((*byte)(p), c.size)
	if len(entry) > maxCachedEntry {
		decodeZeroRuns(enc, p, c.size, c.size)
		return hashState(part)
	}
	key := entryKey(entry)
	i := int(key >> (64 - decCacheBits))
	at := i * maxCachedEntry
	if c.decKey[i] == key && int(c.decLen[i]) == len(entry) && string(c.decEntry[at:at+len(entry)]) == string(entry) {
		copy(part, c.decPart[i*c.size:])
		return c.decHash[i]
	}
	decodeZeroRuns(enc, p, c.size, c.size)
	h := hashState(part)
	c.decKey[i], c.decLen[i], c.decHash[i] = key, uint8(len(entry)), h
	copy(c.decEntry[at:], entry)
	copy(c.decPart[i*c.size:(i+1)*c.size], part)
	return h
}

// entryKey is a quick non-zero key of an entry for the decode cache (hits
// are confirmed byte for byte): a multiply-xor over its words, the last
// one overlapping the one before when the length is not a multiple of 8.
func entryKey(entry []byte) uint64 {
	const k = 0x9e3779b97f4a7c15
	n := len(entry)
	h := uint64(n) * 0xc2b2ae3d27d4eb4f
	if n < 8 {
		for _, c := range entry {
			h = (h ^ uint64(c)) * k
		}
		return (h ^ h>>29) | 1
	}
	p := unsafe.Pointer(unsafe.SliceData(entry))
	for i := 0; i+8 < n; i += 8 {
		h = (h ^ load64(p, i)) * k
	}
	h = (h ^ load64(p, n-8)) * k
	return (h ^ h>>29) | 1
}

// encoded returns the cached entry of the part with hash h, or nil.
func (c *partCache) encoded(h uint64) []byte {
	i := int(h >> (64 - encCacheBits))
	if c.encLen[i] == 0 || c.encKey[i] != h {
		return nil
	}
	at := i * maxCachedEntry
	return c.encEntry[at : at+int(c.encLen[i])]
}

// remember caches entry as the encoding of the part with hash h.
func (c *partCache) remember(h uint64, entry []byte) {
	if len(entry) > maxCachedEntry {
		return
	}
	i := int(h >> (64 - encCacheBits))
	c.encKey[i], c.encLen[i] = h, uint8(len(entry))
	copy(c.encEntry[i*maxCachedEntry:], entry)
}
