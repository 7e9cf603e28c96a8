package poolbench

import (
	"encoding/binary"

	"github.com/kvcheck/kvcheck/model"
)

var _ model.StateEncoder[State] = (*Pool)(nil)

// AppendState packs the configured part of s for the checker's queue: the
// small fields (owners, statuses, queued requests, queue lengths; all
// below 16) two to a byte, low half first, eight at a time from whole
// words of State (packNibbles), then the held counts, the free counter
// and, with Bug, the stale sizes as bytes. Only the bytes the
// configuration can make non-zero are kept: the default configuration
// takes 16 bytes where State takes 51.
func (p *Pool) AppendState(dst []byte, s *State) []byte {
	le := binary.LittleEndian
	var b [4 + 4 + 4 + 4 + 1 + MaxSlots + 1 + 8]byte
	le.PutUint32(b[0:], packNibbles(le.Uint64(s.Owner[0:8])))
	le.PutUint32(b[4:], packNibbles(le.Uint64(s.Owner[8:16])))
	n := p.ownerBytes
	le.PutUint32(b[n:], packNibbles(le.Uint64(s.Status[:])))
	n += p.slotBytes
	le.PutUint32(b[n:], packNibbles(le.Uint64(s.Queue[:])))
	b[n+4] = s.Len[0] | s.Len[1]<<4
	n += 5
	le.PutUint64(b[n:], le.Uint64(s.Held[:]))
	n += p.slots
	b[n] = s.Free
	n++
	if p.cfg.Bug {
		n += copy(b[n:], s.Stale[:])
	}
	return append(dst, b[:n]...)
}

// packNibbles packs the low halves of the eight bytes of x into 32 bits,
// byte 0's first (lowest).
func packNibbles(x uint64) uint32 {
	x &= 0x0f0f0f0f0f0f0f0f
	x = (x | x>>4) & 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	x = (x | x>>16) & 0x00000000ffffffff
	return uint32(x)
}

// unpackNibbles is the inverse of packNibbles: eight bytes below 16.
func unpackNibbles(w uint32) uint64 {
	x := uint64(w)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	return x
}

// upTo4 reads the first k <= 4 bytes of b as a little-endian number.
func upTo4(b []byte, k int) uint32 {
	if k == 4 {
		return binary.LittleEndian.Uint32(b)
	}
	var w uint32
	for i := range k {
		w |= uint32(b[i]) << (8 * i)
	}
	return w
}

// DecodeState sets *s from what AppendState wrote.
func (p *Pool) DecodeState(src []byte, s *State) {
	le := binary.LittleEndian
	*s = State{}
	o := p.ownerBytes
	le.PutUint64(s.Owner[0:8], unpackNibbles(upTo4(src, min(o, 4))))
	if o > 4 {
		le.PutUint64(s.Owner[8:16], unpackNibbles(upTo4(src[4:], o-4)))
	}
	src = src[o:]
	le.PutUint64(s.Status[:], unpackNibbles(upTo4(src, p.slotBytes)))
	src = src[p.slotBytes:]
	le.PutUint64(s.Queue[:], unpackNibbles(le.Uint32(src)))
	s.Len[0], s.Len[1] = src[4]&0xf, src[4]>>4
	src = src[5:]
	copy(s.Held[:p.slots], src)
	s.Free = src[p.slots]
	if p.cfg.Bug {
		copy(s.Stale[:], src[p.slots+1:])
	}
}
