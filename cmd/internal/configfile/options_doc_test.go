package configfile

import (
	"os"
	"strings"
	"testing"
)

// TestOptionsDocumented: docs/options.md holds the option catalogue's
// tables as OptionsMarkdown renders them, so every option ignored or
// refused is documented with its reason.
func TestOptionsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/options.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := OptionsMarkdown(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/options.md does not hold the option tables; paste in (after its introduction):\n%s", want)
	}
}
