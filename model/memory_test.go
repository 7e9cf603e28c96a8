package model

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// blob is a state whose bytes do not compress: a node number and 252
// bytes derived from it, so that a frontier of a few thousand blobs is
// large next to the visited set.
type blob struct {
	node uint32
	fill [252]uint8
}

// blobTree is the complete binary tree of the given depth over blobs: node
// k has children 2k+1 and 2k+2, so each level doubles and the last holds
// half the states. Leaves are terminal; the last leaf violates "not-last".
type blobTree struct{ depth int }

func (b blobTree) nodes() uint32 { return 1<<(b.depth+1) - 1 }
func (b blobTree) Initial() blob { return b.make(0) }
func (b blobTree) make(k uint32) blob {
	s := blob{node: k}
	h := k
	for i := range s.fill {
		h = h*1664525 + 1013904223
		s.fill[i] = byte(h>>24) | 1
	}
	return s
}
func (b blobTree) Actions(s *blob, out []int) []int {
	if 2*s.node+2 < b.nodes() {
		out = append(out, 1, 2)
	}
	return out
}
func (b blobTree) Next(s *blob, a int) blob   { return b.make(2*s.node + uint32(a)) }
func (b blobTree) Fingerprint(s *blob) uint64 { return uint64(s.node) }
func (b blobTree) IsTerminal(s *blob) bool    { return 2*s.node+2 >= b.nodes() }
func (b blobTree) ActionString(a int) string  { return string(rune('0' + a)) }
func (b blobTree) Goals() []Goal[blob] {
	return []Goal[blob]{{Name: "node-1000", Reached: func(s *blob) bool { return s.node == 1000 }}}
}
func (b blobTree) Invariants() []Invariant[blob] {
	return []Invariant[blob]{{Name: "not-last", Check: func(s *blob) *Failure {
		if s.node == b.nodes()-1 {
			return &Failure{Message: "the last leaf"}
		}
		return nil
	}}}
}

// TestDiskQueue: a check whose frontier outgrows MaxMemory moves it to
// disk and finishes with the same result as without a budget, the
// counterexample's trace included, with and without liveness and workers.
func TestDiskQueue(t *testing.T) {
	defer func(size int) { queueBlockSize = size }(queueBlockSize)
	queueBlockSize = 16 << 10
	spec := blobTree{depth: 16}
	for _, opts := range []Options{{}, {Liveness: true, KeepGoing: true}, {Workers: 2}} {
		want := Check[blob, int](spec, opts)
		if want.Usage.SpilledBytes != 0 || len(want.Violations) == 0 || want.Violations[0].Depth != spec.depth {
			t.Fatalf("%+v without a budget: spilled %d bytes, violations %+v; want none spilled and the last leaf at depth 16",
				opts, want.Usage.SpilledBytes, want.Violations)
		}
		budget := opts
		// Without a budget the queues peak at 17 MB; the workers'
		// buffers, which hold a round's successors of 256 bytes (a
		// helper's up to two whole rounds', pipelined.go), and the parent
		// links take 3.5 MB with one worker, 7.5 MB with two.
		budget.MaxMemory = 14 << 20
		budget.SpillDir = t.TempDir()
		got := Check[blob, int](spec, budget)
		if got.Usage.SpilledBytes == 0 {
			t.Errorf("%+v: nothing spilled (peak queue %d bytes, visited %d bytes)", budget, got.Usage.PeakQueueBytes, got.Usage.VisitedBytes)
		}
		if got.Usage.PeakQueueBytes >= want.Usage.PeakQueueBytes {
			t.Errorf("%+v: the queue peaked at %d bytes in memory, %d without a budget", budget, got.Usage.PeakQueueBytes, want.Usage.PeakQueueBytes)
		}
		got.Elapsed, got.Usage, want.Elapsed, want.Usage = 0, Usage{}, 0, Usage{}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: got %+v\nwant %+v", budget, got, want)
		}
	}
}

// TestOutOfMemory: a check whose visited set cannot fit in MaxMemory
// stops with an incomplete result that says so, instead of crashing, with
// one worker or two (whose rounds are pipelined).
func TestOutOfMemory(t *testing.T) {
	for _, workers := range []int{1, 2} {
		r := Check[blob, int](blobTree{depth: 16}, Options{MaxMemory: 1 << 20, Workers: workers})
		if !r.OutOfMemory || r.Complete || r.States == 0 || r.States >= 1<<17 {
			t.Fatalf("%d workers: got OutOfMemory %v, Complete %v after %d states; want an incomplete out-of-memory result", workers, r.OutOfMemory, r.Complete, r.States)
		}
	}
}

// TestMachineMemory: the cgroup's limit wins when it is a positive number
// below the machine's total (or the total is unknown); "max", zero, a
// missing file or a larger limit leave the total; an unreadable or
// malformed meminfo counts as unknown.
func TestMachineMemory(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	meminfo := file("meminfo", "MemFree:  10 kB\nMemTotal:     2048 kB\n")
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		cgroup, meminfo string
		want            int64
	}{
		{file("max", "max\n"), meminfo, 2048 << 10},
		{file("limit", "1048576\n"), meminfo, 1 << 20},
		{file("over", "4194304\n"), meminfo, 2048 << 10},
		{file("zero", "0\n"), meminfo, 2048 << 10},
		{missing, meminfo, 2048 << 10},
		{file("limit2", "1048576\n"), missing, 1 << 20},
		{missing, missing, 0},
		{missing, file("bad", "MemTotal: lots kB\n"), 0},
		{missing, file("none", "MemFree: 10 kB\n"), 0},
	} {
		if got := machineMemory(c.cgroup, c.meminfo); got != c.want {
			t.Errorf("machineMemory(%s, %s) = %d, want %d", filepath.Base(c.cgroup), filepath.Base(c.meminfo), got, c.want)
		}
	}
}

// TestDiskQueueWriteError: a spill that cannot create its file stops the
// check with an incomplete result whose error says so.
func TestDiskQueueWriteError(t *testing.T) {
	defer func(size int) { queueBlockSize = size }(queueBlockSize)
	queueBlockSize = 16 << 10
	r := Check[blob, int](blobTree{depth: 14}, Options{MaxMemory: 5 << 20, SpillDir: filepath.Join(t.TempDir(), "missing")})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "writing the disk queue") || r.Complete {
		t.Fatalf("got Err %v, Complete %v; want an incomplete result failing to write the disk queue", r.Err, r.Complete)
	}
}

// TestWorkersCountInTheBudget: the workers' own memory, which grows with
// the square of their number (each keeps a list per worker), counts in
// MaxMemory: 512 workers on a 2,047-state tree hold about 6 MB of such
// lists, so a 4 MB budget ends the search out of memory, while one worker
// finishes the same search within it.
func TestWorkersCountInTheBudget(t *testing.T) {
	spec := blobTree{depth: 10}
	one := Check[blob, int](spec, Options{MaxMemory: 4 << 20})
	if one.OutOfMemory || len(one.Violations) == 0 {
		t.Fatalf("one worker: out of memory %v, violations %v; want the last leaf within 4 MB", one.OutOfMemory, one.Violations)
	}
	many := Check[blob, int](spec, Options{MaxMemory: 4 << 20, Workers: 512})
	if !many.OutOfMemory || many.Complete {
		t.Fatalf("512 workers: out of memory %v, complete %v, %d states; want out of memory", many.OutOfMemory, many.Complete, many.States)
	}
}
