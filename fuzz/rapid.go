package fuzz

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kvcheck/kvcheck/model"
	"pgregory.net/rapid"
)

// RapidStateMachine returns a rapid property that runs sp as a rapid state
// machine (rapid.T.Repeat). Its one action, "step", draws a class among the
// classes of the enabled actions (ActionClasses, or the first word of the
// transcript line), then an action of that class, and applies it; the ""
// action checks every invariant and deadlock after each step. A rapid
// action per class would be skipped whenever its class is not enabled,
// which in this spec is most of the time, and rapid gives up on a walk
// after a hundred skips in a row. In a state with no enabled action the
// step does nothing. onFailure, if not nil, receives each failing run's
// violation; rapid replays its shrunk case last, so the last call carries
// rapid's own minimum.
func RapidStateMachine[S, A any](sp model.Spec[S, A], onFailure func(*Violation[A])) func(*rapid.T) {
	classes := newClassifier[A](sp, sp.ActionString)
	invariants := sp.Invariants()
	progress, _ := sp.(model.Progressor[S, A])
	return func(t *rapid.T) {
		s := sp.Initial()
		var watch cycleWatch // livelocks, as in walks (livelock.go)
		var trace, enabled, ofClass []A
		var enabledClasses []int
		step := func(t *rapid.T) {
			enabled = sp.Actions(&s, enabled[:0])
			if len(enabled) == 0 {
				return
			}
			enabledClasses = enabledClasses[:0]
			for i := range enabled {
				if c := classes.class(&enabled[i]); !slices.Contains(enabledClasses, c) {
					enabledClasses = append(enabledClasses, c)
				}
			}
			slices.Sort(enabledClasses)
			class := rapid.SampledFrom(enabledClasses).Draw(t, "class")
			ofClass = ofClass[:0]
			for i := range enabled {
				if classes.class(&enabled[i]) == class {
					ofClass = append(ofClass, enabled[i])
				}
			}
			a := ofClass[rapid.IntRange(0, len(ofClass)-1).Draw(t, "choice")]
			t.Log(sp.ActionString(a))
			next := sp.Next(&s, a)
			watchStep(&watch, progress, &s, a, &next)
			s = next
			trace = append(trace, a)
		}
		check := func(t *rapid.T) {
			v := violationIn(invariants, &s, trace)
			if v == nil && deadlocked(sp, &s) {
				v = &Violation[A]{Key: Key{Invariant: model.DeadlockInvariant},
					Message: "no action is enabled and the state is not terminal", Trace: append([]A(nil), trace...)}
			}
			if fp := sp.Fingerprint(&s); v == nil && watch.returned(fp, progress != nil) {
				v = confirmLivelockAt(&watch, sp, s, fp, trace)
			}
			if v != nil {
				if onFailure != nil {
					onFailure(v)
				}
				t.Fatalf("%s: %s (after %d steps)", v.Key, v.Message, len(v.Trace))
			}
		}
		t.Repeat(map[string]func(*rapid.T){"step": step, "": check})
	}
}

// RapidOutcome is what one rapid.Check of a state machine reported.
type RapidOutcome[A any] struct {
	// Failed says rapid reported a failure.
	Failed bool
	// Report is what rapid wrote to its test harness.
	Report string
	// Violation is rapid's shrunk failing case (nil if none).
	Violation *Violation[A]
	// FirstFailure is the time from the start to the first failing run,
	// before rapid's shrinking.
	FirstFailure time.Duration
	Elapsed      time.Duration
}

// RunRapid runs RapidStateMachine(sp) under rapid.Check with a recording
// harness in place of a *testing.T, so that a failure is a value, not a
// failed test: this is how a test shows that rapid finds a crash without
// failing itself. seed is rapid's -rapid.seed (0: rapid picks one) and
// checks its -rapid.checks (0: rapid's default). It sets rapid's flags for
// the call (and -rapid.nofailfile, since the returned trace is the lasting
// record), so it needs the testing flags registered: it runs in a test
// binary, or after testing.Init and flag.Parse.
func RunRapid[S, A any](sp model.Spec[S, A], seed uint64, checks int) RapidOutcome[A] {
	restore := setFlags(map[string]string{
		"rapid.seed":       fmt.Sprint(seed),
		"rapid.checks":     fmt.Sprint(checks),
		"rapid.nofailfile": "true",
	}, checks == 0)
	defer restore()
	var out RapidOutcome[A]
	start := time.Now()
	prop := RapidStateMachine(sp, func(v *Violation[A]) {
		if out.Violation == nil {
			out.FirstFailure = time.Since(start)
		}
		out.Violation = v
	})
	h := &harness{}
	rapid.Check(h, prop)
	out.Failed, out.Report, out.Elapsed = h.failed, h.log.String(), time.Since(start)
	if !out.Failed {
		out.Violation = nil
	}
	return out
}

// setFlags sets rapid's flags and returns a function that restores them;
// with keepChecks the checks flag is left alone.
func setFlags(values map[string]string, keepChecks bool) func() {
	old := map[string]string{}
	for name, value := range values {
		f := flag.Lookup(name)
		if f == nil || (keepChecks && name == "rapid.checks") {
			continue
		}
		old[name] = f.Value.String()
		if err := f.Value.Set(value); err != nil {
			panic(fmt.Sprintf("fuzz: rapid flag %s=%s: %v", name, value, err))
		}
	}
	return func() {
		for name, value := range old {
			_ = flag.Lookup(name).Value.Set(value)
		}
	}
}

// harness is a rapid.TB that records instead of failing a test.
type harness struct {
	failed bool
	log    strings.Builder
}

func (h *harness) Helper()                           {}
func (h *harness) Name() string                      { return "kvcheck-fuzz-rapid" }
func (h *harness) Logf(format string, args ...any)   { fmt.Fprintf(&h.log, format+"\n", args...) }
func (h *harness) Log(args ...any)                   { fmt.Fprintln(&h.log, args...) }
func (h *harness) Skipf(format string, args ...any)  { h.Logf(format, args...) }
func (h *harness) Skip(args ...any)                  { h.Log(args...) }
func (h *harness) SkipNow()                          {}
func (h *harness) Errorf(format string, args ...any) { h.failed = true; h.Logf(format, args...) }
func (h *harness) Error(args ...any)                 { h.failed = true; h.Log(args...) }
func (h *harness) Fatalf(format string, args ...any) { h.Errorf(format, args...) }
func (h *harness) Fatal(args ...any)                 { h.Error(args...) }
func (h *harness) FailNow()                          { h.failed = true }
func (h *harness) Fail()                             { h.failed = true }
func (h *harness) Failed() bool                      { return h.failed }
