// Package space is the machinery kvcheck builds around the spec's
// configuration (spec.Config): configuration spaces (a range per setting
// and a request mix, space.go), their size bound (bound.go), their
// enumeration into canonical, deduplicated configurations (enum.go),
// random configurations around a scenario's (random.go), the default
// sweep ranges of each scenario (defaults.go), the settings that differ
// between two configurations (settings.go) and the value classes a sweep
// should reach (valueclasses.go).
//
// It models nothing of TensorRT-LLM: it chooses which configurations the
// checker explores. It imports spec, and spec never imports it
// (spec/layout_test.go); a setting is declared once, as a tagged field of
// spec.Config, and read here through configtext.Fields.
package space
