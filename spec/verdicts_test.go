package spec_test

import (
	"strings"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// TestFixesLabelRoundTrip: a label reads back as the same fix set.
func TestFixesLabelRoundTrip(t *testing.T) {
	for _, sc := range scenario.All() {
		for _, fixes := range sc.Variants() {
			got, err := spec.ParseFixesLabel(fixes.Label())
			if err != nil || got != fixes {
				t.Errorf("%s: %v %v", fixes.Label(), got, err)
			}
		}
	}
	if _, err := spec.ParseFixesLabel("joint-admission+no-such"); err == nil || !strings.Contains(err.Error(), "no-such") {
		t.Errorf("unknown fix in a label: %v", err)
	}
}
