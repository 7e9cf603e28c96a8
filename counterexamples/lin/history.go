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
	// Config is a configuration text (configtext.Format), applied to the
	// zero configuration at real sizes (configtext.ParseReal). In a file it
	// may also be written as an array of lines.
	Config string `json:"config,omitempty"`
	// Fixes names the fixes (kvcheck list) the engine's code has, when it
	// is not the modeled real code.
	Fixes []string `json:"fixes,omitempty"`
	// Source says where a history encoded from a test comes from (the
	// conformance corpus); Expect is "agree" (the spec explains the
	// history) or "disagree" (a documented expected disagreement), and
	// Reason says why a disagreement is expected.
	Source *Source `json:"source,omitempty"`
	Expect string  `json:"expect,omitempty"`
	Reason string  `json:"reason,omitempty"`
	// Derived says how a history of the fix corpus (conformance/fixes)
	// was derived: which operation of the fixed code it records, where no
	// TensorRT-LLM test asserts it. ExpectWithoutFixes is the verdict
	// ("agree" or "disagree") of the same history against the real code,
	// which such a case must differ in.
	Derived            string `json:"derived,omitempty"`
	ExpectWithoutFixes string `json:"expect_without_fixes,omitempty"`
	// Line is the 1-based line of the header in its file (not in JSON).
	Line int `json:"-"`
}

// Source is the TensorRT-LLM unit test a history encodes: its file, the
// test function (with its parameters), the commit it was read at, and what
// it asserts.
type Source struct {
	File     string `json:"file"`
	Test     string `json:"test"`
	Commit   string `json:"commit"`
	Asserts  string `json:"asserts"`
	Encoding string `json:"encoding,omitempty"`
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
	// Args holds the operation's arguments (argSpec lists them): create
	// {reuse, prompt}, create_kv_cache {tokens} (null for None), resize
	// {capacity, history} (null for None), commit {tokens, last},
	// probe_reuse {tokens}, update_resources {rewind, accepted, num_tokens,
	// state, kv_compression_manages_history}, try_allocate_generation
	// {draft_len}, prepare_draft_resources {phase, position, chunk, last,
	// draft_len}; the other operations take none.
	Args   map[string]any `json:"args,omitempty"`
	Result ResultRecord   `json:"result"`
	Call   int64          `json:"call"`
	Return int64          `json:"return"`

	op   spec.CacheOp
	pool spec.PoolKind
}

// ResultRecord is what the operation returned: {"ok": bool} or {"raise":
// "exception text"} ("ValueError" alone matches any ValueError). A create
// that returned a cache adds "reused": the reused prefix in tokens;
// probe_reuse and allocated_draft_len (when an entry exists) add "value";
// a manager step adds "resize": [capacity, history] (null for None), the
// resize it called, and leaves it out when it called none.
type ResultRecord struct {
	OK     *bool       `json:"ok,omitempty"`
	Reused *int        `json:"reused,omitempty"`
	Value  *int        `json:"value,omitempty"`
	Resize *ResizeArgs `json:"resize,omitempty"`
	Raise  *string     `json:"raise,omitempty"`
}

// ResizeArgs is a resize(capacity, history) call, nil for None.
type ResizeArgs [2]*int

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
			hdr.Line = line
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
			var lines []string
			if err = json.Unmarshal(raw, &lines); err == nil {
				hdr.Config = strings.Join(lines, "\n")
			} else {
				err = json.Unmarshal(raw, &hdr.Config)
			}
		case "fixes":
			err = json.Unmarshal(raw, &hdr.Fixes)
		case "source":
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			hdr.Source = &Source{}
			if err = dec.Decode(hdr.Source); err == nil && (hdr.Source.File == "" || hdr.Source.Test == "" || hdr.Source.Commit == "" || hdr.Source.Asserts == "") {
				err = errors.New(`expected {"file", "test", "commit", "asserts"} all given (and optionally "encoding")`)
			}
		case "expect":
			err = json.Unmarshal(raw, &hdr.Expect)
			if err == nil && hdr.Expect != "agree" && hdr.Expect != "disagree" {
				err = fmt.Errorf("%q; expected \"agree\" or \"disagree\"", hdr.Expect)
			}
		case "reason":
			err = json.Unmarshal(raw, &hdr.Reason)
		case "derived":
			err = json.Unmarshal(raw, &hdr.Derived)
		case "expect_without_fixes":
			err = json.Unmarshal(raw, &hdr.ExpectWithoutFixes)
			if err == nil && hdr.ExpectWithoutFixes != "agree" && hdr.ExpectWithoutFixes != "disagree" {
				err = fmt.Errorf("%q; expected \"agree\" or \"disagree\"", hdr.ExpectWithoutFixes)
			}
		default:
			return nil, fmt.Errorf("header: unknown field %q; expected kvcheck_history, scenario, config, fixes, source, expect, reason, derived, expect_without_fixes", key)
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
	{"op", "the operation: " + strings.Join(opNames(), ", ")},
	{"result", `what it returned: {"ok": true|false} (create: and "reused": N; manager steps: and "resize": [capacity, history]) or {"raise": "text"}`},
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
	rec.op = spec.CacheOp{Kind: kind, ID: uint8(rec.Request), Tokens: spec.CacheKeep, Capacity: spec.CacheKeep, History: spec.CacheKeep}
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

func opNames() []string {
	var names []string
	for k := spec.CacheCreate; k.String() != fmt.Sprintf("cache-op(%d)", k); k++ {
		names = append(names, k.String())
	}
	return names
}

// argKind is the type of an operation's argument.
type argKind uint8

const (
	// argCount is a token count 0..spec.MaxRealTokens.
	argCount argKind = iota
	// argCountOrNone is a token count or null (None).
	argCountOrNone
	argBool
	// argState is the request state update_resources reads.
	argState
	// argPhase is the kind of a batch entry: context or generation.
	argPhase
)

// argDef is one argument of an operation.
type argDef struct {
	key      string
	kind     argKind
	optional bool
}

// argSpec lists each operation's arguments.
var argSpec = map[spec.CacheOpKind][]argDef{
	spec.CacheCreate:                {{"reuse", argBool, false}, {"prompt", argCount, false}},
	spec.CacheCoreCreate:            {{"tokens", argCountOrNone, false}},
	spec.CacheResize:                {{"capacity", argCountOrNone, false}, {"history", argCountOrNone, false}},
	spec.CacheCommit:                {{"tokens", argCount, false}, {"last", argBool, false}},
	spec.CacheProbeReuse:            {{"tokens", argCount, false}},
	spec.CacheTryAllocateGeneration: {{"draft_len", argCount, false}},
	spec.CacheUpdateResources: {{"rewind", argCount, false}, {"accepted", argCount, false}, {"num_tokens", argCount, false},
		{"state", argState, false}, {"kv_compression_manages_history", argBool, true}},
	spec.CachePrepareDraftResources: {{"phase", argPhase, false}, {"position", argCount, true}, {"chunk", argCount, true},
		{"last", argBool, true}, {"draft_len", argCount, false}},
}

// requestStates are the states update_resources tells apart.
var requestStates = []string{"generation", "complete", "context"}

func parseArgs(rec *Record, raw json.RawMessage) error {
	want := argSpec[rec.op.Kind]
	var args map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return fmt.Errorf("args: expected an object: %v", err)
		}
	}
	keys := make([]string, len(want))
	for i, a := range want {
		keys[i] = a.key
	}
	for key := range args {
		if !contains(keys, key) {
			if len(want) == 0 {
				return fmt.Errorf("args: %s takes no arguments, got %q", rec.Op, key)
			}
			return fmt.Errorf("args: unknown argument %q of %s; expected %s", key, rec.Op, strings.Join(keys, ", "))
		}
	}
	rec.Args = map[string]any{}
	count := map[string]int{}
	flag := map[string]bool{}
	var state, phase string
	for _, a := range want {
		text, ok := args[a.key]
		if !ok {
			if a.optional {
				continue
			}
			return fmt.Errorf("args: %s needs %q (expected args %s)", rec.Op, a.key, strings.Join(keys, ", "))
		}
		switch a.kind {
		case argCount, argCountOrNone:
			if string(text) == "null" {
				if a.kind == argCount {
					return fmt.Errorf("args: %s is null; expected a token count 0..%d", a.key, spec.MaxRealTokens)
				}
				rec.Args[a.key] = nil
				count[a.key] = spec.CacheKeep
				continue
			}
			var n int
			if err := json.Unmarshal(text, &n); err != nil || n < 0 || n > spec.MaxRealTokens {
				what := fmt.Sprintf("a token count 0..%d", spec.MaxRealTokens)
				if a.kind == argCountOrNone {
					what += " or null (None)"
				}
				return fmt.Errorf("args: %s is %s; expected %s", a.key, text, what)
			}
			rec.Args[a.key], count[a.key] = n, n
		case argBool:
			var b bool
			if err := json.Unmarshal(text, &b); err != nil {
				return fmt.Errorf("args: %s is %s; expected true or false", a.key, text)
			}
			rec.Args[a.key], flag[a.key] = b, b
		case argState, argPhase:
			names := requestStates
			if a.kind == argPhase {
				names = []string{"context", "generation"}
			}
			var name string
			if err := json.Unmarshal(text, &name); err != nil || !contains(names, name) {
				return fmt.Errorf("args: %s is %s; expected one of %q", a.key, text, names)
			}
			rec.Args[a.key] = name
			if a.kind == argState {
				state = name
			} else {
				phase = name
			}
		}
	}
	op := &rec.op
	switch op.Kind {
	case spec.CacheCreate:
		op.Reuse, op.Prompt = flag["reuse"], count["prompt"]
	case spec.CacheCoreCreate, spec.CacheProbeReuse:
		op.Tokens = count["tokens"]
	case spec.CacheResize:
		op.Capacity, op.History = count["capacity"], count["history"]
	case spec.CacheCommit:
		op.Tokens, op.Last = count["tokens"], flag["last"]
	case spec.CacheTryAllocateGeneration:
		op.DraftLen = count["draft_len"]
	case spec.CacheUpdateResources:
		if count["num_tokens"] < 1 {
			return errors.New("args: num_tokens is 0; expected max_beam_num_tokens, at least 1")
		}
		op.Update = spec.GenerationUpdate{
			Runtime:      count["rewind"] + count["accepted"],
			Accepted:     count["accepted"],
			KeepCapacity: state != "generation",
			History:      count["num_tokens"] - 1,
		}
		if flag["kv_compression_manages_history"] {
			op.Update.History = spec.CacheKeep
		}
	case spec.CachePrepareDraftResources:
		op.Draft = spec.DraftEntry{Context: phase == "context", DraftLen: count["draft_len"]}
		for _, key := range []string{"position", "chunk", "last"} {
			if _, given := args[key]; given != op.Draft.Context {
				return fmt.Errorf("args: a %s entry %s %q; expected position, chunk and last with phase context only",
					phase, map[bool]string{true: "takes", false: "needs"}[given], key)
			}
		}
		op.Draft.Position, op.Draft.Chunk, op.Draft.Last = count["position"], count["chunk"], flag["last"]
	}
	if len(rec.Args) == 0 {
		rec.Args = nil
	}
	return nil
}

// checkResult checks the result's shape for the operation.
func checkResult(rec *Record) error {
	r := rec.Result
	kind := rec.op.Kind
	ok := r.OK != nil && *r.OK
	switch {
	case r.Raise != nil && (r.OK != nil || r.Reused != nil || r.Value != nil):
		return errors.New(`result: "raise" comes alone (a manager step may add "resize"); expected {"raise": "text"} or {"ok": ...}`)
	case r.Raise == nil && r.OK == nil:
		return errors.New(`result: expected {"ok": true|false} or {"raise": "text"}`)
	case r.Reused != nil && (kind != spec.CacheCreate && kind != spec.CacheCoreCreate || !ok):
		return errors.New(`result: "reused" belongs only to a create that returned a cache ("ok": true)`)
	case (kind == spec.CacheCreate || kind == spec.CacheCoreCreate) && ok && r.Reused == nil:
		return errors.New(`result: a create that returned a cache needs "reused": the reused prefix in tokens`)
	case r.Reused != nil && (*r.Reused < 0 || *r.Reused > spec.MaxRealTokens):
		return fmt.Errorf("result: reused %d; expected a token count 0..%d", *r.Reused, spec.MaxRealTokens)
	case r.Value != nil && (kind != spec.CacheProbeReuse && kind != spec.CacheAllocatedDraftLen || !ok):
		return errors.New(`result: "value" belongs only to probe_reuse and to allocated_draft_len with an entry ("ok": true)`)
	case (kind == spec.CacheProbeReuse || kind == spec.CacheAllocatedDraftLen) && ok && r.Value == nil:
		return fmt.Errorf(`result: %s with "ok": true needs "value"`, rec.Op)
	case r.Resize != nil && !kind.IsManagerStep():
		return fmt.Errorf(`result: "resize" belongs only to the manager steps (update_resources, try_allocate_generation, revert_allocate_generation, prepare_draft_resources), not %s`, rec.Op)
	}
	if r.Resize != nil {
		for _, n := range r.Resize {
			if n != nil && (*n < 0 || *n > spec.MaxRealTokens) {
				return fmt.Errorf("result: resize argument %d; expected a token count 0..%d or null", *n, spec.MaxRealTokens)
			}
		}
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
