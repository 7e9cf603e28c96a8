package spec

import "testing"

// LentConfigText is the configuration's text form (package
// spec/configtext) as spec's internal tests use it: they write the
// configurations they start from as text and print a failing one, but
// cannot import spec/configtext, which imports spec (Go forbids the
// cycle). The external test file lend_configtext_test.go (package
// spec_test, which may import it) lends configtext's functions through
// LendConfigText before any test runs, and TestLentConfigTextIsConfigtext
// holds them to configtext's own.
type LentConfigText struct {
	// Parse is configtext.Parse: text applied to base, validated for the
	// explored state.
	Parse func(base Config, text string) (Config, error)
	// ParseReal is configtext.ParseReal: the same at real sizes.
	ParseReal func(base Config, text string) (Config, error)
	// Format is configtext.Format: the text that Parse reads back.
	Format func(cfg *Config) string
}

// lentConfigText is what LendConfigText lent.
var lentConfigText LentConfigText

// LendConfigText gives spec's internal tests the configuration's text form
// (lend_configtext_test.go calls it with configtext's functions, from its
// init).
func LendConfigText(ct LentConfigText) { lentConfigText = ct }

// LentConfigTextFuncs returns what was lent, for
// TestLentConfigTextIsConfigtext.
func LentConfigTextFuncs() LentConfigText { return lentConfigText }

// configText returns the lent text form, or panics naming the file that
// lends it.
func configText() LentConfigText {
	if lentConfigText.Parse == nil || lentConfigText.ParseReal == nil || lentConfigText.Format == nil {
		panic("spec: the configuration text form was not lent to spec's internal tests (lend_configtext_test.go)")
	}
	return lentConfigText
}

// parseConfigText is configtext.Parse: text applied to a copy of base,
// validated for the explored state.
func parseConfigText(base Config, text string) (Config, error) { return configText().Parse(base, text) }

// parseRealConfigText is configtext.ParseReal: text applied to a copy of
// base, validated at real sizes.
func parseRealConfigText(base Config, text string) (Config, error) {
	return configText().ParseReal(base, text)
}

// formatConfigText is configtext.Format: cfg as text.
func formatConfigText(cfg *Config) string { return configText().Format(cfg) }

// TestConfigTextIsLent: the text form was lent before the tests ran, so
// that a test which parses its configuration fails here, by name, rather
// than with a panic of its own.
func TestConfigTextIsLent(t *testing.T) {
	ct := lentConfigText
	if ct.Parse == nil || ct.ParseReal == nil || ct.Format == nil {
		t.Fatal("the configuration text form was not lent to spec's internal tests: lend_configtext_test.go's init must call LendConfigText (reproduce: go test ./spec -run TestConfigTextIsLent)")
	}
}
