package lin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// HeaderVersion is the value of "kvcheck_history" in a history's header.
const HeaderVersion = 1

// Header is the optional first line of a history: the configuration the
// engine ran, which fixes the pool sizes, tokens per block, IndexMapper
// slots, resume gate and the prompt families of the requests.
type Header struct {
	Version int `json:"kvcheck_history"`
	// Scenario names a built-in scenario whose configuration applies when
	// Config is empty.
	Scenario string `json:"scenario,omitempty"`
	// Config is a configuration text (spec.FormatConfig), applied to the
	// zero configuration.
	Config string `json:"config,omitempty"`
}

// Record is one line of a history: one operation on the KV cache of one
// request in one pool of one rank, with what it returned and when it was
// called and returned.
type Record struct {
	// Line is the 1-based line of the record in its file (not in JSON).
	Line int `json:"-"`
	// Engine (optional, 0 when absent) tells engine instances apart in a
	// history merged from several replicas; each is checked on its own.
	Engine  int    `json:"engine,omitempty"`
	Rank    int    `json:"rank"`
	Pool    string `json:"pool"`
	Request int    `json:"request"`
	Op      string `json:"op"`
	// Args holds the operation's arguments: create {reuse, prompt}, resize
	// {capacity, history} (null for None), commit {tokens, last}; the other
	// operations take none.
	Args   map[string]any `json:"args,omitempty"`
	Result ResultRecord   `json:"result"`
	Call   int64          `json:"call"`
	Return int64          `json:"return"`

	op   spec.CacheOp
	pool spec.PoolKind
}

// ResultRecord is what the operation returned: {"ok": bool} (create adds
// "reused": the reused prefix in tokens) or {"raise": "exception text"}.
type ResultRecord struct {
	OK     *bool   `json:"ok,omitempty"`
	Reused *int    `json:"reused,omitempty"`
	Raise  *string `json:"raise,omitempty"`
}

// History is a parsed history file.
type History struct {
	File    string
	Header  *Header
	Records []Record
}

// InputError is a malformed history: the file, the 1-based line and what
// was expected there.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Parse reads a history in JSON lines: an optional header line
// {"kvcheck_history": 1, ...}, then one Record per line; blank lines are
// skipped. Every field of a record is required and unknown fields are
// errors, reported with the line and what was expected.
func Parse(file string, r io.Reader) (*History, error) {
	h := &History{File: file}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for scanner.Scan() {
		line++
		text := bytes.TrimSpace(scanner.Bytes())
		if len(text) == 0 {
			continue
		}
		fail := func(format string, args ...any) error {
			return &InputError{file, line, fmt.Sprintf(format, args...)}
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(text, &fields); err != nil {
			return nil, fail("expected one JSON object per line: %v", err)
		}
		if _, ok := fields["kvcheck_history"]; ok {
			if h.Header != nil || len(h.Records) > 0 {
				return nil, fail("a header line after the first line; expected the header {\"kvcheck_history\": 1, ...} only as the first line")
			}
			hdr, err := parseHeader(fields)
			if err != nil {
				return nil, fail("%v", err)
			}
			h.Header = hdr
			continue
		}
		rec, err := parseRecord(fields)
		if err != nil {
			return nil, fail("%v", err)
		}
		rec.Line = line
		h.Records = append(h.Records, rec)
	}
	if err := scanner.Err(); err != nil {
		return nil, &InputError{file, line + 1, fmt.Sprintf("cannot read the line: %v", err)}
	}
	return h, nil
}

func parseHeader(fields map[string]json.RawMessage) (*Header, error) {
	var hdr Header
	for key, raw := range fields {
		var err error
		switch key {
		case "kvcheck_history":
			err = json.Unmarshal(raw, &hdr.Version)
			if err == nil && hdr.Version != HeaderVersion {
				err = fmt.Errorf("version %d, expected %d", hdr.Version, HeaderVersion)
			}
		case "scenario":
			err = json.Unmarshal(raw, &hdr.Scenario)
		case "config":
			err = json.Unmarshal(raw, &hdr.Config)
		default:
			return nil, fmt.Errorf("header: unknown field %q; expected kvcheck_history, scenario, config", key)
		}
		if err != nil {
			return nil, fmt.Errorf("header: %s: %v", key, err)
		}
	}
	return &hdr, nil
}

// recordFields are the fields of a record, in the order errors name them.
var recordFields = []struct{ key, doc string }{
	{"rank", "the rank, an integer >= 0"},
	{"pool", `the pool, "target" or "draft"`},
	{"request", fmt.Sprintf("the request ID, 0..%d (0 is the attention-DP dummy)", spec.MaxIDs-1)},
	{"op", "the operation: create, resume, suspend, resize, commit or close"},
	{"result", `what it returned: {"ok": true|false} (create: and "reused": N) or {"raise": "text"}`},
	{"call", "the invocation timestamp, an integer"},
	{"return", "the response timestamp, an integer >= call"},
}

func parseRecord(fields map[string]json.RawMessage) (Record, error) {
	var rec Record
	known := map[string]bool{"args": true, "engine": true}
	for _, f := range recordFields {
		known[f.key] = true
		if _, ok := fields[f.key]; !ok {
			return rec, fmt.Errorf("missing %q (%s)", f.key, f.doc)
		}
	}
	var unknown []string
	for key := range fields {
		if !known[key] {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return rec, fmt.Errorf("unknown field %q; expected rank, pool, request, op, args, result, call, return (and optionally engine)", unknown[0])
	}
	decode := func(key string, dst any) error {
		dec := json.NewDecoder(bytes.NewReader(fields[key]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err != nil {
			return fmt.Errorf("%s: %v; expected %s", key, err, docOf(key))
		}
		return nil
	}
	for _, f := range []struct {
		key string
		dst any
	}{{"rank", &rec.Rank}, {"pool", &rec.Pool}, {"request", &rec.Request}, {"op", &rec.Op},
		{"result", &rec.Result}, {"call", &rec.Call}, {"return", &rec.Return}} {
		if err := decode(f.key, f.dst); err != nil {
			return rec, err
		}
	}
	if raw, ok := fields["engine"]; ok {
		if err := decode("engine", &rec.Engine); err != nil || rec.Engine < 0 {
			return rec, fmt.Errorf("engine %s; expected an integer >= 0 (the engine instance)", raw)
		}
	}
	if rec.Rank < 0 {
		return rec, fmt.Errorf("rank %d; expected %s", rec.Rank, docOf("rank"))
	}
	switch rec.Pool {
	case "target":
		rec.pool = spec.Target
	case "draft":
		rec.pool = spec.Draft
	default:
		return rec, fmt.Errorf("pool %q; expected %s", rec.Pool, docOf("pool"))
	}
	if rec.Request < 0 || rec.Request >= spec.MaxIDs {
		return rec, fmt.Errorf("request %d; expected %s (a recorder maps engine request IDs onto the configuration's requests)", rec.Request, docOf("request"))
	}
	if rec.Call > rec.Return {
		return rec, fmt.Errorf("call %d after return %d; expected call <= return", rec.Call, rec.Return)
	}
	kind, err := spec.ParseCacheOpKind(rec.Op)
	if err != nil {
		return rec, err
	}
	rec.op = spec.CacheOp{Kind: kind, ID: uint8(rec.Request), Capacity: spec.CacheKeep, History: spec.CacheKeep}
	if err := parseArgs(&rec, fields["args"]); err != nil {
		return rec, err
	}
	return rec, checkResult(&rec)
}

func docOf(key string) string {
	for _, f := range recordFields {
		if f.key == key {
			return f.doc
		}
	}
	return key
}

// argSpec lists each operation's arguments.
var argSpec = map[spec.CacheOpKind][]string{
	spec.CacheCreate: {"reuse", "prompt"},
	spec.CacheResize: {"capacity", "history"},
	spec.CacheCommit: {"tokens", "last"},
}

func parseArgs(rec *Record, raw json.RawMessage) error {
	want := argSpec[rec.op.Kind]
	var args map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return fmt.Errorf("args: expected an object: %v", err)
		}
	}
	for key := range args {
		if !contains(want, key) {
			if len(want) == 0 {
				return fmt.Errorf("args: %s takes no arguments, got %q", rec.Op, key)
			}
			return fmt.Errorf("args: unknown argument %q of %s; expected %s", key, rec.Op, strings.Join(want, ", "))
		}
	}
	for _, key := range want {
		if _, ok := args[key]; !ok {
			return fmt.Errorf("args: %s needs %q (expected args %s)", rec.Op, key, strings.Join(want, ", "))
		}
	}
	rec.Args = map[string]any{}
	tokens := func(key string, allowNull bool) (int, error) {
		if string(args[key]) == "null" {
			if allowNull {
				rec.Args[key] = nil
				return spec.CacheKeep, nil
			}
			return 0, fmt.Errorf("args: %s is null; expected a token count 0..%d", key, spec.MaxTokens)
		}
		var n int
		if err := json.Unmarshal(args[key], &n); err != nil || n < 0 || n > spec.MaxTokens {
			what := fmt.Sprintf("a token count 0..%d", spec.MaxTokens)
			if allowNull {
				what += " or null (None)"
			}
			return 0, fmt.Errorf("args: %s is %s; expected %s", key, args[key], what)
		}
		rec.Args[key] = n
		return n, nil
	}
	flag := func(key string) (bool, error) {
		var b bool
		if err := json.Unmarshal(args[key], &b); err != nil {
			return false, fmt.Errorf("args: %s is %s; expected true or false", key, args[key])
		}
		rec.Args[key] = b
		return b, nil
	}
	var err error
	switch rec.op.Kind {
	case spec.CacheCreate:
		if rec.op.Reuse, err = flag("reuse"); err != nil {
			return err
		}
		var n int
		if n, err = tokens("prompt", false); err != nil {
			return err
		}
		rec.op.Prompt = uint8(n)
	case spec.CacheResize:
		if rec.op.Capacity, err = tokens("capacity", true); err != nil {
			return err
		}
		if rec.op.History, err = tokens("history", true); err != nil {
			return err
		}
	case spec.CacheCommit:
		var n int
		if n, err = tokens("tokens", false); err != nil {
			return err
		}
		rec.op.Tokens = uint8(n)
		if rec.op.Last, err = flag("last"); err != nil {
			return err
		}
	}
	if len(rec.Args) == 0 {
		rec.Args = nil
	}
	return nil
}

// checkResult checks the result's shape for the operation.
func checkResult(rec *Record) error {
	r := rec.Result
	switch {
	case r.Raise != nil && (r.OK != nil || r.Reused != nil):
		return errors.New(`result: "raise" comes alone; expected {"raise": "text"} or {"ok": ...}`)
	case r.Raise == nil && r.OK == nil:
		return errors.New(`result: expected {"ok": true|false} or {"raise": "text"}`)
	case r.Reused != nil && (rec.op.Kind != spec.CacheCreate || !*r.OK):
		return errors.New(`result: "reused" belongs only to a create that returned a cache ("ok": true)`)
	case rec.op.Kind == spec.CacheCreate && r.OK != nil && *r.OK && r.Reused == nil:
		return errors.New(`result: a create that returned a cache needs "reused": the reused prefix in tokens`)
	case r.Reused != nil && (*r.Reused < 0 || *r.Reused > spec.MaxTokens):
		return fmt.Errorf("result: reused %d; expected a token count 0..%d", *r.Reused, spec.MaxTokens)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Write writes a history as JSON lines: the header, if any, then one line
// per record.
func Write(w io.Writer, hdr *Header, records []Record) error {
	enc := json.NewEncoder(w)
	if hdr != nil {
		if err := enc.Encode(hdr); err != nil {
			return err
		}
	}
	for i := range records {
		if err := enc.Encode(&records[i]); err != nil {
			return err
		}
	}
	return nil
}
