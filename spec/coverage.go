package spec

import (
	"strings"
	"sync/atomic"
)

// Branch names one distinct behaviour of the real code that the spec
// models (a refusal, a raise, a fallback, an eviction rung, a fix's code
// path), so a run can report whether it exercised it. A branch is declared
// with one line next to the code that models it:
//
//	var brResumeRefused = newBranch("resume-refused", "_KVCache.resume: utilization above max_util_for_resume")
//
// and marked where the behaviour happens with v.hit(brResumeRefused) (or
// sp.hit on a *Spec). Marking costs a nil check when no coverage is
// collected.
type Branch uint16

// branchDef is one registered branch: its stable name, the TensorRT-LLM
// function (and branch of it) it models, and, when no built-in scenario
// reaches it, why (TestEveryMechanismReachedOrExcused keeps that exact).
type branchDef struct {
	name      string
	models    string
	unreached string
}

// branchDefs is the registry newBranch fills at package initialization.
var branchDefs []branchDef

// newBranch registers a branch. Names are unique (a duplicate panics at
// init, so it cannot ship). unreached, for a branch no built-in scenario
// reaches, is the one reason why (CoverageException returns it).
func newBranch(name, models string, unreached ...string) Branch {
	for _, d := range branchDefs {
		if d.name == name {
			panic("spec: branch " + name + " registered twice")
		}
	}
	if len(unreached) > 1 {
		panic("spec: branch " + name + " has more than one coverage exception")
	}
	branchDefs = append(branchDefs, branchDef{name: name, models: models, unreached: strings.Join(unreached, "")})
	return Branch(len(branchDefs) - 1)
}

// Name is the branch's stable name.
func (b Branch) Name() string { return branchDefs[b].name }

// Models names the real function and branch the spec branch models.
func (b Branch) Models() string { return branchDefs[b].models }

// Branches lists every registered branch in registration order.
func Branches() []Branch {
	out := make([]Branch, len(branchDefs))
	for i := range out {
		out[i] = Branch(i)
	}
	return out
}

// Coverage counts what the spec's transitions exercised: per action kind,
// per registered branch, and per exception the real code raises. It is an
// optional sink: set Spec.Cover to collect, leave it nil for none. The
// counts never feed back into a state, so the spec stays deterministic;
// the counters are atomic because the checker's workers call Next
// concurrently.
type Coverage struct {
	actions  [numActionKinds]atomic.Uint64
	raises   []atomic.Uint64
	branches []atomic.Uint64
}

// NewCoverage returns an empty coverage sink sized for every branch.
func NewCoverage() *Coverage {
	return &Coverage{raises: make([]atomic.Uint64, len(errorRegistry)), branches: make([]atomic.Uint64, len(branchDefs))}
}

// hit counts one pass through branch b.
func (c *Coverage) hit(b Branch) {
	if c != nil {
		c.branches[b].Add(1)
	}
}

// transition counts one Next from s by a to next: the action kind and,
// when it raised, the exception.
func (c *Coverage) transition(s *State, a *Action, next *State) {
	if a.Kind < numActionKinds {
		c.actions[a.Kind].Add(1)
	}
	if next.Crash.Happened && !s.Crash.Happened {
		c.raises[next.Crash.Error].Add(1)
	}
}

// hit counts branch b in the rank view's coverage sink, if any.
func (v rankView) hit(b Branch) { v.cov.hit(b) }

// hit counts branch b in the spec's coverage sink, if any.
func (sp *Spec) hit(b Branch) { sp.Cover.hit(b) }

// CoverageKind says what a coverage row counts.
type CoverageKind string

// The kinds of coverage rows, in the order a table lists them.
const (
	CoverAction CoverageKind = "action"
	CoverBranch CoverageKind = "branch"
	CoverRaise  CoverageKind = "raise"
)

// CoverageRow is one mechanism with the number of transitions that
// exercised it.
type CoverageRow struct {
	Kind CoverageKind
	Name string
	// Models is the real code the row stands for.
	Models string
	Count  uint64
}

// Rows returns every mechanism the coverage can count, reached or not: the
// action kinds, the registered branches, then the exceptions.
func (c *Coverage) Rows() []CoverageRow {
	var out []CoverageRow
	for k := ActArrive; k < numActionKinds; k++ {
		out = append(out, CoverageRow{Kind: CoverAction, Name: k.String(), Models: actionModels[k], Count: c.actions[k].Load()})
	}
	for i := range c.branches {
		b := Branch(i)
		out = append(out, CoverageRow{Kind: CoverBranch, Name: b.Name(), Models: b.Models(), Count: c.branches[i].Load()})
	}
	for e := ErrNone + 1; int(e) < len(errorRegistry); e++ {
		out = append(out, CoverageRow{Kind: CoverRaise, Name: raiseName(e), Models: errorKind(e), Count: c.raises[e].Load()})
	}
	return out
}

// Add adds the counts of o to c.
func (c *Coverage) Add(o *Coverage) {
	for i := range c.actions {
		c.actions[i].Add(o.actions[i].Load())
	}
	for i := range c.raises {
		c.raises[i].Add(o.raises[i].Load())
	}
	for i := range c.branches {
		c.branches[i].Add(o.branches[i].Load())
	}
}

// actionModels names the real code each action kind runs.
var actionModels = [numActionKinds]string{
	ActArrive:           "request fetch at the start of _prepare_and_schedule_batch (environment)",
	ActSchedule:         "_prepare_and_schedule_batch: KVCacheV2Scheduler.schedule_request",
	ActPrepareResources: "ResourceManager.prepare_resources (_prepare_draft_resources)",
	ActForward:          "forward, sampling and _update_request_states",
	ActUpdate:           "_update_v2_context_resources, _handle_responses, update_resources",
	ActFetch:            "attention-DP allgather in _fetch_and_activate_new_requests",
	ActCanQueue:         "PyExecutor._can_queue",
	ActUpdateResources:  "_executor_loop_overlap: _process_previous_batch or its deferral",
	ActReceiveKV:        "disaggregated KV transfer completes (environment)",
	ActHandle:           "_executor_loop_pp: _handle_executed_batch",
}

// Key is the row's mechanism as reports and reaches: name it: "KIND NAME".
func (r CoverageRow) Key() string { return string(r.Kind) + " " + r.Name }

// row returns the row of mechanism key, and whether key names one.
func (c *Coverage) row(key string) (CoverageRow, bool) {
	for _, row := range c.Rows() {
		if row.Key() == key {
			return row, true
		}
	}
	return CoverageRow{}, false
}

// Count returns how many transitions exercised mechanism key ("KIND
// NAME", as Rows lists them), and whether key names one.
func (c *Coverage) Count(key string) (uint64, bool) {
	row, ok := c.row(key)
	return row.Count, ok
}

// MechanismModels returns the real code mechanism key ("KIND NAME")
// models, and whether key names a mechanism.
func MechanismModels(key string) (string, bool) {
	row, ok := NewCoverage().row(key)
	return row.Models, ok
}

// CoverageException returns why mechanism name of kind is not reached by
// the built-in scenarios, or "" when it should be: the reason declared
// with the branch (newBranch) or the raise (errorRegistry, defineRaise).
func CoverageException(kind CoverageKind, name string) string {
	switch kind {
	case CoverBranch:
		for _, d := range branchDefs {
			if d.name == name {
				return d.unreached
			}
		}
	case CoverRaise:
		for _, d := range errorRegistry {
			if d.name == name {
				return d.unreached
			}
		}
	}
	return ""
}
