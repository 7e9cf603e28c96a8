package model

import (
	"reflect"
	"unsafe"
)

// PureLocalSteps is implemented by LocalSteps specs whose rank-local steps
// are functions of the head, their own part and the action alone: such a
// step reads no other part and has no effect outside its successor. The
// search then memoizes them (stepMemo): a multi-rank search meets the same
// rank, under the same head, beside many combinations of the other ranks,
// so that on adp-dummy-leak at 3 ranks x 5 requests 97 % of the local
// steps repeat one a 1,024-slot memo holds. A wrong claim gives a
// successor that the spec would not, so the spec's tests must check it on
// reachable states (spec's TestLocalStepsReadTheirRankOnly).
// MemoizeLocalSteps reports whether the claim holds now (the KV-cache spec:
// not while it records coverage, an effect of each step).
type PureLocalSteps interface {
	MemoizeLocalSteps() bool
}

// stepMemoBits sets a worker's stepMemo to 2^10 slots, about 850 kB for
// the KV-cache spec's states (a head and a part a slot): on 3x5 they hold
// 97.6 % of the local steps, 2^12 slots 99.3 %, for four times the memory,
// which small searches would see in their bytes per state.
const stepMemoBits = 10

// stepMemo is a worker's direct-mapped cache of rank-local steps: slot i
// holds, for the step of action acts[i] from a state whose head and part
// parts[i] have hashes inHead[i] and inPart[i], the head and part it
// produces, their hashes, and which of the two changed. A hit is exact up
// to the 64-bit segment hashes, which the fingerprint takes for the
// segments already: the action's bytes are compared (an action holds no
// pointer), and the key carries the search's salt, so a memo that
// outlives its search (reuse.go) never answers for another configuration.
type stepMemo struct {
	head, part, actSize int // bytes of the head, of a part, of an action
	keys                []uint64
	inHead, inPart      []uint64
	parts               []uint8
	acts                []byte
	outHead, outPart    []byte
	outHeadHash         []uint64
	outPartHash         []uint64
	changed             []uint8 // bit 0: the head changed; bit 1: the part
}

func newStepMemo(head, part, actSize int) *stepMemo {
	n := 1 << stepMemoBits
	return &stepMemo{
		head: head, part: part, actSize: actSize,
		keys:        make([]uint64, n),
		inHead:      make([]uint64, n),
		inPart:      make([]uint64, n),
		parts:       make([]uint8, n),
		acts:        make([]byte, n*actSize),
		outHead:     make([]byte, n*head),
		outPart:     make([]byte, n*part),
		outHeadHash: make([]uint64, n),
		outPartHash: make([]uint64, n),
		changed:     make([]uint8, n),
	}
}

// stepKey is the memo key of the step of the action with bytes act from
// a head and part r with hashes head and part; never 0, the empty slot.
func stepKey(salt, head, part uint64, r int, act []byte) uint64 {
	x := foldMul(head^salt^0x9e3779b97f4a7c15, part^uint64(r+1)*0x165667b19e3779f9)
	return foldMul(x^hashState(act), 0xd6e8feb86659fd93) | 1
}

// memoizable reports whether s may and should memoize the spec's local
// steps: a Partitioned spec with LocalSteps that claims them pure, with
// actions free of pointers, and two to 256 parts. With one part the head
// and the part are the whole state, which a search expands once, so no
// step would repeat.
func memoizable[S, A any](s *search[S, A], spec Spec[S, A]) bool {
	p, ok := unwrap(spec).(PureLocalSteps)
	if parts := s.codec.segs.count() - 1; !ok || s.local == nil || !p.MemoizeLocalSteps() || parts < 2 || parts > 256 {
		return false
	}
	return pointerPath(reflect.TypeFor[A](), "A") == ""
}

// stepMemoOf returns w's memo of local steps, made for s's layout.
func (s *search[S, A]) stepMemoOf(w *worker[S, A]) *stepMemo {
	b := s.codec.segs.bounds
	head, part := b[1], b[2]-b[1]
	var a A
	if m := w.steps; m != nil && m.head == head && m.part == part && m.actSize == int(unsafe.Sizeof(a)) {
		return m
	}
	w.steps = newStepMemo(head, part, int(unsafe.Sizeof(a)))
	return w.steps
}

// memoStep sets w.successors[k] to the successor of st through the local
// action w.actions[k] of part r, with its segment hashes in h and its
// changed segments in w.changed[k], from w's memo, and reports true; or,
// when the memo does not hold the step, does nothing and returns the key
// rememberStep stores it under.
func (s *search[S, A]) memoStep(w *worker[S, A], st *S, k, r int, h []uint64) (key uint64, hit bool) {
	m := s.stepMemoOf(w)
	act := unsafe.Slice((*byte)(unsafe.Pointer(&w.actions[k])), m.actSize)
	h0, hr := w.cur.hashes[0], w.cur.hashes[1+r]
	key = stepKey(s.salt, h0, hr, r, act)
	i := int(key >> (64 - stepMemoBits))
	if m.keys[i] != key || m.inHead[i] != h0 || m.inPart[i] != hr || int(m.parts[i]) != r ||
		string(m.acts[i*m.actSize:(i+1)*m.actSize]) != string(act) {
		return key, false
	}
	b := s.codec.segs.bounds
	next := unsafe.Slice((*byte)(unsafe.Pointer(&w.successors[k])), b[len(b)-1])
	from := unsafe.Slice((*byte)(unsafe.Pointer(st)), b[len(b)-1])
	lo, hi := b[1+r], b[2+r]
	copy(next[:m.head], m.outHead[i*m.head:(i+1)*m.head])
	copy(next[m.head:lo], from[m.head:lo])
	copy(next[lo:hi], m.outPart[i*m.part:(i+1)*m.part])
	copy(next[hi:], from[hi:])
	copy(h, w.cur.hashes)
	h[0], h[1+r] = m.outHeadHash[i], m.outPartHash[i]
	var changed uint64
	if m.changed[i]&1 != 0 {
		changed |= 1
	}
	if m.changed[i]&2 != 0 {
		changed |= 1 << (1 + r)
	}
	w.changed[k] = changed
	return key, true
}

// rememberStep stores in w's memo, under key (memoStep's), the step just
// computed into w.successors[k] from the frontier state through the local
// action w.actions[k] of part r, whose segment hashes are h and changed
// segments changed.
func (s *search[S, A]) rememberStep(w *worker[S, A], key uint64, k, r int, h []uint64, changed uint64) {
	m := w.steps
	act := unsafe.Slice((*byte)(unsafe.Pointer(&w.actions[k])), m.actSize)
	h0, hr := w.cur.hashes[0], w.cur.hashes[1+r]
	i := int(key >> (64 - stepMemoBits))
	b := s.codec.segs.bounds
	next := unsafe.Slice((*byte)(unsafe.Pointer(&w.successors[k])), b[len(b)-1])
	m.keys[i], m.inHead[i], m.inPart[i], m.parts[i] = key, h0, hr, uint8(r)
	copy(m.acts[i*m.actSize:(i+1)*m.actSize], act)
	copy(m.outHead[i*m.head:(i+1)*m.head], next[:m.head])
	copy(m.outPart[i*m.part:(i+1)*m.part], next[b[1+r]:b[2+r]])
	m.outHeadHash[i], m.outPartHash[i] = h[0], h[1+r]
	m.changed[i] = uint8(changed&1) | uint8(changed>>(1+r)&1)<<1
}
