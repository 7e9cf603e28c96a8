package spec

import (
	"fmt"
	"strings"
	"testing"
)

// TestDummyBlocksIsWhatTheDummyHolds: DummyBlocks is the target pages
// add_dummy_requests leaves the attention-DP pad dummy holding, for draft
// widths, extra tokens and page sizes around the scenarios'.
func TestDummyBlocksIsWhatTheDummyHolds(t *testing.T) {
	for _, tpb := range []uint32{1, 2, 3, 4, 8, 32} {
		for d := uint32(0); d <= 3; d++ {
			for extra := uint32(0); extra <= 2; extra++ {
				cfg := testConfig()
				cfg.TokensPerBlock, cfg.MaxDraftLen, cfg.ExtraKVTokens, cfg.DraftPool = tpb, d, extra, NoDraftPool
				cfg.AttentionDP, cfg.Loop, cfg.Ranks = true, OverlapLoop, 2
				cfg.Requests = []RequestTemplate{{PromptLen: 1, MaxNewTokens: 1, Family: NoFamily}}
				cfg.TargetBlocks = 40
				_, _, v := fixture(t, cfg)
				if !v.addDummyRequest(true) {
					t.Fatalf("tpb %d D %d extra %d: add_dummy_requests failed", tpb, d, extra)
				}
				held := int(cfg.TargetBlocks) - int(v.pool(Target).Free)
				if got := cfg.DummyBlocks(); got != held {
					t.Errorf("tpb %d D %d extra %d: DummyBlocks %d, the dummy holds %d pages", tpb, d, extra, got, held)
				}
			}
		}
	}
	cfg := testConfig()
	if n := cfg.DummyBlocks(); n != 0 {
		t.Errorf("without attention DP DummyBlocks is %d, want 0", n)
	}
}

// TestRequestBlocksIsWhatValidateSizes: a pool of RequestBlocks pages of
// the longest request is valid, one page less is not.
func TestRequestBlocksIsWhatValidateSizes(t *testing.T) {
	for _, tpb := range []uint32{2, 4, 8} {
		cfg := testConfig()
		cfg.TokensPerBlock = tpb
		need := 0
		for id := range cfg.Requests {
			need = max(need, cfg.RequestBlocks(uint8(id+1)))
		}
		cfg.TargetBlocks, cfg.DraftBlocks = uint32(need), uint32(need)
		if err := cfg.Validate(); err != nil {
			t.Errorf("tpb %d: pools of %d pages: %v", tpb, need, err)
		}
		cfg.TargetBlocks--
		if err := cfg.Validate(); err == nil {
			t.Errorf("tpb %d: a target pool of %d pages, one less than RequestBlocks, is valid", tpb, need-1)
		} else if want := fmt.Sprintf("longest request (%d blocks", need); !strings.Contains(err.Error(), want) {
			t.Errorf("tpb %d: %v, want %q", tpb, err, want)
		}
	}
}
