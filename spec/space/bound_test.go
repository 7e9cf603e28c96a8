package space

import (
	"strings"
	"testing"
)

// TestCountSequencesMatchesSequences: the count the size check uses is the
// number of request sequences the enumeration makes, for one to three
// ranks and mixes with and without every kind of request.
func TestCountSequencesMatchesSequences(t *testing.T) {
	mixes := []RequestMix{
		{Count: []int{1, 2, 3}, PromptPages: []int{1, 2}, NewTokens: []int{2}, SharedPages: []int{0, 1, 2}, ReceivingKV: []bool{false}, SendingKV: []bool{false}},
		{Count: []int{0, 2}, PromptPages: []int{1}, NewTokens: []int{1, 2}, SharedPages: []int{0}, ReceivingKV: []bool{false, true}, SendingKV: []bool{false, true}},
		{Count: []int{4}, PromptPages: []int{1}, NewTokens: []int{1}, SharedPages: []int{0}, ReceivingKV: []bool{false}, SendingKV: []bool{false}},
	}
	for i, m := range mixes {
		for ranks := uint8(1); ranks <= 3; ranks++ {
			if got, want := m.countSequences(ranks), len(m.sequences(4, ranks)); got != want {
				t.Errorf("mix %d on %d ranks: counted %d sequences, made %d", i, ranks, got, want)
			}
		}
	}
}

// TestHugeSpaceRefusedAtOnce: ranges whose combinations surely pass
// MaxSpaceCombinations are refused before any is walked, settings and
// request sequences alike, with what they multiply to.
func TestHugeSpaceRefusedAtOnce(t *testing.T) {
	base := mustScenario("draft-admission").Config
	for _, ranges := range [][]string{
		{"target_blocks=1..4096", "draft_blocks=1..4096", "requests=1..3", "prompt_pages=1..3", "shared_pages=0..2"},
		{"requests=1..8", "prompt_pages=1..3", "new_tokens=1..3", "shared_pages=0..2"},
	} {
		cs, err := NewConfigSpace(base, ranges, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, stats, err := cs.Enumerate()
		if err == nil || !strings.Contains(err.Error(), "narrow them") || stats.Combinations != 0 {
			t.Errorf("%v: error %v after %d combinations; want a refusal before any", ranges, err, stats.Combinations)
		}
	}
}
