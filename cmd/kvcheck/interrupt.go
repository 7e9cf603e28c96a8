package main

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interrupter turns the first SIGINT or SIGTERM into a flag that check
// and fuzz poll between rounds of their searches, so they stop cleanly:
// what was found so far is reported and written, and the run exits with
// exitInterrupted. A second signal gets the default handling and kills
// the process.
type interrupter struct {
	signals chan os.Signal
	first   atomic.Value // the os.Signal received first
	done    chan struct{}
}

// watchInterrupts starts watching; release stops it.
func watchInterrupts() *interrupter {
	in := &interrupter{signals: make(chan os.Signal, 2), done: make(chan struct{})}
	signal.Notify(in.signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-in.signals:
			in.first.Store(s)
			signal.Reset(os.Interrupt, syscall.SIGTERM)
		case <-in.done:
		}
	}()
	return in
}

// stopped reports whether a signal arrived (never, for a nil
// interrupter).
func (in *interrupter) stopped() bool { return in != nil && in.first.Load() != nil }

// signalName names the signal that arrived ("SIGINT", "SIGTERM").
func (in *interrupter) signalName() string {
	if in == nil {
		return ""
	}
	if s, ok := in.first.Load().(os.Signal); ok {
		if s == syscall.SIGTERM {
			return "SIGTERM"
		}
		return "SIGINT"
	}
	return ""
}

// release stops watching.
func (in *interrupter) release() {
	signal.Stop(in.signals)
	close(in.done)
}
