package model

import "math/bits"

// partMemoBits sets the size of a worker's partMemo: 2^14 slots of 8
// bytes, 128 KiB, which stays in the processor's second-level cache.
const partMemoBits = 14

// judgeCandidate records the invariants c's state next violates and the
// goals of goals it reaches. hashes are next's segment hashes for a
// ByteStates spec (nil otherwise).
//
// The invariants that have a Part (see Invariant.Part) of a Partitioned
// spec are evaluated per part: a part whose (head, part) pair is in the
// worker's memo satisfies all of them without evaluating any, and one
// that satisfies all of them is added. The memo is a direct-mapped cache
// of 64-bit keys hashed from the head's and the part's hashes, the
// part's number and the search's salt, so it only ever spares
// evaluations: like the visited set, it takes equal hashes for equal
// contents. The salt matters: a worker's memo outlives its search (the
// tables are reused, reuse.go), and the same part under another
// configuration (another max_seq_len, pool size or fix) can break an
// invariant it satisfied there; without it a sweep checked a
// configuration against the previous configuration's verdicts. Where a part fails, the
// invariants are evaluated in order as checkInvariants does, so the
// failures and their messages are the same.
func (s *search[S, A]) judgeCandidate(w *worker[S, A], c *candidate, next *S, hashes []uint64, goals uint64) {
	if len(s.partInvariants) == 0 || hashes == nil {
		c.failures = checkInvariants(s.invariants, next, s.opts.KeepGoing)
	} else {
		c.failures = s.checkByParts(w, next, hashes)
	}
	for g := goals; g != 0; g &= g - 1 {
		i := bits.TrailingZeros64(g)
		if s.goals[i].Reached(next) {
			c.goals |= 1 << i
		}
	}
}

// checkByParts is checkInvariants for a Partitioned spec's state next
// with segment hashes hashes (hashes[0] the head's, hashes[1+r] part r's).
func (s *search[S, A]) checkByParts(w *worker[S, A], next *S, hashes []uint64) []InvariantFailure {
	if w.partMemo == nil {
		w.partMemo = make([]uint64, 1<<partMemoBits)
	}
	parts := len(hashes) - 1
	var ok uint64 // bit r: part r satisfies every Part invariant
	for r := range parts {
		key := partKey(hashes[0]^s.salt, hashes[1+r], r)
		slot := &w.partMemo[key>>(64-partMemoBits)]
		if *slot == key {
			ok |= 1 << r
			continue
		}
		holds := true
		for _, inv := range s.partInvariants {
			if inv.Part(next, r) != nil {
				holds = false
				break
			}
		}
		if holds {
			*slot = key
			ok |= 1 << r
		}
	}
	all := ok == 1<<parts-1
	if all && s.noWhole {
		return nil
	}
	if all && !s.opts.KeepGoing {
		// Only the invariants without a Part can fail; the first of them
		// in order is the one checkInvariants would report.
		return checkInvariants(s.wholeInvariants, next, false)
	}
	var failures []InvariantFailure
	for _, inv := range s.invariants {
		var f *Failure
		switch {
		case inv.Part == nil:
			f = inv.Check(next)
		case all:
		default:
			for r := range parts {
				if ok&(1<<r) == 0 {
					if f = inv.Part(next, r); f != nil {
						break
					}
				}
			}
		}
		if f != nil {
			failures = append(failures, InvariantFailure{Invariant: inv.Name, Failure: *f})
			if !s.opts.KeepGoing {
				break
			}
		}
	}
	return failures
}

// partKey is the memo key of part r with hash part under a head with hash
// head; never 0, the empty slot.
func partKey(head, part uint64, r int) uint64 {
	x := foldMul(head^0x9e3779b97f4a7c15, part^0xc2b2ae3d27d4eb4f)
	return foldMul(x^uint64(r+1)*0x165667b19e3779f9, 0xd6e8feb86659fd93) | 1
}
