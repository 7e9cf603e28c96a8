package configfile

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/spec/yamlconf"
)

// settingKeys returns the keys a line of configuration text sets (a
// request line sets the requests, key "request"; a comment sets none).
func settingKeys(text string) []string {
	line := strings.TrimSpace(text)
	switch {
	case line == "" || strings.HasPrefix(line, "#"):
		return nil
	case line == "request" || strings.HasPrefix(line, "request "):
		return []string{"request"}
	}
	var keys []string
	for _, pair := range strings.Fields(spacedEquals.ReplaceAllString(line, "=")) {
		key, _, _ := strings.Cut(pair, "=")
		keys = append(keys, key)
	}
	return keys
}

// applyOverride lays the kvcheck.config lines of a TensorRT-LLM options
// file over the derived settings: a key the config sets replaces the
// derived setting of that key, and request lines replace the derived
// requests. It returns the merged lines and annotates the mapping steps it
// overrode, so the derivation printed says which settings the file's
// kvcheck.config changed.
func applyOverride(derived []yamlconf.TextLine, override []yamlconf.TextLine, mapping []Mapping) ([]yamlconf.TextLine, []Mapping) {
	by := map[string]int{} // key → the override's file line
	for _, l := range override {
		for _, k := range settingKeys(l.Text) {
			if _, ok := by[k]; !ok {
				by[k] = l.Line
			}
		}
	}
	var kept []yamlconf.TextLine
	for _, l := range derived {
		keys := settingKeys(l.Text)
		if len(keys) == 1 {
			if _, ok := by[keys[0]]; ok {
				continue
			}
		}
		kept = append(kept, l)
	}
	for i := range mapping {
		var overridden []string
		for _, s := range mapping[i].Settings {
			keys := settingKeys(s)
			if len(keys) == 1 {
				if line, ok := by[keys[0]]; ok {
					overridden = append(overridden, fmt.Sprintf("%s (kvcheck.config, line %d)", keys[0], line))
				}
			}
		}
		if len(overridden) > 0 {
			mapping[i].Why += "; overridden: " + strings.Join(overridden, ", ")
		}
	}
	return append(kept, override...), mapping
}
