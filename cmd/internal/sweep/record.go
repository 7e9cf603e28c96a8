package sweep

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Results of a configuration's check.
const (
	ResultOK        = "ok"
	ResultViolation = "violation"
	// ResultIncomplete is a report's result (never a record's) when no
	// configuration breaks an invariant but not every needed one was
	// checked, or a search was cut by --depth or --max-states: nothing is
	// proved, so the word is not ok.
	ResultIncomplete = "incomplete"
)

// Record is what the check of one configuration found: one JSON line of a
// shard's output, and one entry of the results cache.
type Record struct {
	// Index is the configuration's position in the space, smallest first.
	Index  int    `json:"index"`
	Result string `json:"result"`
	// Invariant, Message and Trace are the violation's (a shortest trace);
	// Group is its model.Failure group (for a raise, the function, pool and
	// error), so distinct violations of one invariant stay apart; Cycle is
	// a livelock's cycle, after Trace (its stem).
	Invariant string   `json:"invariant,omitempty"`
	Message   string   `json:"message,omitempty"`
	Group     string   `json:"group,omitempty"`
	Trace     []string `json:"trace,omitempty"`
	Cycle     []string `json:"cycle,omitempty"`
	// Config is the configuration's text, kept for a violation.
	Config string `json:"config,omitempty"`
	// States is the search's distinct states; Complete says it exhausted
	// them.
	States   int  `json:"states"`
	Complete bool `json:"complete"`
	// Goals are the scenario goals the search reached.
	Goals []string `json:"goals,omitempty"`
	// Requests, Pages and Ranks are the configuration's size.
	Requests int `json:"requests"`
	Pages    int `json:"pages"`
	Ranks    int `json:"ranks"`
}

// Header opens a variant's records in a shard's output: what was swept,
// so that merge folds only records of the same sweep.
type Header struct {
	Scenario string   `json:"scenario"`
	Fixes    []string `json:"fixes"`
	// Total is the number of configurations in the space.
	Total int `json:"total"`
	// Shard is "i/n".
	Shard string `json:"shard"`
	// Space identifies the space and the search bounds (a hash of the base
	// configuration, the ranges and the bounds); Engine the spec and engine
	// sources. Shards merge only when both agree.
	Space  string `json:"space"`
	Engine string `json:"engine"`
	// Ranges and Base are the space's ranges and base configuration text,
	// to say what was swept and to re-check the seed configuration.
	Ranges []string `json:"ranges"`
	Base   string   `json:"base"`
	// ConfigFile is the --config file the scenario comes from, "" for a
	// built-in one; merge reads it again.
	ConfigFile string `json:"config_file,omitempty"`
	Search     Search `json:"search"`
	// KeepGoing says every configuration was checked past a violation.
	KeepGoing bool `json:"keep_going"`
	// Stopped says a --time budget stopped the shard before it was done.
	Stopped bool `json:"stopped"`
}

// line is one line of a shard's JSON-lines output: a header or a record.
type line struct {
	Sweep  *Header `json:"sweep,omitempty"`
	Record *Record `json:"record,omitempty"`
}

// Writer writes a shard's JSON-lines output.
type Writer struct {
	w *bufio.Writer
}

// NewWriter writes to w; call Flush at the end.
func NewWriter(w io.Writer) *Writer { return &Writer{bufio.NewWriter(w)} }

// Header writes a variant's header line.
func (w *Writer) Header(h Header) error { return w.write(line{Sweep: &h}) }

// Record writes one record line.
func (w *Writer) Record(r Record) error { return w.write(line{Record: &r}) }

func (w *Writer) write(l line) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	_, err = w.w.Write(data)
	return err
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error { return w.w.Flush() }

// Part is one variant's header and records from one shard's output.
type Part struct {
	Header  Header
	Records []Record
}

// ReadParts reads a shard's JSON-lines output. Errors name the file and
// line and say what was expected.
func ReadParts(name string, r io.Reader) ([]Part, error) {
	var parts []Part
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		n++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || (l.Sweep == nil) == (l.Record == nil) {
			return nil, fmt.Errorf("%s:%d: expected a JSON object with \"sweep\" (a header) or \"record\", as kvcheck sweep --shard writes", name, n)
		}
		if l.Sweep != nil {
			parts = append(parts, Part{Header: *l.Sweep})
			continue
		}
		if len(parts) == 0 {
			return nil, fmt.Errorf("%s:%d: a record before any \"sweep\" header", name, n)
		}
		p := &parts[len(parts)-1]
		if l.Record.Index < 0 || l.Record.Index >= p.Header.Total {
			return nil, fmt.Errorf("%s:%d: record index %d outside the sweep's %d configurations", name, n, l.Record.Index, p.Header.Total)
		}
		p.Records = append(p.Records, *l.Record)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return parts, nil
}
