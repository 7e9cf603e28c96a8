package configfile

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/counterexamples"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
	"gopkg.in/yaml.v3"
)

// Format renders a scenario as a scenario file (KindScenario) that Parse
// reads back as the same scenario: its name, doc, report, search bounds,
// goals, variants with their expected verdicts, and its configuration as
// kvcheck's configuration text.
func Format(sc *scenario.Scenario) ([]byte, error) {
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }
	section := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, value *yaml.Node) {
		section.Content = append(section.Content, str(key), value)
	}
	add("name", str(sc.Name))
	add("doc", str(sc.Doc))
	add("report", str(sc.Report))
	add("depth", str(fmt.Sprint(sc.Depth)))
	if sc.MaxStates > 0 {
		add("max_states", str(fmt.Sprint(sc.MaxStates)))
	}
	goals := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, g := range sc.Goals {
		goals.Content = append(goals.Content, str(g.Name))
	}
	add("goals", goals)
	variants := &yaml.Node{Kind: yaml.SequenceNode}
	for _, fixes := range sc.Variants() {
		verdict, ok := sc.Expected(fixes)
		if !ok {
			verdict = spec.VerdictOK
		}
		variants.Content = append(variants.Content, &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle,
			Content: []*yaml.Node{str("fixes"), str(fixes.Label()), str("expect"), str(verdict)}})
	}
	add("variants", variants)
	add("config", &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.LiteralStyle, Value: counterexamples.ConfigText(&sc.Config)})
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("kvcheck"), section}}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kvcheck scenario %s, as `kvcheck show-config %s` prints it. Copy it, edit it and\n", sc.Name, sc.Name)
	b.WriteString("# check it with `kvcheck check --config FILE`. config: is kvcheck's configuration text\n")
	b.WriteString("# (key=value settings, one request line per request; docs/configuration.md lists the keys);\n")
	b.WriteString("# variants: are the fix sets checked and the verdict expected of each (ok, or the\n")
	b.WriteString("# invariant the variant breaks). TensorRT-LLM LLM API options may be added around the\n")
	b.WriteString("# kvcheck: section (docs/configuration.md).\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return []byte(strings.ReplaceAll(b.String(), "\r", "")), nil
}
