package poolbench

import "github.com/kvcheck/kvcheck/model"

var _ model.StateEncoder[State] = (*Pool)(nil)

// AppendState packs the configured part of s for the checker's queue: the
// small fields (owners, statuses, queued requests, queue lengths; all
// below 16) two to a byte, then the held counts, the free counter and,
// with Bug, the stale sizes as bytes. The default configuration takes 14
// bytes where State takes 51.
func (p *Pool) AppendState(dst []byte, s *State) []byte {
	slots, reqs := Ranks*p.cfg.Requests, p.cfg.Requests
	var nib nibbles
	nib.dst = dst
	for _, o := range s.Owner[:p.cfg.Blocks] {
		nib.put(o)
	}
	for _, st := range s.Status[:slots] {
		nib.put(st)
	}
	for r := range Ranks {
		for _, q := range s.Queue[r*MaxRequests:][:reqs] {
			nib.put(q)
		}
		nib.put(s.Len[r])
	}
	dst = nib.flush()
	dst = append(dst, s.Held[:slots]...)
	dst = append(dst, s.Free)
	if p.cfg.Bug {
		for r := range Ranks {
			dst = append(dst, s.Stale[r*MaxRequests:][:reqs]...)
		}
	}
	return dst
}

// DecodeState sets *s from what AppendState wrote.
func (p *Pool) DecodeState(src []byte, s *State) {
	*s = State{}
	slots, reqs := Ranks*p.cfg.Requests, p.cfg.Requests
	nib := nibbles{dst: src}
	for i := range s.Owner[:p.cfg.Blocks] {
		s.Owner[i] = nib.get()
	}
	for i := range s.Status[:slots] {
		s.Status[i] = nib.get()
	}
	for r := range Ranks {
		for i := range reqs {
			s.Queue[r*MaxRequests+i] = nib.get()
		}
		s.Len[r] = nib.get()
	}
	rest := src[(nib.n+1)/2:]
	copy(s.Held[:slots], rest)
	s.Free = rest[slots]
	if p.cfg.Bug {
		rest = rest[slots+1:]
		for r := range Ranks {
			copy(s.Stale[r*MaxRequests:][:reqs], rest[r*reqs:])
		}
	}
}

// nibbles writes or reads 4-bit values, two to a byte, low half first.
type nibbles struct {
	dst []byte
	cur byte
	n   int // nibbles written or read
}

func (w *nibbles) put(v uint8) {
	if w.n%2 == 0 {
		w.cur = v
	} else {
		w.dst = append(w.dst, w.cur|v<<4)
	}
	w.n++
}

func (w *nibbles) flush() []byte {
	if w.n%2 == 1 {
		w.dst = append(w.dst, w.cur)
	}
	return w.dst
}

func (w *nibbles) get() uint8 {
	b := w.dst[w.n/2]
	if w.n%2 == 1 {
		b >>= 4
	}
	w.n++
	return b & 0xf
}
