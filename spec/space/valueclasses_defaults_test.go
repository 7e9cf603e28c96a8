package space

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec/configtext"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// defaultSweepValueClasses marks the value classes the default sweeps'
// spaces (every scenario's default ranges around its configuration)
// reach.
func defaultSweepValueClasses(t *testing.T) []bool {
	reached := make([]bool, len(ValueClasses()))
	for _, sc := range scenario.All() {
		cs, err := NewConfigSpace(sc.Config, DefaultRanges(sc.Name), nil)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		configs, _, err := cs.Enumerate()
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		for i := range configs {
			MarkValueClasses(&configs[i].Config, reached)
		}
	}
	return reached
}

// TestDefaultRangesCoverValueClasses: the default sweeps together reach
// every value class of every setting, except the settings
// valueClassReasons (defaults.go) says why not; a reason for a
// setting whose classes are all reached is stale and fails too.
func TestDefaultRangesCoverValueClasses(t *testing.T) {
	all := ValueClasses()
	reached := defaultSweepValueClasses(t)
	missing := map[string][]string{}
	count := 0
	for i, c := range all {
		if reached[i] {
			count++
		} else {
			missing[c.Key] = append(missing[c.Key], c.String())
		}
	}
	t.Logf("the default sweeps reach %d of %d value classes", count, len(all))
	for _, f := range configtext.Fields {
		m, why := missing[f.Key], valueClassReasons[f.Key]
		switch {
		case len(m) > 0 && why == "":
			t.Errorf("no default sweep reaches %s: add a range that does (defaultRanges, defaults.go) or say why not in valueClassReasons", strings.Join(m, ", "))
		case len(m) == 0 && why != "":
			t.Errorf("valueClassReasons[%q] is stale: the default sweeps reach every class of %s; drop it", f.Key, f.Key)
		case len(m) > 0:
			t.Logf("not reached, by reason: %s (%s)", strings.Join(m, ", "), why)
		}
	}
	for k := range valueClassReasons {
		if configtext.Lookup(k) == nil {
			t.Errorf("valueClassReasons names %q, no setting", k)
		}
	}
	_ = fmt.Sprint
}
