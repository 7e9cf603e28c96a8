// Package configtext is the configuration's text form: the key=value and
// request lines that configuration files, scenario files' config:
// sections, transcripts and sweep records carry (Parse, ParseReal,
// Format, FormatRequest), and the keys it is made of (Fields, Lookup,
// ParseValue), one per tagged field of spec.Config.
//
// It models nothing of TensorRT-LLM: the configuration types stay in spec
// as the engine's parameters (spec/config.go), with the methods the text
// form reads declared beside them (the enumerations' Names, PreFixes'
// MarshalText); this package reads them through reflection and the
// EnumNamer and encoding.TextMarshaler interfaces. It imports spec, and
// spec never imports it (spec/layout_test.go); spec's internal tests are
// lent its parser (spec/lend_configtext_test.go).
package configtext
