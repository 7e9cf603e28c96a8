package spec

import (
	"strings"
	"testing"
)

// TestRealSizeConfiguration: configuration text takes real sizes (tokens
// up to 2^31, pages up to 2^20) for the sequential model, while the
// explored state refuses them, saying why and where to go instead.
func TestRealSizeConfiguration(t *testing.T) {
	text := "tokens_per_block=32 target_blocks=1048576 target_index_slots=64 max_util_for_resume=97\n" +
		"max_batch_size=4 max_num_tokens=8192 ranks=1 enable_block_reuse=true\n" +
		"request prompt=146001 new=4096 family=0 shared=146001\n"
	cfg, err := parseRealConfigText(Config{}, text)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TargetBlocks != 1<<20 || cfg.Requests[0].PromptLen != 146001 {
		t.Fatalf("parsed %d pages, prompt %d", cfg.TargetBlocks, cfg.Requests[0].PromptLen)
	}
	back, err := parseRealConfigText(Config{}, formatConfigText(&cfg))
	if err != nil || back.TargetBlocks != cfg.TargetBlocks || back.MaxNumTokens != 8192 {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	if _, err := parseConfigText(Config{}, text); err == nil || !strings.Contains(err.Error(), "the explored state (kvcheck lin checks histories at real sizes)") {
		t.Errorf("parseConfigText of real sizes: %v", err)
	}
	if _, err := parseRealConfigText(Config{}, strings.Replace(text, "1048576", "1048577", 1)); err == nil || !strings.Contains(err.Error(), "target_blocks is 1048577 pages") {
		t.Errorf("2^20 + 1 pages: %v", err)
	}
	sp, err := NewModel(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := sp.InitialPool(0, Target)
	for _, op := range []CacheOp{
		{Kind: CacheCoreCreate, ID: 1, Tokens: CacheKeep},
		{Kind: CacheResume, ID: 1},
		{Kind: CacheResize, ID: 1, Capacity: 146001 + 4096, History: 146001},
	} {
		if res, ok := sp.ApplyPoolOp(&m, 0, Target, op); !ok || !res.OK || res.Raise != "" {
			t.Fatalf("%s: %+v %v", op.Kind, res, ok)
		}
	}
	if want := uint32(1<<20 - (146001+4096+31)/32); m.Free != want {
		t.Errorf("free pages %d, want %d", m.Free, want)
	}
}

// TestPoolGroupsSmallestBinds: with several pool groups, a cache holds a
// slot per block in each, so the group with the fewest slots runs out and
// trips the resume gate first, whatever the other groups hold.
func TestPoolGroupsSmallestBinds(t *testing.T) {
	cfg, err := parseRealConfigText(Config{}, "tokens_per_block=32 target_pool_groups=4,4096 target_index_slots=8 max_util_for_resume=90\n"+
		"max_batch_size=1 max_num_tokens=64 ranks=1\nrequest prompt=32 new=1")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := NewModel(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := sp.InitialPool(0, Target)
	if m.Free != 4 {
		t.Fatalf("free %d, want the smaller group's 4 slots", m.Free)
	}
	for id := uint8(1); id <= 5; id++ {
		sp.ApplyPoolOp(&m, 0, Target, CacheOp{Kind: CacheCoreCreate, ID: id, Tokens: CacheKeep})
		res, _ := sp.ApplyPoolOp(&m, 0, Target, CacheOp{Kind: CacheResume, ID: id})
		if want := id <= 4; res.OK != want {
			t.Fatalf("cache %d resumed %v, want %v (gate 90%% of the 4-slot group)", id, res.OK, want)
		}
		if res.OK {
			sp.ApplyPoolOp(&m, 0, Target, CacheOp{Kind: CacheResize, ID: id, Capacity: 32, History: CacheKeep})
		}
	}
	if cfg.PoolBlocks(0, Target) != 4 {
		t.Errorf("PoolBlocks %d, want 4", cfg.PoolBlocks(0, Target))
	}
}
