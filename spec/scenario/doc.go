// Package scenario is kvcheck's scenario machinery around the engine of
// package spec: the built-in scenarios, each a file of scenarios/
// embedded in the binary (files.go, in the order of scenarioOrder), the
// scenario file format (file.go; docs/configuration.md describes it),
// the fix sets each scenario is checked under and the verdict expected of
// each (scenario.go, expect.go).
//
// It builds on spec, one way (spec/layout_test.go): a Scenario embeds the
// spec.ScenarioInfo a Spec made from it keeps (its goals and the
// invariants it leaves to another scenario, with its name and seed
// report), and Scenario.Spec makes that spec. The engine itself never
// reads a scenario file; spec's own tests, which cannot import this
// package, are lent the built-in scenarios by spec/lend_scenarios_test.go.
package scenario
