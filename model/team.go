package model

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// team runs a search's workers: worker 0 on the search's goroutine and the
// others on goroutines that live as long as the search. A round hands work
// over several times (a task, its barriers, the next round's pop), and
// waking a parked goroutine costs about a tenth of a millisecond on a
// virtual machine, a tenth of the round, so a goroutine waiting for the
// others, or for its next task, spins for up to spinFor before it parks.
// That costs processor time only while a worker would otherwise be idle.
type team struct {
	n      int
	epoch  atomic.Uint64 // counts tasks handed out; a helper runs the task of each epoch
	task   func(w int)
	active atomic.Int32 // helpers still running the current task
	quit   bool         // set with the last epoch: the helpers return
	wake   waitPoint    // helpers wait there for an epoch
	idle   waitPoint    // the search's goroutine waits there for active to be 0
	bar    barrier      // for phases within a task (sync)
	// spin says waiting goroutines spin before they park: only when each
	// worker can have a processor of its own.
	spin bool
}

// spinFor is how long a goroutine spins, waiting, before it parks.
const spinFor = 200 * time.Microsecond

// newTeam starts the helpers of n workers (none for one).
func newTeam(n int) *team {
	t := &team{n: n}
	t.spin = n <= runtime.GOMAXPROCS(0)
	t.wake.init()
	t.idle.init()
	t.bar.n, t.bar.spin = int32(n), t.spin
	t.bar.done.init()
	for w := 1; w < n; w++ {
		go t.help(w)
	}
	return t
}

// run runs f(w) for every worker w and returns when all have returned.
func (t *team) run(f func(w int)) {
	if t.n == 1 {
		f(0)
		return
	}
	t.task = f
	t.active.Store(int32(t.n - 1))
	t.hand()
	f(0)
	t.idle.wait(t.spin, func() bool { return t.active.Load() == 0 })
}

// hand starts a new epoch and wakes the parked helpers.
func (t *team) hand() {
	t.epoch.Add(1)
	t.wake.signal()
}

// stop ends the helpers.
func (t *team) stop() {
	if t.n == 1 {
		return
	}
	t.quit = true
	t.hand()
}

// help is helper w's loop: wait for an epoch, run its task, report.
func (t *team) help(w int) {
	seen := uint64(0)
	for {
		t.wake.wait(t.spin, func() bool { return t.epoch.Load() != seen })
		seen = t.epoch.Load()
		if t.quit {
			return
		}
		t.task(w)
		if t.active.Add(-1) == 0 {
			t.idle.signal()
		}
	}
}

// sync waits, within a task, until every worker has called it.
func (t *team) sync() {
	if t.n > 1 {
		t.bar.wait()
	}
}

// barrier is a reusable spinning barrier that parks after spinFor.
type barrier struct {
	n       int32
	arrived atomic.Int32
	gen     atomic.Uint32
	done    waitPoint // the workers wait there for gen to change
	spin    bool
}

func (b *barrier) wait() {
	gen := b.gen.Load()
	if b.arrived.Add(1) == b.n {
		b.arrived.Store(0)
		b.gen.Add(1)
		b.done.signal()
		return
	}
	b.done.wait(b.spin, func() bool { return b.gen.Load() != gen })
}

// waitPoint is where goroutines wait for a condition: spinning for up to
// spinFor, then parked on a condition variable. A goroutine that makes the
// condition hold calls signal after it, which wakes the parked ones: a
// waiter tests the condition under the lock before it parks, and signal
// takes the lock, so no wake-up is lost.
type waitPoint struct {
	mu     sync.Mutex
	cond   sync.Cond
	parked atomic.Int32 // goroutines parked on cond
}

func (p *waitPoint) init() { p.cond.L = &p.mu }

// wait returns once done holds.
func (p *waitPoint) wait(spin bool, done func() bool) {
	if spinUntil(spin, done) {
		return
	}
	p.mu.Lock()
	p.parked.Add(1)
	for !done() {
		p.cond.Wait()
	}
	p.parked.Add(-1)
	p.mu.Unlock()
}

// signal wakes the goroutines parked waiting, after their condition was
// made to hold.
func (p *waitPoint) signal() {
	p.mu.Lock()
	if p.parked.Load() > 0 {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
}

// spinUntil polls done for up to spinFor, if spin, and reports whether it
// held.
func spinUntil(spin bool, done func() bool) bool {
	if !spin {
		return done()
	}
	start := time.Now()
	for i := 0; ; i++ {
		if done() {
			return true
		}
		if i&255 == 255 && time.Since(start) > spinFor {
			return done()
		}
		spinPause()
	}
}

// counter is a count that one goroutine advances and others wait for.
type counter struct {
	v  atomic.Uint64
	at waitPoint
}

// Load returns the count.
func (c *counter) Load() uint64 { return c.v.Load() }

// publish sets the count to v and wakes the goroutines waiting for it.
func (c *counter) publish(v uint64) {
	c.v.Store(v)
	c.at.signal()
}

// wait returns once the count is at least v.
func (c *counter) wait(spin bool, v uint64) {
	c.at.wait(spin, func() bool { return c.v.Load() >= v })
}
