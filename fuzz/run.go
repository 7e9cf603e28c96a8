package fuzz

import (
	"sync"
	"time"
	"unsafe"

	"github.com/kvcheck/kvcheck/model"
)

// Mode says how much a run remembers of the states it reaches.
type Mode uint8

const (
	// ModeNovelty records every state's fingerprint; walks restart from
	// states found new and end after Patience steps that found none.
	ModeNovelty Mode = iota
	// ModePlain records fingerprints (distinct states and goals are
	// reported) but every walk starts at the initial state and runs until a
	// state with no enabled action or MaxWalkSteps.
	ModePlain
	// ModeBare records nothing: throughput of the walk alone. Distinct
	// states and goals are not reported.
	ModeBare
)

func (m Mode) String() string { return [...]string{"novelty", "plain", "bare"}[m] }

// Options shape a Run. The zero value is usable: one worker, seed 0,
// novelty walks until the first violation.
type Options struct {
	// Seed is the seed every random choice of the run follows from.
	Seed uint64
	// Workers is the number of goroutines that walk; < 1 means 1.
	Workers int
	// Walks bounds the walks of the run (shared out between the workers:
	// worker i runs Walks/Workers, the first Walks%Workers one more); 0 is
	// unbounded.
	Walks int
	// MaxSteps bounds the steps of the run, shared out like Walks; a worker
	// starts no walk once it has taken its share. 0 is unbounded.
	MaxSteps int
	// Duration bounds the run's wall time, checked between rounds; 0 is
	// unbounded.
	Duration time.Duration
	// StopAtStates ends the run at the first round end with at least this
	// many distinct states; 0 never.
	StopAtStates int
	// Swarm gives each walk its own action-class weights, patience and
	// restart chance, derived from a seed it draws (see swarm.go).
	Swarm bool
	// Mode is novelty (default), plain or bare.
	Mode Mode
	// Patience is how many steps in a row without a new state end a novelty
	// walk; 0 means 4.
	Patience int
	// MaxWalkSteps bounds one walk; 0 means 1000.
	MaxWalkSteps int
	// MaxStates bounds the fingerprints recorded; later states count as
	// known. 0 means 1<<23.
	MaxStates int
	// CorpusBytes bounds the memory of the restart states of all workers
	// together; 0 means 256 MiB.
	CorpusBytes int
	// RoundSteps is how many steps each worker takes between two
	// synchronisations; 0 means 1<<15.
	RoundSteps int
	// Stop, when set, is called between rounds; when it returns true the
	// run ends there and Result.Interrupted is set. kvcheck uses it to stop
	// cleanly on SIGINT.
	Stop func() bool
	// Progress, when set, is called after each round with the counts so
	// far, from the goroutine that called Run.
	Progress func(Progress)
	// IgnoreLivelocks stops walks from reporting livelocks. By default a
	// walk that returns to a state without progress since is a candidate,
	// confirmed by a bounded exhaustive search from that state (see
	// livelock.go); ModeBare, which records no states, never looks.
	IgnoreLivelocks bool
}

// Progress is how far a run has gone.
type Progress struct {
	Walks, Steps, States, Depth int
}

func (o Options) withDefaults() Options {
	o.Workers = max(1, o.Workers)
	if o.Patience <= 0 {
		o.Patience = 4
	}
	if o.MaxWalkSteps <= 0 {
		o.MaxWalkSteps = 1000
	}
	if o.MaxStates <= 0 {
		o.MaxStates = 1 << 23
	}
	if o.CorpusBytes <= 0 {
		o.CorpusBytes = 256 << 20
	}
	if o.RoundSteps <= 0 {
		o.RoundSteps = 1 << 15
	}
	return o
}

// Key identifies the mechanism of a violation: the invariant and its
// Failure.Group. The shrinker keeps it while it shortens a trace.
type Key struct {
	Invariant string
	Group     string
}

// Violation is a state a walk reached that breaks an invariant (or
// deadlocks), with the trace that leads to it from the initial state.
type Violation[A any] struct {
	Key
	Message string
	Trace   []A
	// Cycle is, for a livelock, the actions that lead from the state Trace
	// ends in back to it.
	Cycle  []A
	Worker int // the worker whose walk found it
	Walk   int // that worker's walk number, from 1
}

// Result summarises a Run.
type Result[A any] struct {
	Seed    uint64
	Workers int
	Walks   int // walks run
	Steps   int // transitions taken
	States  int // distinct states recorded (0 in ModeBare)
	Depth   int // longest path from the initial state a walk reached
	Rounds  int
	Goals   []model.GoalResult
	// Violation is the first violation in (round, worker) order, or nil.
	Violation *Violation[A]
	// Interrupted is true when Options.Stop ended the run.
	Interrupted bool
	Elapsed     time.Duration
}

// Run walks sp at random from opts.Seed until a violation or the budget.
//
// The walkers advance in rounds: in each, every worker takes about
// RoundSteps steps (whole walks) against the states known at the round's
// start plus its own finds; between rounds the finds are merged in worker
// order and the budgets are checked. Each worker's choices follow from its
// own PCG stream, derived from Seed and its index. Hence, for the same spec,
// Seed, Workers and options:
//
//   - the violation reported (the first in round, then worker order), its
//     trace and the walk that found it are always the same, whenever the
//     budget was large enough to reach it, and with Duration 0 and Walks 0
//     the run always reaches it;
//   - with Duration 0, the whole Result except Elapsed is the same;
//   - with a Duration, how many rounds run depends on the machine, and so
//     do Walks, Steps, States and Goals.
//
// A different Workers gives a different, equally reproducible, run.
func Run[S, A any, P model.Spec[S, A]](sp P, opts Options) Result[A] {
	start := time.Now()
	opts = opts.withDefaults()
	r := newRun[S, A](sp, &opts)
	res := Result[A]{Seed: opts.Seed, Workers: opts.Workers}
	if v := r.checkInitial(); v != nil {
		res.Violation = v
	} else {
		for !r.done(start) {
			if opts.Stop != nil && opts.Stop() {
				res.Interrupted = true
				break
			}
			r.round()
			res.Rounds++
			if res.Violation = r.firstViolation(); res.Violation != nil {
				break
			}
			if opts.Progress != nil {
				opts.Progress(r.progress())
			}
		}
	}
	for _, w := range r.workers {
		res.Walks += w.walks
		res.Steps += w.steps
		res.Depth = max(res.Depth, w.depth)
	}
	if opts.Mode != ModeBare {
		res.States = r.global.Len()
		for i, g := range r.goals {
			res.Goals = append(res.Goals, model.GoalResult{Name: g.Name, Doc: g.Doc, Reached: r.reached(i)})
		}
	}
	res.Elapsed = time.Since(start)
	return res
}

// progress sums the workers' counts.
func (r *run[S, A, P]) progress() Progress {
	p := Progress{States: r.global.Len()}
	for _, w := range r.workers {
		p.Walks += w.walks
		p.Steps += w.steps
		p.Depth = max(p.Depth, w.depth)
	}
	return p
}

// run is the state shared by the workers of one Run.
type run[S, A any, P model.Spec[S, A]] struct {
	sp      P
	opts    *Options
	goals   []model.Goal[S]
	global  *model.FingerprintTable[link[A]]
	workers []*worker[S, A, P]
}

func newRun[S, A any, P model.Spec[S, A]](sp P, opts *Options) *run[S, A, P] {
	r := &run[S, A, P]{sp: sp, opts: opts, goals: sp.Goals(), global: model.NewFingerprintTable[link[A]](1 << 16)}
	initial := sp.Initial()
	initialFP := sp.Fingerprint(&initial)
	r.global.Insert(initialFP, link[A]{})
	terminator, _ := any(sp).(model.Terminator[S])
	progress, _ := any(sp).(model.Progressor[S, A])
	corpusLimit := max(1024, opts.CorpusBytes/opts.Workers/int(unsafe.Sizeof(corpusEntry[S]{})))
	for i := range opts.Workers {
		w := &worker[S, A, P]{
			id:         i,
			sp:         sp,
			opts:       opts,
			rng:        newRNG(deriveSeed(opts.Seed, uint64(i))),
			invariants: sp.Invariants(),
			goals:      r.goals,
			reached:    make([]bool, len(r.goals)),
			terminator: terminator,
			progress:   progress,
			classes:    newClassifier[A](sp, sp.ActionString),
			global:     r.global,
			local:      r.global,
			initial:    initial,
			initialFP:  initialFP,
			quota:      -1,
			stepQuota:  -1,
		}
		w.corpus.limit = corpusLimit
		if opts.Workers > 1 {
			w.local = model.NewFingerprintTable[link[A]](1 << 12)
		}
		if opts.Walks > 0 {
			w.quota = share(opts.Walks, opts.Workers, i)
		}
		if opts.MaxSteps > 0 {
			w.stepQuota = share(opts.MaxSteps, opts.Workers, i)
		}
		r.workers = append(r.workers, w)
	}
	if opts.Mode != ModeBare {
		w := r.workers[0]
		w.state = initial
		w.discovered(initialFP) // goals of the initial state; not a restart point
		w.corpus = corpus[S]{limit: corpusLimit}
	}
	return r
}

// checkInitial checks the invariants in the initial state.
func (r *run[S, A, P]) checkInitial() *Violation[A] {
	w := r.workers[0]
	w.state, w.startFP = w.initial, w.initialFP
	w.trace = w.trace[:0]
	w.checkInvariants()
	return w.violation
}

// done reports whether the budget is spent.
func (r *run[S, A, P]) done(start time.Time) bool {
	if r.opts.Duration > 0 && time.Since(start) >= r.opts.Duration {
		return true
	}
	if r.opts.StopAtStates > 0 && r.global.Len() >= r.opts.StopAtStates {
		return true
	}
	for _, w := range r.workers {
		if !w.exhausted() {
			return false
		}
	}
	return true
}

// share is worker i's part of a budget of n split between workers: n/workers,
// one more for the first n%workers.
func share(n, workers, i int) int {
	if i < n%workers {
		return n/workers + 1
	}
	return n / workers
}

// round runs one round on every worker, then merges their finds into the
// global table in worker order.
func (r *run[S, A, P]) round() {
	steps := r.opts.RoundSteps
	if len(r.workers) == 1 {
		r.workers[0].runRound(steps)
		return
	}
	var wg sync.WaitGroup
	for _, w := range r.workers {
		wg.Go(func() { w.runRound(steps) })
	}
	wg.Wait()
	for _, w := range r.workers {
		for fp, l := range w.local.All() {
			r.global.Insert(fp, l)
		}
		w.local.Reset()
	}
}

// firstViolation returns the violation of the lowest-numbered worker that
// found one this round.
func (r *run[S, A, P]) firstViolation() *Violation[A] {
	for _, w := range r.workers {
		if w.violation != nil {
			return w.violation
		}
	}
	return nil
}

// reached reports whether any worker reached goal i.
func (r *run[S, A, P]) reached(i int) bool {
	for _, w := range r.workers {
		if w.reached[i] {
			return true
		}
	}
	return false
}
