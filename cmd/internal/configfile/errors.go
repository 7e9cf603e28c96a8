package configfile

import "fmt"

// Error is a configuration file error at a line (1-based; 0 when it
// concerns the whole file).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// maxQuoted bounds how much of a value a message quotes.
const maxQuoted = 60

// quote is %q of s, cut to maxQuoted bytes with "..." when longer.
func quote(s string) string {
	if len(s) > maxQuoted {
		return fmt.Sprintf("%q...", s[:maxQuoted])
	}
	return fmt.Sprintf("%q", s)
}
