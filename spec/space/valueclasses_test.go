package space

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestEverySettingHasValueClasses: every setting of the text form
// declares its value classes in its Config field's class tag.
func TestEverySettingHasValueClasses(t *testing.T) {
	for _, key := range SettingsWithoutValueClasses() {
		t.Errorf("setting %s has no class tag on its Config field (spec/config.go): declare its value classes (valueclasses.go lists the kinds)", key)
	}
}

// TestValueClassesOfAConfig: a configuration falls in one class of each
// setting whose condition holds, and the classes say what they should.
func TestValueClassesOfAConfig(t *testing.T) {
	sc, err := scenario.Lookup("draft-admission")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	cfg.BlockReuse, cfg.PartialReuse = true, false
	cfg.MaxSeqLen = cfg.TokensPerBlock*3 + 1
	all := ValueClasses()
	var got []string
	for _, i := range ConfigValueClasses(&cfg, nil) {
		got = append(got, all[i].String())
	}
	for _, want := range []string{"enable_partial_reuse=off (with enable_block_reuse=true)", "max_seq_len=non-multiple-of-page", "draft_pool=unpaired", "enable_block_reuse=on"} {
		if !slices.Contains(got, want) {
			t.Errorf("classes of draft-admission's configuration with block reuse on, partial reuse off and max_seq_len %d lack %s:\n%s", cfg.MaxSeqLen, want, strings.Join(got, "\n"))
		}
	}
	cfg.BlockReuse = false
	for _, i := range ConfigValueClasses(&cfg, nil) {
		if all[i].Key == "enable_partial_reuse" {
			t.Errorf("with block reuse off the configuration falls in %s", all[i])
		}
	}
}
