package lin

import (
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// managerHeader configures pools of 8 pages of 4 tokens, the resume gate at
// 50% and a draft reserve of 2, for the manager steps the spec models.
const managerHeader = `{"kvcheck_history": 1, "config": ["tokens_per_block=4 target_blocks=8 draft_blocks=8 target_index_slots=2 draft_index_slots=2",` +
	` "max_util_for_resume=50 draft_pool=unpaired max_draft_len=1 kv_reserve_draft_tokens=2 max_batch_size=2 max_num_tokens=8 ranks=1",` +
	` "request prompt=8 new=2", "request prompt=8 new=2", "request prompt=8 new=2"]}
`

// TestManagerSteps checks recorded manager steps against the spec's
// manager: the resizes they call, the widths they record, and the raises
// and refusals they produce; each history changed in one result is not
// linearizable and is blamed at that line.
func TestManagerSteps(t *testing.T) {
	for _, tc := range []struct {
		name, lines, wrong, blame string
	}{
		{"prepare_draft_resources sizes a context chunk and grows a generation step by the reserve",
			`{"rank":0,"pool":"draft","request":1,"op":"prepare_draft_resources","args":{"phase":"context","position":0,"chunk":8,"last":true,"draft_len":1},"result":{"ok":true,"resize":[9,null]},"call":1,"return":2}
{"rank":0,"pool":"draft","request":1,"op":"prepare_draft_resources","args":{"phase":"generation","draft_len":1},"result":{"ok":true,"resize":[12,null]},"call":3,"return":4}
{"rank":0,"pool":"draft","request":1,"op":"allocated_draft_len","result":{"ok":false},"call":5,"return":6}`,
			`"resize":[12,null]`, "req 1 prepare_draft_resources(phase=generation, draft_len=1)"},
		{"a draft resume refused at the gate raises RuntimeError",
			`{"rank":0,"pool":"draft","request":1,"op":"admit_mirror","result":{"ok":true},"call":1,"return":2}
{"rank":0,"pool":"draft","request":1,"op":"resize","args":{"capacity":20,"history":null},"result":{"ok":true},"call":3,"return":4}
{"rank":0,"pool":"draft","request":2,"op":"admit_mirror","result":{"ok":false},"call":5,"return":6}
{"rank":0,"pool":"draft","request":2,"op":"prepare_draft_resources","args":{"phase":"context","position":0,"chunk":4,"last":false,"draft_len":1},"result":{"raise":"RuntimeError"},"call":7,"return":8}`,
			`"result":{"ok":false},"call":5`, "req 2 admit_mirror()"},
		{"try_allocate_generation records the width update_resources then rewinds",
			`{"rank":0,"pool":"target","request":1,"op":"create","args":{"reuse":false,"prompt":8},"result":{"ok":true,"reused":0},"call":1,"return":2}
{"rank":0,"pool":"target","request":1,"op":"resume","result":{"ok":true},"call":3,"return":4}
{"rank":0,"pool":"target","request":1,"op":"resize","args":{"capacity":8,"history":8},"result":{"ok":true},"call":5,"return":6}
{"rank":0,"pool":"target","request":1,"op":"try_allocate_generation","args":{"draft_len":1},"result":{"ok":true,"resize":[10,null]},"call":7,"return":8}
{"rank":0,"pool":"target","request":1,"op":"allocated_draft_len","result":{"ok":true,"value":1},"call":9,"return":10}
{"rank":0,"pool":"target","request":1,"op":"update_resources","args":{"rewind":1,"accepted":0,"num_tokens":10,"state":"generation"},"result":{"ok":true,"resize":[9,9]},"call":11,"return":12}
{"rank":0,"pool":"target","request":1,"op":"allocated_draft_len","result":{"ok":false},"call":13,"return":14}`,
			`"value":1`, "req 1 allocated_draft_len()"},
		{"a rewind below the new history raises ValueError in the core",
			`{"rank":0,"pool":"target","request":1,"op":"create","args":{"reuse":false,"prompt":8},"result":{"ok":true,"reused":0},"call":1,"return":2}
{"rank":0,"pool":"target","request":1,"op":"resume","result":{"ok":true},"call":3,"return":4}
{"rank":0,"pool":"target","request":1,"op":"resize","args":{"capacity":9,"history":8},"result":{"ok":true},"call":5,"return":6}
{"rank":0,"pool":"target","request":1,"op":"update_resources","args":{"rewind":1,"accepted":0,"num_tokens":10,"state":"generation"},"result":{"raise":"ValueError: History length cannot exceed capacity","resize":[8,9]},"call":7,"return":8}`,
			`"raise":"ValueError: History length cannot exceed capacity"`, "req 1 update_resources("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Parse("m.jsonl", strings.NewReader(managerHeader+tc.lines))
			if err != nil {
				t.Fatal(err)
			}
			sp, err := SpecFor(h, "")
			if err != nil {
				t.Fatal(err)
			}
			if out := Check(sp, h.Records, 5*time.Second); out.Result != porcupine.Ok {
				t.Fatalf("%s", out.Describe("m.jsonl"))
			}
			var replacement string
			switch {
			case strings.Contains(tc.wrong, `"resize":[12`):
				replacement = `"resize":[13,null]`
			case strings.Contains(tc.wrong, `"ok":false`):
				replacement = strings.Replace(tc.wrong, `"ok":false`, `"ok":true`, 1)
			case strings.Contains(tc.wrong, `"value":1`):
				replacement = `"value":2`
			default:
				replacement = `"raise":"ValueError: History length cannot be decreased"`
			}
			bad, err := Parse("m.jsonl", strings.NewReader(managerHeader+strings.Replace(tc.lines, tc.wrong, replacement, 1)))
			if err != nil {
				t.Fatal(err)
			}
			out := Check(sp, bad.Records, 5*time.Second)
			if report := out.Describe("m.jsonl"); out.Result != porcupine.Illegal || !strings.Contains(report, tc.blame) {
				t.Errorf("one result changed (%s → %s), the report:\n%s", tc.wrong, replacement, report)
			}
		})
	}
}
