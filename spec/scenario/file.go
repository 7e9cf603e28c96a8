package scenario

import (
	"errors"
	"slices"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/configtext"
	"github.com/kvcheck/kvcheck/spec/yamlconf"
	"gopkg.in/yaml.v3"
)

// scenarioKeys are the keys of a kvcheck: section that describe the
// scenario itself; ParseSection hands any other key to its
// caller.
var scenarioKeys = []string{"name", "doc", "report", "depth", "max_states", "goals", "reaches", "checked_elsewhere", "variants", "config"}

// Keys returns the keys of a kvcheck: section that describe the
// scenario itself, in the order the format documents them.
func Keys() []string { return slices.Clone(scenarioKeys) }

// defaultScenarioDepth is the search depth of a scenario file without
// depth:.
const defaultScenarioDepth = 200

// ParseSection reads the kvcheck: section of a scenario or
// configuration file: its name, doc, report, search bounds, goals
// (default all-requests-finished) and variants with their expected
// verdicts (default: the real code, expected ok) into a Scenario whose
// Config is left zero, and the lines of its config: text. Any other key
// goes to other, which returns an error for a key it does not know.
func ParseSection(r *yamlconf.Reader, section yamlconf.Field, other func(yamlconf.Field) error) (*Scenario, []yamlconf.TextLine, error) {
	fields, err := r.Fields(section.Node, "kvcheck")
	if err != nil {
		return nil, nil, err
	}
	sc := &Scenario{ScenarioInfo: spec.ScenarioInfo{Goals: []spec.GoalDef{spec.GoalAllFinished}}, Expect: map[string]string{}, Depth: defaultScenarioDepth}
	var config []yamlconf.TextLine
	for _, fl := range fields {
		var err error
		switch fl.Key {
		case "name":
			sc.Name, err = r.String(fl)
		case "doc":
			sc.Doc, err = r.String(fl)
		case "report":
			sc.Report, err = r.String(fl)
		case "depth":
			var n int64
			n, err = r.Int(fl, 1, 1<<20)
			sc.Depth = int(n)
		case "max_states":
			var n int64
			n, err = r.Int(fl, 0, 1<<31-1)
			sc.MaxStates = int(n)
		case "goals":
			sc.Goals, err = parseGoals(r, fl)
		case "reaches":
			sc.Reaches, err = parseReaches(r, fl)
		case "default_sweep":
			sc.Sweep, err = r.StringList(fl)
		case "checked_elsewhere":
			sc.CheckedElsewhere, err = parseCheckedElsewhere(r, fl)
		case "variants":
			err = parseVariants(r, fl, sc)
		case "config":
			if _, err = r.String(fl); err == nil {
				config = yamlconf.TextLines(fl)
			}
		default:
			err = other(fl)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if len(sc.Expect) == 0 {
		sc.Expect["real-code"] = spec.VerdictOK
	}
	return sc, config, nil
}

func parseGoals(r *yamlconf.Reader, fl yamlconf.Field) ([]spec.GoalDef, error) {
	names, err := r.StringList(fl)
	if err != nil {
		return nil, err
	}
	var goals []spec.GoalDef
	for _, n := range names {
		g, err := spec.LookupGoal(n)
		if err != nil {
			return nil, r.Errorf(fl.Line, "goals: %v", err)
		}
		goals = append(goals, g)
	}
	return goals, nil
}

// parseReaches reads reaches: a list of mechanisms ("branch NAME",
// "raise NAME" or "action NAME", as `kvcheck check --cover` lists them).
func parseReaches(r *yamlconf.Reader, fl yamlconf.Field) ([]string, error) {
	keys, err := r.StringList(fl)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if _, ok := spec.MechanismModels(k); !ok {
			return nil, r.Errorf(fl.Line, "reaches: unknown mechanism %q; expected \"branch NAME\", \"raise NAME\" or \"action NAME\" as kvcheck check --cover lists them", k)
		}
	}
	return keys, nil
}

// parseCheckedElsewhere reads checked_elsewhere: a map from invariant
// names to the scenario that reports them (TestCheckedElsewhereIsChecked
// holds each to it).
func parseCheckedElsewhere(r *yamlconf.Reader, fl yamlconf.Field) (map[string]string, error) {
	fields, err := r.Fields(fl.Node, "checked_elsewhere")
	if err != nil {
		return nil, err
	}
	valid := spec.Verdicts(&spec.Spec{})
	out := map[string]string{}
	for _, f := range fields {
		if !slices.Contains(valid, f.Key) || f.Key == spec.VerdictOK {
			return nil, r.Errorf(f.Line, "checked_elsewhere: unknown invariant %s; expected one of: %s", yamlconf.Quote(f.Key), strings.Join(valid[1:], ", "))
		}
		name, err := r.String(f)
		if err != nil {
			return nil, err
		}
		out[f.Key] = name
	}
	return out, nil
}

// parseVariants reads variants: a list of {fixes: LABEL, expect:
// VERDICT}, the real code among them, into sc's FixSets and Expect.
func parseVariants(r *yamlconf.Reader, fl yamlconf.Field, sc *Scenario) error {
	if fl.Node.Kind != yaml.SequenceNode {
		return r.Errorf(fl.Line, "variants: expected a list of {fixes: real-code|FIX[+FIX...], expect: ok|INVARIANT}, got %s", yamlconf.KindName(fl.Node))
	}
	valid := spec.Verdicts(&spec.Spec{})
	for _, item := range fl.Node.Content {
		fields, err := r.Fields(item, "variants")
		if err != nil {
			return err
		}
		var label, verdict string
		for _, v := range fields {
			s, err := r.String(v)
			if err != nil {
				return err
			}
			switch v.Key {
			case "fixes":
				label = s
			case "expect":
				verdict = s
			default:
				return r.Errorf(v.Line, "variants: unknown key %s; expected fixes and expect", yamlconf.Quote(v.Key))
			}
		}
		if label == "" || verdict == "" {
			return r.Errorf(item.Line, "variants: expected both fixes: (real-code or FIX[+FIX...]) and expect: (ok or an invariant)")
		}
		fixes, err := spec.ParseFixesLabel(label)
		if err != nil {
			return r.Errorf(item.Line, "variants: %v", err)
		}
		if !slices.Contains(valid, verdict) {
			return r.Errorf(item.Line, "variants: unknown verdict %s; expected one of: %s", yamlconf.Quote(verdict), strings.Join(valid, ", "))
		}
		if _, dup := sc.Expect[fixes.Label()]; dup {
			return r.Errorf(item.Line, "variants: %s given twice", fixes.Label())
		}
		sc.Expect[fixes.Label()] = verdict
		if fixes != 0 {
			sc.FixSets = append(sc.FixSets, fixes.List())
		}
	}
	if _, ok := sc.Expect["real-code"]; !ok {
		return r.Errorf(fl.Line, "variants: expected the real code among them ({fixes: real-code, expect: ...})")
	}
	return nil
}

// ApplyConfigLines parses configuration text lines (configtext.Parse's form)
// onto the zero Config. A setting's error is reported at its file line; a
// configuration invalid as a whole at sectionLine.
func ApplyConfigLines(r *yamlconf.Reader, lines []yamlconf.TextLine, sectionLine int) (spec.Config, error) {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Text + "\n")
	}
	cfg, err := configtext.Parse(spec.Config{}, b.String())
	if err == nil {
		return cfg, nil
	}
	var ce *configtext.Error
	if errors.As(err, &ce) && ce.Line >= 1 && ce.Line <= len(lines) {
		return cfg, r.Errorf(lines[ce.Line-1].Line, "%s (setting %s)", ce.Msg, yamlconf.Quote(lines[ce.Line-1].Text))
	}
	line, setting := settingLine(lines, err.Error())
	if setting != "" {
		return cfg, r.Errorf(line, "the configuration is not one kvcheck can check: %v (set by %s); adjust the kvcheck: section", err, yamlconf.Quote(setting))
	}
	return cfg, r.Errorf(sectionLine, "the configuration is not one kvcheck can check: %v; adjust the kvcheck: section", err)
}

// settingLine finds the line that set the key a validation error starts
// with ("invalid configuration: target_blocks must hold ..."): the last of
// lines that sets it, so the error points at the key that gave the value
// rather than at the section. It returns 0 and "" when no line sets it.
func settingLine(lines []yamlconf.TextLine, msg string) (int, string) {
	msg = strings.TrimPrefix(msg, "invalid configuration: ")
	key := msg
	if i := strings.IndexFunc(msg, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '_') }); i >= 0 {
		key = msg[:i]
	}
	if key == "" {
		return 0, ""
	}
	for i := len(lines) - 1; i >= 0; i-- {
		for _, field := range strings.Fields(lines[i].Text) {
			if strings.HasPrefix(field, key+"=") && lines[i].Line > 0 {
				return lines[i].Line, field
			}
		}
	}
	return 0, ""
}

// ParseFile reads a scenario file: a kvcheck: section with the
// scenario's keys and its whole configuration as config: text.
func ParseFile(file string, data []byte) (*Scenario, error) {
	r := &yamlconf.Reader{File: file, Expected: "a kvcheck: section with name, doc, report, goals, variants and config"}
	top, err := r.Decode(data)
	if err != nil {
		return nil, err
	}
	if top == nil {
		return nil, r.Errorf(0, "empty; expected %s", r.Expected)
	}
	fields, err := r.Fields(top, "the file")
	if err != nil {
		return nil, err
	}
	if len(fields) != 1 || fields[0].Key != "kvcheck" {
		return nil, r.Errorf(top.Line, "expected only a kvcheck: section")
	}
	sc, config, err := ParseSection(r, fields[0], func(fl yamlconf.Field) error {
		return r.Errorf(fl.Line, "kvcheck: unknown key %s; expected one of: %s", yamlconf.Quote(fl.Key), strings.Join(scenarioKeys, ", "))
	})
	if err != nil {
		return nil, err
	}
	if config == nil {
		return nil, r.Errorf(fields[0].Line, "kvcheck: expected config: with the scenario's configuration text")
	}
	if sc.Config, err = ApplyConfigLines(r, config, fields[0].Line); err != nil {
		return nil, err
	}
	return sc, nil
}
