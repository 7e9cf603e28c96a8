package fuzz

import "github.com/kvcheck/kvcheck/model"

// restartFromInitial: a novelty walk starts at the initial state with chance
// 1/restartFromInitial, else at a corpus state.
const restartFromInitial = 8

// worker runs walks with its own PCG stream, its own corpus and its own
// record of the states it found this round. Its hot loop reuses its buffers
// and calls the spec through the type parameter P, so a step allocates
// nothing.
type worker[S, A any, P model.Spec[S, A]] struct {
	id         int
	sp         P
	opts       *Options
	rng        rng
	invariants []model.Invariant[S]
	goals      []model.Goal[S]
	reached    []bool
	terminator model.Terminator[S]
	progress   model.Progressor[S, A] // nil when the spec does not say
	watch      cycleWatch             // unless Options.IgnoreLivelocks
	classes    *classifier[A]

	// global holds the states found before this round (read-only while the
	// round runs); local the ones this worker found in it. With one worker
	// they are the same table.
	global, local *model.FingerprintTable[link[A]]
	corpus        corpus[S]
	initial       S
	initialFP     uint64

	walkPlan   walkPlan
	state      S
	fp         uint64
	startFP    uint64
	startDepth int32
	actions    []A
	trace      []A // the current walk's actions since its start
	cumulative []int

	walks, steps, roundSteps int
	quota                    int // walks this worker may still start; < 0 unbounded
	stepQuota                int // steps after which it starts no walk; < 0 unbounded
	depth                    int
	violation                *Violation[A]
}

// runRound runs walks until the worker has taken roundSteps steps in this
// round, found a violation, or used its quota. Walks do not span rounds.
func (w *worker[S, A, P]) runRound(roundSteps int) {
	w.roundSteps = 0
	for w.roundSteps < roundSteps && w.violation == nil && !w.exhausted() {
		if w.quota > 0 {
			w.quota--
		}
		w.walk()
	}
}

// exhausted reports whether the worker has used its walk or step budget.
func (w *worker[S, A, P]) exhausted() bool {
	return w.quota == 0 || (w.stepQuota >= 0 && w.steps >= w.stepQuota)
}

// walk runs one walk: from the initial state or a corpus state, it takes
// steps until a violation, a state with no enabled action, MaxWalkSteps
// steps or, with novelty, Patience steps in a row that found no new state.
func (w *worker[S, A, P]) walk() {
	w.walks++
	w.plan()
	w.start()
	w.trace = w.trace[:0]
	w.watch.reset()
	stale := 0
	for len(w.trace) < w.opts.MaxWalkSteps {
		w.actions = w.sp.Actions(&w.state, w.actions[:0])
		if len(w.actions) == 0 {
			if w.terminator == nil || !w.terminator.IsTerminal(&w.state) {
				w.fail(model.DeadlockInvariant, model.Failure{Message: "no action is enabled and the state is not terminal"})
			}
			break
		}
		var i int
		if w.walkPlan.swarm {
			i = w.chooseWeighted()
		} else {
			i = w.rng.below(len(w.actions))
		}
		a := w.actions[i]
		next := w.sp.Next(&w.state, a)
		if !w.opts.IgnoreLivelocks {
			watchStep(&w.watch, w.progress, &w.state, a, &next)
		}
		w.state = next
		w.trace = append(w.trace, a)
		w.steps++
		w.roundSteps++
		if w.checkInvariants() {
			break
		}
		if w.opts.Mode == ModeBare {
			continue
		}
		fp := w.sp.Fingerprint(&w.state)
		fresh := w.record(fp, link[A]{parent: w.fp, action: a})
		w.fp = fp
		if !w.opts.IgnoreLivelocks && w.watch.returned(fp, w.progress != nil) && w.confirmLivelock() {
			break
		}
		if fresh {
			stale = 0
			w.discovered(fp)
			continue
		}
		stale++
		if w.opts.Mode == ModeNovelty && stale >= w.walkPlan.patience {
			break
		}
	}
	w.depth = max(w.depth, int(w.startDepth)+len(w.trace))
}

// start puts the walk at its first state.
func (w *worker[S, A, P]) start() {
	if w.opts.Mode != ModeNovelty || w.corpus.n == 0 || w.rng.chance(w.walkPlan.fromStart) {
		w.state, w.fp, w.startFP, w.startDepth = w.initial, w.initialFP, w.initialFP, 0
		return
	}
	e := w.corpus.pick(&w.rng)
	w.state, w.fp, w.startFP, w.startDepth = e.state, e.fp, e.fp, e.depth
}

// checkInvariants checks every invariant in the current state and records
// the first failure; it reports whether one failed.
func (w *worker[S, A, P]) checkInvariants() bool {
	for k := range w.invariants {
		if f := w.invariants[k].Check(&w.state); f != nil {
			w.fail(w.invariants[k].Name, *f)
			return true
		}
	}
	return false
}

// record stores fp as found through l unless it was found before or the
// table is full (MaxStates); it reports whether fp is new.
func (w *worker[S, A, P]) record(fp uint64, l link[A]) bool {
	if w.local != w.global && w.global.Contains(fp) {
		return false
	}
	if w.opts.MaxStates > 0 && w.global.Len()+w.local.Len() >= w.opts.MaxStates {
		return false
	}
	return w.local.Insert(fp, l)
}

// discovered handles a new state: it evaluates the goals on it and, with
// novelty, keeps it in the corpus as a restart point.
func (w *worker[S, A, P]) discovered(fp uint64) {
	for i := range w.goals {
		if !w.reached[i] && w.goals[i].Reached(&w.state) {
			w.reached[i] = true
		}
	}
	if w.opts.Mode == ModeNovelty {
		w.corpus.add(corpusEntry[S]{state: w.state, fp: fp, depth: w.startDepth + int32(len(w.trace))})
	}
}

// fail records a violation in the current state with its trace from the
// initial state.
func (w *worker[S, A, P]) fail(invariant string, f model.Failure) {
	trace := w.pathTo(w.startFP)
	trace = append(trace, w.trace...)
	w.violation = &Violation[A]{
		Key:     Key{Invariant: invariant, Group: f.Group},
		Message: f.Message,
		Trace:   trace,
		Worker:  w.id,
		Walk:    w.walks,
	}
}

// pathTo returns the actions that lead from the initial state to the
// stored state fp, following links.
func (w *worker[S, A, P]) pathTo(fp uint64) []A {
	var path []A
	for fp != w.initialFP {
		l, ok := w.local.Lookup(fp)
		if !ok {
			l, ok = w.global.Lookup(fp)
		}
		if !ok {
			panic("fuzz: a corpus state has no link to the initial state")
		}
		path = append(path, l.action)
		fp = l.parent
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}
