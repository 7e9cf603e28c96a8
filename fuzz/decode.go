package fuzz

import "github.com/kvcheck/kvcheck/model"

// maxDecodeSteps bounds a decoded trace, so that forced moves (one enabled
// action, which take no byte) cannot run forever.
const maxDecodeSteps = 1 << 12

// Decode turns data into a trace of sp, one byte per choice: in a state
// with several enabled actions the next byte, modulo their number, picks
// one; a state with one enabled action takes it without a byte. It stops
// when a choice finds no byte left, no action is enabled, or an invariant
// breaks, and returns the violation then (a deadlock too). Every byte
// string decodes, so go test -fuzz inputs, whatever the fuzzer mutates,
// are traces.
func Decode[S, A any, P model.Spec[S, A]](sp P, data []byte) ([]A, *Violation[A]) {
	invariants := sp.Invariants()
	s := sp.Initial()
	var trace, enabled []A
	if v := violationIn(invariants, &s, trace); v != nil {
		return trace, v
	}
	for len(trace) < maxDecodeSteps {
		enabled = sp.Actions(&s, enabled[:0])
		if len(enabled) == 0 {
			if deadlocked[S, A](sp, &s) {
				return trace, &Violation[A]{
					Key:     Key{Invariant: model.DeadlockInvariant},
					Message: "no action is enabled and the state is not terminal",
					Trace:   trace,
				}
			}
			break
		}
		k := 0
		if len(enabled) > 1 {
			if len(data) == 0 {
				break
			}
			k = int(data[0]) % len(enabled)
			data = data[1:]
		}
		s = sp.Next(&s, enabled[k])
		trace = append(trace, enabled[k])
		if v := violationIn(invariants, &s, trace); v != nil {
			return trace, v
		}
	}
	return trace, nil
}

// Encode is Decode's inverse on a trace of sp: the bytes that make Decode
// take exactly these actions (a seed corpus entry from a trace). It fails
// like FirstViolation when an action is not enabled.
func Encode[S, A any](sp model.Spec[S, A], trace []A) ([]byte, error) {
	s := sp.Initial()
	var data []byte
	var enabled []A
	for i, a := range trace {
		enabled = sp.Actions(&s, enabled[:0])
		k := indexOf(sp, enabled, sp.ActionString(a))
		if k < 0 {
			_, err := FirstViolation(sp, trace[:i+1])
			return nil, err
		}
		if len(enabled) > 1 {
			data = append(data, byte(k))
		}
		s = sp.Next(&s, enabled[k])
	}
	return data, nil
}
