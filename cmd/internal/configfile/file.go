package configfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"

	"github.com/kvcheck/kvcheck/spec/scenario"
	"github.com/kvcheck/kvcheck/spec/yamlconf"
	"gopkg.in/yaml.v3"
)

// Error is a configuration file error at a line.
type Error = yamlconf.Error

// File is a configuration file read into a scenario.
type File struct {
	Path string
	// Kind says which of the three forms the file has (see the package
	// doc): KindConfigText, KindTRTLLM or KindScenario.
	Kind string
	// Scenario is what kvcheck checks: named after the kvcheck.name key or
	// the file's base name.
	Scenario *scenario.Scenario
	// Mapping is how each TensorRT-LLM option and kvcheck key became a
	// setting of the scaled configuration, in file order.
	Mapping []Mapping
	// Warnings say what the check assumes that the file does not say, and
	// which options it checks without (kvcheck.ignore_options).
	Warnings []string
	// Ignored lists the options known not to matter to the KV cache, each
	// with its line and why.
	Ignored []string
	// Pressure is the pressure sweep a TensorRT-LLM options file is checked
	// under (pressure.go); nil for the other forms.
	Pressure *Pressure
	// Sweep are the ranges `kvcheck sweep` takes from the file: the
	// kvcheck.sweep mapping, or `sweep KEY=VALUES ...` lines of
	// configuration text (other commands ignore them).
	Sweep []Range
}

// The forms of a configuration file.
const (
	KindConfigText = "kvcheck configuration text"
	KindTRTLLM     = "TensorRT-LLM LLM API options"
	KindScenario   = "kvcheck scenario file"
)

// Mapping is one step of the derivation of the scaled configuration: an
// option of the file (with its line and value), the settings of
// spec.Config's text form it gave, and why.
type Mapping struct {
	Line     int
	Option   string
	Settings []string
	Why      string
}

// MaxFileBytes bounds a configuration file.
const MaxFileBytes = 1 << 20

// Load reads and parses the configuration file at path. It reads only a
// regular file of at most MaxFileBytes.
func Load(path string) (*File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &yamlconf.Error{File: path, Msg: "not a regular file; expected a configuration file"}
	}
	if info.Size() > MaxFileBytes {
		return nil, &yamlconf.Error{File: path, Msg: fmt.Sprintf("%d bytes, more than the %d a configuration file may have", info.Size(), MaxFileBytes)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// configTextLine is the first setting line of kvcheck's configuration
// text: key=value or a request line.
var configTextLine = regexp.MustCompile(`^([a-z_]+[ \t]*=|request( |$)|sweep )`)

// Parse reads a configuration file's bytes; path names it in errors and,
// without a kvcheck.name, names its scenario.
func Parse(path string, data []byte) (*File, error) {
	if isConfigText(data) {
		return parseConfigText(path, data)
	}
	return parseYAML(path, data)
}

// isConfigText reports whether the first line that is neither blank nor a
// comment is a configuration text setting.
func isConfigText(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		return configTextLine.MatchString(line)
	}
	return false
}

// scenarioName is the file's base name without its extension.
func scenarioName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// parseConfigText reads kvcheck's configuration text: the real code
// alone, expected to break nothing, every request expected to finish.
func parseConfigText(path string, data []byte) (*File, error) {
	data, ranges := splitSweepLines(data)
	cfg, err := configtext.Parse(spec.Config{}, string(data))
	if err != nil {
		var ce *configtext.Error
		if errors.As(err, &ce) {
			return nil, &yamlconf.Error{File: path, Line: ce.Line, Msg: ce.Msg}
		}
		return nil, &yamlconf.Error{File: path, Msg: err.Error()}
	}
	sc := &scenario.Scenario{
		ScenarioInfo: spec.ScenarioInfo{
			Name:   scenarioName(path),
			Doc:    "configuration text of " + path,
			Report: path,
			Goals:  []spec.GoalDef{spec.GoalAllFinished},
		},
		Config: cfg,
		Expect: map[string]string{"real-code": spec.VerdictOK},
		Depth:  200,
	}
	return &File{Path: path, Kind: KindConfigText, Scenario: sc, Sweep: ranges}, nil
}

// expectedYAML is what a YAML configuration file should be.
const expectedYAML = "TensorRT-LLM LLM API options with a kvcheck: section, or kvcheck's key=value configuration text"

// parseYAML reads a TensorRT-LLM options file or a scenario file.
func parseYAML(path string, data []byte) (*File, error) {
	r := &yamlconf.Reader{File: path, Expected: expectedYAML}
	top, err := r.Decode(data)
	if err != nil {
		return nil, err
	}
	if top == nil {
		return nil, r.Errorf(0, "empty; expected %s", expectedYAML)
	}
	fields, err := r.Fields(top, "the file")
	if err != nil {
		return nil, err
	}
	var kvcheck *yamlconf.Field
	var options []yamlconf.Field
	for i := range fields {
		if fields[i].Key == "kvcheck" {
			kvcheck = &fields[i]
		} else {
			options = append(options, fields[i])
		}
	}
	if kvcheck == nil {
		return nil, r.Errorf(top.Line, "no kvcheck: section; expected one with at least the requests the model sends (docs/configuration.md)")
	}
	ks := &section{has: map[string]yamlconf.Field{}, tokensPerBlock: 4, line: kvcheck.Line}
	sc, config, err := scenario.ParseSection(r, *kvcheck, func(fl yamlconf.Field) error { return ks.key(r, fl) })
	if err != nil {
		return nil, err
	}
	out := &File{Path: path, Kind: KindScenario}
	lines := config
	if len(options) > 0 || len(ks.requests) > 0 {
		out.Kind = KindTRTLLM
		d := &deriver{r: r, ks: ks}
		if err := d.derive(options); err != nil {
			return nil, err
		}
		lines, d.mapping = applyOverride(d.lines, config, d.mapping)
		out.Mapping, out.Warnings, out.Ignored = d.mapping, d.warnings, d.ignored
	} else if config == nil {
		return nil, r.Errorf(kvcheck.Line, "kvcheck: expected requests: (with TensorRT-LLM options around it) or config: (kvcheck's configuration text)")
	}
	if sc.Config, err = scenario.ApplyConfigLines(r, lines, kvcheck.Line); err != nil {
		return nil, err
	}
	if out.Kind == KindTRTLLM {
		out.Pressure = pressureOf(sc.Config, ks.sweep)
		for _, name := range out.Pressure.Goals {
			if !hasGoal(sc.Goals, name) {
				g, err := spec.LookupGoal(name)
				if err != nil {
					return nil, err
				}
				sc.Goals = append(sc.Goals, g)
			}
		}
	}
	if sc.Name == "" {
		sc.Name = scenarioName(path)
	}
	if sc.Doc == "" {
		sc.Doc = "configuration of " + path
	}
	if sc.Report == "" {
		sc.Report = path
	}
	out.Scenario = sc
	out.Sweep = ks.sweep
	out.Warnings = append(out.Warnings, cutByComment(*kvcheck)...)
	return out, nil
}

// hasGoal reports whether goals names name.
func hasGoal(goals []spec.GoalDef, name string) bool {
	for _, g := range goals {
		if g.Name == name {
			return true
		}
	}
	return false
}

// cutByComment warns about a kvcheck: text key (doc, report, name) whose
// plain value a " #" cut short: YAML reads the rest of the line as a
// comment, so the text kvcheck prints would silently stop there.
func cutByComment(kvcheck yamlconf.Field) []string {
	var warnings []string
	n := kvcheck.Node
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		switch key.Value {
		case "doc", "report", "name":
		default:
			continue
		}
		if value.Kind == yaml.ScalarNode && value.Style == 0 && value.LineComment != "" {
			warnings = append(warnings, fmt.Sprintf("line %d: %s: an unquoted \" #\" starts a YAML comment, so %s is only %s and %s is dropped; quote the value to keep it",
				value.Line, key.Value, key.Value, yamlconf.Quote(value.Value), yamlconf.Quote(value.LineComment)))
		}
	}
	return warnings
}
