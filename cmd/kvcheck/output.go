package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// checkedWriter is the standard output every command prints to: it keeps
// the first write error (a full disk, /dev/full, a closed pipe) so that
// run reports it and exits non-zero instead of exiting 0 with a report cut
// short. After an error it drops what follows.
type checkedWriter struct {
	w   io.Writer
	err error
	n   int64 // bytes written
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

// finish flushes what the destination holds for a regular file (so a full
// disk that only shows at the flush is still reported) and returns the
// first error.
func (c *checkedWriter) finish() error {
	if c.err != nil {
		return c.err
	}
	if f, ok := underlying(c).(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if err := f.Sync(); err != nil {
				c.err = err
			}
		}
	}
	return c.err
}

// lastLineWriter is the standard error every command prints to; it
// remembers the last line written, so run can tell whether a usage error
// already ended with the command that reproduces it.
type lastLineWriter struct {
	w    io.Writer
	last []byte // the last complete line, or the incomplete one being written
	done bool   // last is complete
}

func (l *lastLineWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	data := p[:n]
	for len(data) > 0 {
		if l.done {
			l.last, l.done = l.last[:0], false
		}
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			l.last = append(l.last, data...)
			break
		}
		l.last = append(l.last, data[:i]...)
		l.done = true
		data = data[i+1:]
	}
	return n, err
}

// endsWithReproduce reports whether the last line written is a
// "reproduce: ..." line (indented or not).
func (l *lastLineWriter) endsWithReproduce() bool {
	return strings.HasPrefix(strings.TrimSpace(string(l.last)), "reproduce: ")
}

// commandLine is the command the user typed, args quoted for a POSIX
// shell where they need it and each cut to maxArgQuoted bytes (a path is
// kept whole; a typo of a thousand characters is not): the reproduce line
// of a usage error and of an --out that refused to write.
func commandLine(args []string) string {
	parts := []string{commandName()}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// maxArgQuoted bounds each argument a reproduce line repeats.
const maxArgQuoted = 240

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./=:,+@%; a string longer than maxArgQuoted is cut
// with "...".
func shellQuote(s string) string {
	cut := ""
	if len(s) > maxArgQuoted {
		s, cut = s[:maxArgQuoted], "..."
	}
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s + cut
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" + cut
}

// outputError is what run prints when the standard output could not be
// written: what failed and how much was printed.
func outputError(command string, c *checkedWriter) string {
	return fmt.Sprintf("kvcheck%s: writing the standard output failed after %d bytes: %v; the output is incomplete", command, c.n, c.err)
}

// underlying is the writer run wrapped in a checkedWriter or a
// lastLineWriter (to ask whether it is a terminal), else w.
func underlying(w io.Writer) io.Writer {
	switch x := w.(type) {
	case *checkedWriter:
		return x.w
	case *lastLineWriter:
		return x.w
	}
	return w
}
