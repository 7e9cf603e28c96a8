package configfile

import (
	"github.com/kvcheck/kvcheck/spec/yamlconf"
	"gopkg.in/yaml.v3"
)

// yaml11Bools are the scalars PyYAML's yaml.safe_load (YAML 1.1, which
// TensorRT-LLM reads --extra_llm_api_options with: BaseLlmArgs.from_yaml
// and update_llm_args_with_extra_options in llm_args.py) resolves to a
// boolean: its bool resolver's ^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|
// false|False|FALSE|on|On|ON|off|Off|OFF)$. yaml.v3 reads YAML 1.2, where
// yes and on are strings, so a file TensorRT-LLM reads as true would
// otherwise be refused.
var yaml11Bools = map[string]bool{
	"yes": true, "Yes": true, "YES": true, "no": false, "No": false, "NO": false,
	"true": true, "True": true, "TRUE": true, "false": false, "False": false, "FALSE": false,
	"on": true, "On": true, "ON": true, "off": false, "Off": false, "OFF": false,
}

// readBool reads a boolean as PyYAML does (yaml11Bools); anything else is
// an error naming the file, the line and the forms accepted. (A quoted
// "yes" is a string to PyYAML, which pydantic's lax bool accepts too.)
func readBool(r *yamlconf.Reader, fl yamlconf.Field) (bool, error) {
	if fl.Node.Kind == yaml.ScalarNode {
		if b, ok := yaml11Bools[fl.Node.Value]; ok {
			return b, nil
		}
	}
	return false, r.Errorf(fl.Line, "%s: expected true or false (YAML 1.1 as TensorRT-LLM reads it: also yes/no, on/off), got %s", fl.Key, yamlconf.KindName(fl.Node))
}
