package configfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"gopkg.in/yaml.v3"
)

// File is a configuration file read into a scenario.
type File struct {
	Path string
	// Kind says which of the three forms the file has (see the package
	// doc): KindConfigText, KindTRTLLM or KindScenario.
	Kind string
	// Scenario is what kvcheck checks: named after the kvcheck.name key or
	// the file's base name.
	Scenario *spec.Scenario
	// Mapping is how each TensorRT-LLM option and kvcheck key became a
	// setting of the scaled configuration, in file order.
	Mapping []Mapping
	// Warnings name the options the spec does not model.
	Warnings []string
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
		return nil, &Error{File: path, Msg: "not a regular file; expected a configuration file"}
	}
	if info.Size() > MaxFileBytes {
		return nil, &Error{File: path, Msg: fmt.Sprintf("%d bytes, more than the %d a configuration file may have", info.Size(), MaxFileBytes)}
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
	r := &reader{path: path}
	return r.parseYAML(data)
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

// defaultDepth is the search depth of a file's scenario without
// kvcheck.depth, the built-in scenarios' depth.
const defaultDepth = 200

// parseConfigText reads kvcheck's configuration text: the real code
// alone, expected to break nothing, every request expected to finish.
func parseConfigText(path string, data []byte) (*File, error) {
	data, ranges := splitSweepLines(data)
	cfg, err := spec.ParseConfig(spec.Config{}, string(data))
	if err != nil {
		var ce *spec.ConfigError
		if errors.As(err, &ce) {
			return nil, &Error{File: path, Line: ce.Line, Msg: ce.Msg}
		}
		return nil, &Error{File: path, Msg: err.Error()}
	}
	sc := &spec.Scenario{
		Name:   scenarioName(path),
		Doc:    "configuration text of " + path,
		Report: path,
		Config: cfg,
		Goals:  []spec.GoalDef{spec.GoalAllFinished},
		Expect: map[string]string{"real-code": spec.VerdictOK},
		Depth:  defaultDepth,
	}
	return &File{Path: path, Kind: KindConfigText, Scenario: sc, Sweep: ranges}, nil
}

// reader is the state of reading one YAML file.
type reader struct {
	path string
}

func (f *reader) errAt(line int, format string, args ...any) error {
	return &Error{File: f.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// parseYAML reads a TensorRT-LLM options file or a scenario file.
func (f *reader) parseYAML(data []byte) (*File, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, f.yamlError(err)
	}
	if len(doc.Content) == 0 {
		return nil, f.errAt(0, "empty; expected TensorRT-LLM LLM API options with a kvcheck: section, or kvcheck's key=value configuration text")
	}
	top, err := f.mappingFields(doc.Content[0], "the file")
	if err != nil {
		return nil, err
	}
	var section *field
	var options []field
	for i := range top {
		if top[i].key == "kvcheck" {
			section = &top[i]
		} else {
			options = append(options, top[i])
		}
	}
	if section == nil {
		return nil, f.errAt(doc.Content[0].Line, "no kvcheck: section; expected one with at least the requests the model sends (docs/configuration.md)")
	}
	ks, err := f.parseSection(*section)
	if err != nil {
		return nil, err
	}
	out := &File{Path: f.path}
	var lines []textLine
	if len(options) > 0 || len(ks.requests) > 0 {
		out.Kind = KindTRTLLM
		d := &deriver{r: f, ks: ks}
		if err := d.derive(options); err != nil {
			return nil, err
		}
		out.Mapping, out.Warnings, lines = d.mapping, d.warnings, d.lines
	} else {
		out.Kind = KindScenario
		if ks.config == nil {
			return nil, f.errAt(section.line, "kvcheck: expected requests: (with TensorRT-LLM options around it) or config: (kvcheck's configuration text)")
		}
	}
	lines = append(lines, ks.config...)
	cfg, err := f.applyText(lines, section.line)
	if err != nil {
		return nil, err
	}
	sc := &spec.Scenario{
		Name:      ks.name,
		Doc:       ks.doc,
		Report:    ks.report,
		Config:    cfg,
		Goals:     ks.goals,
		FixSets:   ks.fixSets,
		Expect:    ks.expect,
		Depth:     ks.depth,
		MaxStates: ks.maxStates,
	}
	if sc.Name == "" {
		sc.Name = scenarioName(f.path)
	}
	if sc.Doc == "" {
		sc.Doc = "configuration of " + f.path
	}
	if sc.Report == "" {
		sc.Report = f.path
	}
	out.Scenario = sc
	out.Sweep = ks.sweep
	return out, nil
}

// yamlError turns a YAML syntax error into an Error; yaml.v3 says "yaml:
// line N: ...".
func (f *reader) yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
	}
	return f.errAt(line, "not valid YAML (%s); expected TensorRT-LLM LLM API options with a kvcheck: section, or kvcheck's key=value configuration text", msg)
}

// textLine is one line of configuration text and the file line it came
// from.
type textLine struct {
	text string
	line int
}

// applyText parses the configuration text lines onto the zero Config.
// A setting's error is reported at the line it came from; an invalid
// whole is reported at the kvcheck: section.
func (f *reader) applyText(lines []textLine, sectionLine int) (spec.Config, error) {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	cfg, err := spec.ParseConfig(spec.Config{}, b.String())
	if err == nil {
		return cfg, nil
	}
	var ce *spec.ConfigError
	if errors.As(err, &ce) && ce.Line >= 1 && ce.Line <= len(lines) {
		return cfg, f.errAt(lines[ce.Line-1].line, "%s (setting %s)", ce.Msg, quote(lines[ce.Line-1].text))
	}
	return cfg, f.errAt(sectionLine, "the scaled configuration is not one kvcheck can check: %v; adjust the kvcheck: section", err)
}
