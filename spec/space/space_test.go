package space

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec/configtext"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestEnumerateSmallSpace pins the size of a small space, and checks that
// it comes smallest first, valid, canonical and without repeats.
func TestEnumerateSmallSpace(t *testing.T) {
	cs, err := NewConfigSpace(adpDummyLeak.Config, []string{
		"requests=1..2", "prompt_pages=1..2", "new_tokens=1..2", "receiving_kv=all", "spread=true",
		"target_blocks=3..4", "draft_blocks=3..4", "version=all", "draft_pool=none,unpaired",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	configs, stats, err := cs.Enumerate()
	if err != nil {
		t.Fatal(err)
	}
	// 24 settings combinations (2·2 pool sizes × 3 versions × 2 draft
	// pools) × (8 one-request + 8·8·2 two-request routings) sequences;
	// without a draft pool the draft pool's size cannot matter.
	if stats.Combinations != 24*(8+128) {
		t.Fatalf("%d combinations", stats.Combinations)
	}
	if got := [3]int{len(configs), stats.Invalid, stats.Equivalent}; got != [3]int{1752, 870, 642} {
		t.Fatalf("distinct, invalid, equivalent = %v", got)
	}
	seen := map[string]bool{}
	for i, c := range configs {
		if err := c.Config.Validate(); err != nil {
			t.Fatal(err)
		}
		if canon := Canonical(c.Config); configtext.Format(&canon) != c.Text() || ConfigIdentity(&canon) != c.Key {
			t.Fatalf("configuration %d is not canonical", i)
		}
		if seen[c.Text()] {
			t.Fatalf("configuration %d repeats", i)
		}
		seen[c.Text()] = true
		if i > 0 && compareSpaceConfigs(configs[i-1], c) >= 0 {
			t.Fatalf("configurations %d and %d out of order", i-1, i)
		}
	}
	if configs[0].Requests != 1 || configs[len(configs)-1].Requests != 2 {
		t.Fatal("not smallest first")
	}
}

func TestConfigSpaceErrors(t *testing.T) {
	for _, tc := range []struct{ ranges, want string }{
		{"target_blocks", "line 3: expected key=values"},
		{"bogus=1", "line 3: unknown range key \"bogus\""},
		{"target_blocks=9..4", "line 3: target_blocks: expected an interval"},
		{"version=v9", "line 3: version: expected one of v1.3.0rc25, 00746ef, 00746ef+pr19181, got \"v9\""},
		{"target_blocks=all", "line 3: target_blocks: \"all\" needs a boolean or enumerated setting"},
		{"requests=0..2", "line 3: requests: expected integers 1..8"},
		{"ranks.1=2", "line 3: range key \"ranks.1\": only a per-stage setting takes a stage"},
		{"stage_target_blocks.4=2", "line 3: range key \"stage_target_blocks.4\": only a per-stage setting takes a stage"},
		{"receiving_kv=maybe", "line 3: receiving_kv: expected true or false"},
	} {
		_, err := NewConfigSpace(draftAdmission.Config, []string{tc.ranges}, []int{3})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q...", tc.ranges, err, tc.want)
		}
	}
	_, err := NewConfigSpace(draftAdmission.Config, []string{"ranks=1", "ranks=2"}, []int{1, 4})
	if err == nil || err.Error() != "line 4: ranks already ranged (line 1)" {
		t.Errorf("duplicate: %v", err)
	}
}

// TestRangesRoundTrip: ranges render as text that parses back to the same
// ranges, per-stage values and stages included.
func TestRangesRoundTrip(t *testing.T) {
	cs, err := NewConfigSpace(ppHistoryCapacity.Config, []string{"requests=1..3", "version=all", "target_blocks=4..6,8",
		"stage_draft_blocks=10,9;9,10", "stage_target_blocks.1=8..10"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := NewConfigSpace(draftAdmission.Config, cs.Ranges(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Ranges(), cs.Ranges()) {
		t.Fatalf("%v != %v", back.Ranges(), cs.Ranges())
	}
	configs, _, err := cs.Enumerate()
	if err != nil {
		t.Fatal(err)
	}
	stages := map[[2]uint32]bool{}
	for _, c := range configs {
		stages[[2]uint32{c.Config.StageDraftBlocks[0], c.Config.StageTargetBlocks[1]}] = true
	}
	// stage 0's draft pool: 10 is the uniform size (canonically 0) or 9;
	// stage 1's target pool 8, 9 or 10 (canonically 0 where it equals
	// target_blocks).
	for _, want := range [][2]uint32{{0, 8}, {9, 9}, {0, 0}, {9, 10}} {
		if !stages[want] {
			t.Errorf("no configuration with stage pools %v: %v", want, stages)
		}
	}
}

// TestDefaultRangesEnumerate: every scenario has default ranges, they parse
// and each seed scenario's space holds at least 10,000 configurations.
func TestDefaultRangesEnumerate(t *testing.T) {
	for _, sc := range scenario.All() {
		ranges := DefaultRanges(sc.Name)
		if ranges == nil {
			t.Errorf("%s: no default ranges", sc.Name)
			continue
		}
		cs, err := NewConfigSpace(sc.Config, ranges, nil)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		configs, _, err := cs.Enumerate()
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		if strings.HasPrefix(sc.Report, "seed ") && len(configs) < 10_000 {
			t.Errorf("%s: %d configurations, want at least 10,000", sc.Name, len(configs))
		}
	}
}
