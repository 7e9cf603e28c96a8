// Package poolbench is a model.Spec of pool.pml (in this folder), a small
// paged KV-cache block pool shared by two data-parallel ranks, used to
// compare the checker's throughput with SPIN's.
//
// Each rank owns Requests request slots; a request allocates blocks
// first-fit, grows by one block, shrinks by its highest-index block, and is
// freed through a per-rank FIFO of deferred frees that a flush drains one
// entry at a time. The Bug variant seeds a stale-size deferred free.
package poolbench

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kvcheck/kvcheck/model"
)

// Size limits of State.
const (
	Ranks       = 2  // data-parallel ranks (NRANK)
	MaxBlocks   = 16 // largest Config.Blocks
	MaxRequests = 4  // largest Config.Requests
	MaxSlots    = Ranks * MaxRequests
)

// Config holds the model's tunables (the .pml's macros).
type Config struct {
	Blocks   int  // blocks in the pool (NBLK)
	Requests int  // request slots per rank, and capacity of its deferred-free FIFO (NREQ)
	MaxK     int  // size of the larger initial allocation (MAXK)
	MaxH     int  // largest size after growing (MAXH)
	Bug      bool // seed the stale-size deferred-free bug (BUG)
}

// DefaultConfig is the .pml's default configuration: exhaustive search finds
// 864,517 states and 4,571,848 transitions.
var DefaultConfig = Config{Blocks: 7, Requests: 2, MaxK: 2, MaxH: 3}

// Request status values (State.Status).
const (
	Idle    = 0
	Active  = 1
	Freeing = 2 // queued on its rank's deferred-free FIFO
)

// State is the pool's global state. Request slot q = rank*Requests + j.
// Entries past the configured sizes stay zero.
type State struct {
	Owner  [MaxBlocks]uint8 // 0 = free, else owning slot + 1
	Held   [MaxSlots]uint8  // blocks held by each slot
	Status [MaxSlots]uint8  // Idle, Active or Freeing
	// Queue holds each rank's deferred frees in FIFO order: rank r's
	// entries are Queue[r*MaxRequests:][:Len[r]], unused entries zero.
	Queue [Ranks * MaxRequests]uint8
	Stale [Ranks * MaxRequests]uint8 // Bug: the size captured with each queued free
	Len   [Ranks]uint8
	Free  uint8 // free-block counter (nfree)
}

// Kind is the kind of an Action.
type Kind uint8

// Action kinds, in the order the .pml lists them.
const (
	Allocate Kind = iota // take Blocks free blocks first-fit (Idle -> Active)
	Grow                 // take one more free block
	Shrink               // give back the highest-index block
	Free                 // queue a deferred free (Active -> Freeing)
	Flush                // drain one deferred free of Rank
)

// Action is one atomic step of a rank.
type Action struct {
	Kind    Kind
	Request uint8 // slot q; unused by Flush
	Rank    uint8 // Flush only
	Blocks  uint8 // Allocate only: 1 or MaxK
}

// Pool is the spec for one Config. It implements model.Spec[State, Action].
type Pool struct {
	cfg        Config
	invariants []model.Invariant[State]
	goals      []model.Goal[State]
	// slots is the configured request slots; ownerBytes and slotBytes the
	// packed bytes of the owners and of the statuses (encode.go).
	slots, ownerBytes, slotBytes int
}

var _ model.Spec[State, Action] = (*Pool)(nil)

// New returns the spec of cfg, or an error if cfg is outside State's limits.
func New(cfg Config) (*Pool, error) {
	if cfg.Blocks < 1 || cfg.Blocks > MaxBlocks {
		return nil, fmt.Errorf("poolbench: Blocks = %d, want 1..%d", cfg.Blocks, MaxBlocks)
	}
	if cfg.Requests < 1 || cfg.Requests > MaxRequests {
		return nil, fmt.Errorf("poolbench: Requests = %d, want 1..%d", cfg.Requests, MaxRequests)
	}
	if cfg.MaxK < 1 || cfg.MaxK > cfg.Blocks {
		return nil, fmt.Errorf("poolbench: MaxK = %d, want 1..Blocks", cfg.MaxK)
	}
	if cfg.MaxH < 1 || cfg.MaxH > 255 {
		return nil, errors.New("poolbench: MaxH must be in 1..255")
	}
	slots := Ranks * cfg.Requests
	p := &Pool{cfg: cfg, slots: slots, ownerBytes: (cfg.Blocks + 1) / 2, slotBytes: (slots + 1) / 2}
	p.invariants = []model.Invariant[State]{
		{Name: "conservation", Doc: "I1: free blocks plus held blocks equal the pool size", Check: p.checkConservation},
		{Name: "owner-table", Doc: "I2: each request owns as many blocks in the table as it holds", Check: p.checkOwnerTable},
	}
	p.goals = []model.Goal[State]{
		{Name: "pool-exhausted", Doc: "every block is held at once", Reached: func(s *State) bool { return s.Free == 0 }},
		{Name: "request-at-max", Doc: "some request holds MaxH blocks", Reached: p.someAtMax},
		{Name: "queue-full", Doc: "some rank's deferred-free FIFO is full", Reached: p.someQueueFull},
	}
	return p, nil
}

// Config returns the pool's configuration.
func (p *Pool) Config() Config { return p.cfg }

// Initial returns the empty pool: all blocks free, all slots idle.
func (p *Pool) Initial() State { return State{Free: uint8(p.cfg.Blocks)} }

// Actions appends the enabled actions of s in the .pml's option order: for
// each rank, each slot's allocate(1), allocate(MaxK), grow, shrink, free,
// then the rank's flush.
func (p *Pool) Actions(s *State, out []Action) []Action {
	for r := range Ranks {
		for j := range p.cfg.Requests {
			q := uint8(r*p.cfg.Requests + j)
			st, held := s.Status[q], int(s.Held[q])
			if st == Idle && s.Free >= 1 {
				out = append(out, Action{Kind: Allocate, Request: q, Blocks: 1})
			}
			if st == Idle && int(s.Free) >= p.cfg.MaxK {
				out = append(out, Action{Kind: Allocate, Request: q, Blocks: uint8(p.cfg.MaxK)})
			}
			if p.growable(st) && s.Free >= 1 && held < p.cfg.MaxH {
				out = append(out, Action{Kind: Grow, Request: q})
			}
			if st == Active && held > 1 {
				out = append(out, Action{Kind: Shrink, Request: q})
			}
			if st == Active && int(s.Len[r]) < p.cfg.Requests {
				out = append(out, Action{Kind: Free, Request: q})
			}
		}
		if s.Len[r] > 0 {
			out = append(out, Action{Kind: Flush, Rank: uint8(r)})
		}
	}
	return out
}

// growable reports whether a request with status st may grow; the seeded
// bug lets a Freeing request grow too.
func (p *Pool) growable(st uint8) bool {
	if p.cfg.Bug {
		return st != Idle
	}
	return st == Active
}

// Next returns the state after a.
func (p *Pool) Next(s *State, a Action) State {
	var n State
	p.NextInto(&n, s, a)
	return n
}

var _ model.NextWriter[State, Action] = (*Pool)(nil)

// NextInto sets *dst to Next(s, a), in place (model.NextWriter).
func (p *Pool) NextInto(dst *State, s *State, a Action) {
	*dst = *s
	n := dst
	q := a.Request
	switch a.Kind {
	case Allocate:
		p.take(n, q, a.Blocks)
		n.Status[q] = Active
	case Grow:
		p.take(n, q, 1)
	case Shrink:
		for i := p.cfg.Blocks - 1; i >= 0; i-- {
			if n.Owner[i] == q+1 {
				n.Owner[i] = 0
				break
			}
		}
		n.Held[q]--
		n.Free++
	case Free:
		r := int(q) / p.cfg.Requests
		tail := r*MaxRequests + int(n.Len[r])
		n.Queue[tail] = q
		if p.cfg.Bug {
			n.Stale[tail] = n.Held[q]
		}
		n.Len[r]++
		n.Status[q] = Freeing
	case Flush:
		head := int(a.Rank) * MaxRequests
		x, size := n.Queue[head], n.Stale[head]
		last := head + int(n.Len[a.Rank]) - 1
		copy(n.Queue[head:last], n.Queue[head+1:last+1])
		copy(n.Stale[head:last], n.Stale[head+1:last+1])
		n.Queue[last], n.Stale[last] = 0, 0
		n.Len[a.Rank]--
		for i := range p.cfg.Blocks {
			if n.Owner[i] == x+1 {
				n.Owner[i] = 0
			}
		}
		if !p.cfg.Bug {
			size = n.Held[x]
		}
		n.Free += size
		n.Held[x] = 0
		n.Status[x] = Idle
	}
}

// take gives k free blocks to slot q, first-fit (the caller checked Free).
func (p *Pool) take(s *State, q, k uint8) {
	c := uint8(0)
	for i := 0; c < k && i < p.cfg.Blocks; i++ {
		if s.Owner[i] == 0 {
			s.Owner[i] = q + 1
			c++
		}
	}
	s.Held[q] += k
	s.Free -= k
}

// Fingerprint hashes the state's bytes as seven 64-bit words. Each word goes
// through a bijective mix, so states that differ in one word never collide.
func (p *Pool) Fingerprint(s *State) uint64 {
	le := binary.LittleEndian
	h := uint64(0x243f6a8885a308d3)
	h = mixWord(h, le.Uint64(s.Owner[0:8]))
	h = mixWord(h, le.Uint64(s.Owner[8:16]))
	h = mixWord(h, le.Uint64(s.Held[:]))
	h = mixWord(h, le.Uint64(s.Status[:]))
	h = mixWord(h, le.Uint64(s.Queue[:]))
	h = mixWord(h, le.Uint64(s.Stale[:]))
	h = mixWord(h, uint64(s.Len[0])|uint64(s.Len[1])<<8|uint64(s.Free)<<16)
	// fmix64 finaliser (MurmurHash3).
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// mixWord folds w into h; for a fixed w it is a bijection of h.
func mixWord(h, w uint64) uint64 {
	h = (h ^ w) * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

// Invariants returns I1 (conservation) and I2 (owner-table).
func (p *Pool) Invariants() []model.Invariant[State] { return p.invariants }

// Goals returns reachability goals that show the search hits the pool's
// interesting corners.
func (p *Pool) Goals() []model.Goal[State] { return p.goals }

func (p *Pool) checkConservation(s *State) *model.Failure {
	held := 0
	for q := range Ranks * p.cfg.Requests {
		held += int(s.Held[q])
	}
	if int(s.Free)+held == p.cfg.Blocks {
		return nil
	}
	return &model.Failure{Message: fmt.Sprintf("I1: nfree %d + held %d != %d blocks", s.Free, held, p.cfg.Blocks)}
}

func (p *Pool) checkOwnerTable(s *State) *model.Failure {
	var owned [MaxSlots + 1]int
	for _, o := range s.Owner[:p.cfg.Blocks] {
		owned[o]++
	}
	for q := range Ranks * p.cfg.Requests {
		if owned[q+1] != int(s.Held[q]) {
			return &model.Failure{Message: fmt.Sprintf("I2: request q%d owns %d blocks but held = %d", q, owned[q+1], s.Held[q])}
		}
	}
	return nil
}

func (p *Pool) someAtMax(s *State) bool {
	for q := range Ranks * p.cfg.Requests {
		if int(s.Held[q]) == p.cfg.MaxH {
			return true
		}
	}
	return false
}

func (p *Pool) someQueueFull(s *State) bool {
	for _, n := range s.Len {
		if int(n) == p.cfg.Requests {
			return true
		}
	}
	return false
}
