package fuzz

import "strings"

// ActionClasser is implemented by specs whose actions fall into a few
// classes that swarm walks weight separately (spec.Spec does: one class per
// action kind, and the rare forward choices apart). Without it an action's
// class is the first word of its transcript line, which costs a string per
// enabled action.
type ActionClasser[A any] interface {
	// ActionClasses names the classes; an action's class is an index.
	ActionClasses() []string
	// ActionClass returns the index of a's class.
	ActionClass(a *A) int
}

// classifier gives each action its class, through ActionClasser when the
// spec has it, else by the first word of its transcript line.
type classifier[A any] struct {
	classer ActionClasser[A]
	str     func(A) string
	byWord  map[string]int
}

func newClassifier[A any](spec any, str func(A) string) *classifier[A] {
	c := &classifier[A]{str: str, byWord: map[string]int{}}
	c.classer, _ = spec.(ActionClasser[A])
	return c
}

func (c *classifier[A]) class(a *A) int {
	if c.classer != nil {
		return c.classer.ActionClass(a)
	}
	word, _, _ := strings.Cut(c.str(*a), " ")
	k, ok := c.byWord[word]
	if !ok {
		k = len(c.byWord)
		c.byWord[word] = k
	}
	return k
}

// Swarm weights. A swarm walk switches a class off, favours it, or leaves
// it as it is, each class independently: a quarter of the walks never take
// a given class (unless nothing else is enabled), a quarter take it eight
// times as often.
const (
	weightOff       = 0
	weightNormal    = 1
	weightFavoured  = 8
	patienceChoices = 4 // swarm patience is base << (0..3)
)

// classWeight is the weight of class in the swarm walk whose swarm seed is
// seed. It depends on nothing else, so a walk's weights follow from its
// seed alone whatever classes other walks met first.
func classWeight(seed uint64, class int) int {
	switch deriveSeed(seed, uint64(class)) % 4 {
	case 0:
		return weightOff
	case 1:
		return weightFavoured
	}
	return weightNormal
}

// walkPlan is what a walk's seed decides before its first step.
type walkPlan struct {
	swarm     bool
	seed      uint64 // the swarm seed the class weights follow from
	weights   []int  // classWeight per class, filled as classes are met
	patience  int    // novelty: steps without a new state before the walk ends
	fromStart int    // novelty: a walk starts at the initial state with chance 1/fromStart
}

// weight returns the plan's weight of class.
func (p *walkPlan) weight(class int) int {
	for len(p.weights) <= class {
		p.weights = append(p.weights, classWeight(p.seed, len(p.weights)))
	}
	return p.weights[class]
}

// plan derives the next walk's plan from the worker's stream. A swarm walk
// also draws its patience and restart chance, so some walks dig deep from
// corpus states and others stay near the start.
func (w *worker[S, A, P]) plan() {
	p := &w.walkPlan
	p.swarm = w.opts.Swarm
	p.patience = w.opts.Patience
	p.fromStart = restartFromInitial
	if !p.swarm {
		return
	}
	p.seed = w.rng.pcg.Uint64()
	p.weights = p.weights[:0]
	p.patience = max(1, w.opts.Patience/2) << (p.seed >> 60 % patienceChoices)
	if p.seed>>58&1 == 1 {
		p.fromStart = 2 * restartFromInitial
	}
}

// chooseWeighted picks one of w.actions with probability proportional to
// its class weight; when every enabled class is switched off it picks
// uniformly, so a walk never stalls on its weights.
func (w *worker[S, A, P]) chooseWeighted() int {
	w.cumulative = w.cumulative[:0]
	total := 0
	for i := range w.actions {
		total += w.walkPlan.weight(w.classes.class(&w.actions[i]))
		w.cumulative = append(w.cumulative, total)
	}
	if total == 0 {
		return w.rng.below(len(w.actions))
	}
	r := w.rng.below(total)
	for i, c := range w.cumulative {
		if r < c {
			return i
		}
	}
	return len(w.actions) - 1
}
