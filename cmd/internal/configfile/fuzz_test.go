package configfile

import (
	"errors"
	"os"
	"testing"

	"github.com/kvcheck/kvcheck/spec/configtext"

	"github.com/kvcheck/kvcheck/spec/scenario"
)

// FuzzParse: no input makes Parse panic; it returns a scenario whose
// configuration is valid, or an *Error naming the file.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile(seedDeployment); err == nil {
		f.Add(data)
	}
	for _, sc := range scenario.All() {
		if data, err := Format(sc); err == nil {
			f.Add(data)
		}
		f.Add([]byte(configtext.Format(&sc.Config)))
	}
	f.Add([]byte("kvcheck:\n  requests: [{prompt_pages: 1, new_tokens: 1}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("f.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "f.yaml" {
				t.Fatalf("error %v is not an *Error naming the file", err)
			}
			return
		}
		if err := file.Scenario.Config.Validate(); err != nil {
			t.Fatalf("accepted an invalid configuration: %v", err)
		}
	})
}
