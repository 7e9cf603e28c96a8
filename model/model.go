// Package model is kvcheck's model-checking engine. It knows nothing about KV
// caches: it explores any Spec that offers an initial state, the actions
// enabled in a state (in a deterministic order), the next state for an
// action, a fingerprint, and named invariants and goals, in the manner of
// stateright's Model (always / sometimes properties).
//
// Every source of nondeterminism in a spec must be an action, so a trace of
// actions replays exactly.
package model

// Spec is a finite transition system the checker explores.
//
// S is a compact state value (fixed-size arrays, no pointers, maps or
// slices), copied by value. A is an action value; it must print through
// ActionString as one line that the spec can parse back.
type Spec[S any, A any] interface {
	// Initial returns the single initial state.
	Initial() S
	// Actions appends the actions enabled in s to out, in a deterministic
	// order, and returns it. A state with no enabled action is terminal; it
	// is a deadlock unless the spec also implements Terminator and says so.
	Actions(s *S, out []A) []A
	// Next returns the state that action a leads to from s. It must not
	// modify *s. a is one of the actions Actions returned for s.
	Next(s *S, a A) S
	// Fingerprint returns a 64-bit hash of s. Equal states must have equal
	// fingerprints; the checker treats equal fingerprints as equal states.
	Fingerprint(s *S) uint64
	// Invariants returns the safety properties checked in every reached state.
	Invariants() []Invariant[S]
	// Goals returns the reachability goals ("sometimes" properties).
	Goals() []Goal[S]
	// ActionString renders an action as one transcript line.
	ActionString(a A) string
}

// NextWriter is implemented by specs that can write a successor into a
// state the checker owns, so that a successor is written once, in place,
// instead of being returned by value and copied (a spec state is a few
// kilobytes): NextInto sets *dst to exactly what Next(s, a) returns. dst
// is never s; it holds an earlier successor, whose bytes NextInto must
// overwrite. The checker calls it, when the spec implements it, wherever
// it would call Next while it searches. It is optional.
type NextWriter[S any, A any] interface {
	NextInto(dst *S, s *S, a A)
}

// Terminator is implemented by specs that have legitimate end states. A
// state with no enabled action for which IsTerminal is false is reported as
// a deadlock.
type Terminator[S any] interface {
	IsTerminal(s *S) bool
}

// Invariant is a named safety property that must hold in every reachable
// state.
type Invariant[S any] struct {
	// Name is short and stable (kebab-case); it names the property in
	// reports, transcripts and the CLI.
	Name string
	// Doc says in one line what the property asserts and why it matters.
	Doc string
	// Check returns nil when the property holds in s, else a Failure that
	// says where (rank, pool, request) and how it broke.
	Check func(s *S) *Failure
	// Part, when set, is Check for one part of a Partitioned spec's state
	// (a rank): it reads only the state's head and part r, and Check(s) is
	// Part(s, r) for the first r where that is not nil, or nil. The
	// checker then evaluates the Part invariants once per distinct head
	// and part, not once per state (the states of a multi-rank search
	// hold few distinct ranks), and Check only where one fails.
	Part func(s *S, r int) *Failure
}

// Failure describes one violation of an invariant in one state.
type Failure struct {
	// Message is the human-readable description, including the exact error
	// text of the real code where there is one.
	Message string
	// Group classifies the failure mechanism (for example the raising
	// function and error text) so that a keep-going search can collect one
	// shortest counterexample per distinct mechanism. Empty means "the
	// invariant name alone".
	Group string
}

// Goal is a named reachability property: some reachable state must satisfy
// it, so a scenario that never reaches the interesting region fails instead
// of passing vacuously.
type Goal[S any] struct {
	Name    string
	Doc     string
	Reached func(s *S) bool
}
