package spec_test

import (
	"reflect"
	"testing"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
)

// init lends spec's internal tests the configuration's text form
// (testconfigtext_test.go): they cannot import spec/configtext, which
// imports spec; this external test file, compiled into the same test
// binary, can, and its init runs before any test.
func init() {
	spec.LendConfigText(spec.LentConfigText{Parse: configtext.Parse, ParseReal: configtext.ParseReal, Format: configtext.Format})
}

// TestLentConfigTextIsConfigtext: the functions spec's internal tests
// parse and print configurations with are configtext's own, so that a
// test of spec that starts from a configuration text reads it as
// `kvcheck check --config` does.
func TestLentConfigTextIsConfigtext(t *testing.T) {
	lent := spec.LentConfigTextFuncs()
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"Parse", lent.Parse, configtext.Parse},
		{"ParseReal", lent.ParseReal, configtext.ParseReal},
		{"Format", lent.Format, configtext.Format},
	} {
		if reflect.ValueOf(f.got).IsNil() || reflect.ValueOf(f.got).Pointer() != reflect.ValueOf(f.want).Pointer() {
			t.Errorf("the lent %s is not configtext.%s (reproduce: go test ./spec -run TestLentConfigTextIsConfigtext)", f.name, f.name)
		}
	}
}
