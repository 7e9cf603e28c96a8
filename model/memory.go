package model

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// overBudget keeps the search within Options.MaxMemory after a round: when
// what it holds passes the budget it moves the queues' blocks to disk, and
// when the parts that cannot move (the visited set, the parent links, the
// liveness graph) approach the budget on their own it reports that the
// search must stop, so that it ends with an incomplete result instead of
// the runtime's fatal out-of-memory error.
func (s *search[S, A]) overBudget() bool {
	queued := s.frontier.mem + s.next.mem
	s.peakQueue = max(s.peakQueue, queued)
	if s.opts.MaxMemory <= 0 {
		return false
	}
	fixed := s.fixedBytes()
	if fixed > s.opts.MaxMemory/10*9 {
		s.outOfMemory = true
		return true
	}
	if fixed+queued > s.opts.MaxMemory {
		s.next.spill()
		if fixed+s.frontier.mem+s.next.mem > s.opts.MaxMemory {
			s.frontier.spill()
		}
	}
	return false
}

// fixedBytes is the memory the search holds outside its queues.
func (s *search[S, A]) fixedBytes() int64 {
	b := s.visited.bytes() + s.links.bytes()
	if l := s.live; l != nil {
		b += int64(len(l.start.blocks)+len(l.dst.blocks))<<blockBits*4 + int64(cap(l.good))*4
	}
	for _, w := range s.workers {
		b += w.bufBytes.Load()
	}
	return b
}

// noteBytes sets w.bufBytes to the memory of w's buffers, which only its
// own goroutine changes (while it expands), so that fixedBytes may read it
// while w expands the next round (pipelined.go).
func (w *worker[S, A]) noteBytes() {
	var st S
	b := int64(cap(w.successors)+cap(w.held.successors)) * int64(unsafe.Sizeof(st))
	for i := range w.bufs {
		r := &w.bufs[i]
		b += int64(cap(r.enc)) + int64(cap(r.candidates))*int64(unsafe.Sizeof(candidate{})) + int64(cap(r.succ))*4
		// owned holds one list per worker in every worker: the part of
		// the workers' memory that grows with their square.
		b += int64(cap(r.owned)) * int64(unsafe.Sizeof([]ownedCandidate(nil)))
		for _, o := range r.owned {
			b += int64(cap(o)) * int64(unsafe.Sizeof(ownedCandidate{}))
		}
	}
	w.bufBytes.Store(b)
}

// MachineMemory returns the memory this process may use: the cgroup's
// limit if there is one, else the machine's total, else 0 if neither can
// be read (not Linux).
func MachineMemory() int64 {
	return machineMemory("/sys/fs/cgroup/memory.max", "/proc/meminfo")
}

// machineMemory is MachineMemory reading the cgroup limit from cgroupMax
// (its "max" means no limit) and the machine's total from meminfo.
func machineMemory(cgroupMax, meminfo string) int64 {
	total := memTotal(meminfo)
	if b, err := os.ReadFile(cgroupMax); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			// Equivalent mutant: "n <= total" returns the same number.
			if total == 0 || n < total {
				return n
			}
		}
	}
	return total
}

// memTotal reads MemTotal from a /proc/meminfo (0 if it cannot).
func memTotal(meminfo string) int64 {
	f, err := os.Open(meminfo)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
