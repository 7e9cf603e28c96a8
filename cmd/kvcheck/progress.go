package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressLine is the progress report of check and fuzz on stderr: one
// line about the variant being searched, shown once a variant has run for
// progressDelay, redrawn in place on a terminal and printed as a new line
// every second otherwise (--progress).
type progressLine struct {
	w        io.Writer
	enabled  bool
	terminal bool
	name     string
	start    time.Time
	last     time.Time
	shown    bool
}

// progressDelay is how long a variant runs before its progress shows (a
// variable so a test need not wait).
var progressDelay = time.Second

// newProgress reports on stderr when it is a terminal or forced is set.
func newProgress(stderr io.Writer, forced bool) *progressLine {
	p := &progressLine{w: stderr, enabled: forced}
	if f, ok := underlying(stderr).(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			p.enabled, p.terminal = true, true
		}
	}
	return p
}

// begin starts the report of one variant.
func (p *progressLine) begin(name string) {
	p.name, p.start, p.last = name, time.Now(), time.Time{}
}

// update shows the line text returns, given the variant's elapsed time,
// at most four times a second on a terminal and once a second otherwise.
func (p *progressLine) update(text func(elapsed time.Duration) string) {
	if p == nil || !p.enabled {
		return
	}
	now := time.Now()
	elapsed := now.Sub(p.start)
	interval := time.Second
	if p.terminal {
		interval = time.Second / 4
	}
	if elapsed < progressDelay || now.Sub(p.last) < interval {
		return
	}
	p.last = now
	line := fmt.Sprintf("%s: %s", p.name, text(elapsed))
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.shown = true
}

// end clears a terminal's line before the report goes on.
func (p *progressLine) end() {
	if p != nil && p.terminal && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// perSecond is n per second of elapsed.
func perSecond(n int, elapsed time.Duration) int {
	if elapsed <= 0 {
		return 0
	}
	return int(float64(n) / elapsed.Seconds())
}

// variantLabel is "scenario (fixes)" for the progress line.
func variantLabel(v variant) string {
	return fmt.Sprintf("%s (%s)", v.scenario.Name, v.fixes.Label())
}
