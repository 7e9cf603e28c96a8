package main

import (
	"fmt"
	"io"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// runHooks is what check and fuzz both set up before their variants: the
// verdicts the gate expects (--expect), the coverage sink (--cover), the
// interrupt watcher and the progress line (interrupt.go, progress.go).
type runHooks struct {
	gate         gateMode
	expect       string    // --expect FILE: verdicts overriding the scenarios' (verdicts.go)
	coverage     *coverage // --cover: what the run exercised (cover.go); nil without
	interrupt    *interrupter
	showProgress bool
	progress     *progressLine
	// quiet (--quiet) prints only the outcome: the verdicts that differ or
	// are incomplete, with what shows them, and the reproduce lines.
	quiet bool
}

// start reads --expect, makes the coverage sink when cover is set, then
// starts watching for SIGINT and SIGTERM and the progress line. On success
// the caller defers h.interrupt.release().
func (h *runHooks) start(cover bool, stderr io.Writer) error {
	if h.expect != "" {
		overrides, err := readExpectations(h.expect, scenario.All())
		if err != nil {
			return fmt.Errorf("--expect: %v", err)
		}
		h.gate.overrides = overrides
	}
	if cover {
		h.coverage = newCoverage()
	}
	h.interrupt = watchInterrupts()
	h.progress = newProgress(stderr, h.showProgress)
	return nil
}
