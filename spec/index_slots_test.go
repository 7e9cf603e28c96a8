package spec

import "testing"

// TestIndexSlotsForDummies covers the IndexMapper sizing of PR #17347 and
// the review of PR #19006: the target reserves
// num_cuda_graph_padding_dummy_slots + int(enable_attention_dp) slots for
// dummies, the draft manager before the fix only one; CUDA-graph padding
// dummies hold their slots for the whole run, so kv_cache_map entries get
// what is left.
func TestIndexSlotsForDummies(t *testing.T) {
	for _, tt := range []struct {
		name          string
		cudaGraph     uint8
		adp, preFix   bool
		target, draft uint8 // slots left for kv_cache_map entries of 4 configured
	}{
		{"no dummies", 0, false, false, 4, 4},
		{"one CUDA-graph dummy", 1, false, false, 3, 3},
		{"CUDA-graph dummy and ADP, fixed", 1, true, false, 3, 3},
		{"CUDA-graph dummy and ADP, draft reserves one", 1, true, true, 3, 2},
		{"ADP only, draft reserves one", 0, true, true, 4, 4},
		{"two CUDA-graph dummies and ADP, draft reserves one", 2, true, true, 2, 0},
	} {
		c := Config{TargetIndexSlots: 4, DraftIndexSlots: 4, CudaGraphPaddingDummies: tt.cudaGraph, AttentionDP: tt.adp}
		if tt.preFix {
			c.PreFixes = PreFixSetOf(PreFixDraftOneDummySlot)
		}
		if got, want := [2]uint32{c.indexSlots(Target), c.indexSlots(Draft)}, [2]uint32{uint32(tt.target), uint32(tt.draft)}; got != want {
			t.Errorf("%s: target, draft slots %v, want %v", tt.name, got, want)
		}
	}
}
