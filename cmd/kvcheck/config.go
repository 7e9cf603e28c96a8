package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/kvcheck/kvcheck/cmd/internal/configfile"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// selection is what the --scenario, --fix and --config flags of check and
// fuzz select.
type selection struct {
	scenarios, fixes, configs []string
	// command is the subcommand ("check", "fuzz"), for reproduce lines.
	command string
	// quiet prints a --config file's warnings but not its mapping.
	quiet bool
	// pressure is whether the command checks a TensorRT-LLM options file
	// on its pressure sweep (check without --pressure=false); otherwise
	// the file's sweep is dropped, and its derivation does not claim it.
	pressure bool
}

// variants expands a selection: the built-in scenarios named (all of them
// when neither --scenario nor --config is given) and the scenario of each
// --config file, each under the --fix set or, without --fix, as the real
// code and with each of its fix sets. It prints on w how each --config
// file's configuration was derived. --fix none beside another fix, or a
// fix none of the selected built-in scenarios is checked with, is an
// error; a --config file's scenario may take any fix.
func (s selection) variants(w io.Writer) ([]variant, error) {
	type source struct {
		sc       *scenario.Scenario
		path     string
		pressure *configfile.Pressure
	}
	var sources []source
	if err := oneStdin(s.configs); err != nil {
		return nil, err
	}
	for _, name := range s.scenarios {
		sc, err := lookupScenario(name)
		if err != nil {
			return nil, err
		}
		sources = append(sources, source{sc: sc})
	}
	for _, path := range s.configs {
		f, err := loadConfig(path)
		if err != nil {
			return nil, fmt.Errorf("--config: %v\nreproduce: %s %s --config %s", err, commandName(), s.command, path)
		}
		if !s.pressure {
			f.Pressure = nil
		}
		if s.quiet {
			printWarnings(w, f)
		} else {
			printDerivation(w, f)
		}
		sources = append(sources, source{sc: f.Scenario, path: path, pressure: f.Pressure})
	}
	if len(s.scenarios) == 0 && len(s.configs) == 0 {
		for _, sc := range scenario.All() {
			sources = append(sources, source{sc: sc})
		}
	}
	var explicit *spec.Fixes
	if len(s.fixes) > 0 {
		var names []string
		for _, n := range s.fixes {
			if n != "none" {
				names = append(names, n)
			}
		}
		if len(names) > 0 && len(names) < len(s.fixes) {
			return nil, fmt.Errorf("--fix none (the real code alone) cannot be combined with another --fix")
		}
		fixes, err := parseFixes(names)
		if err != nil {
			return nil, err
		}
		var builtins []*scenario.Scenario
		for _, src := range sources {
			if src.path == "" {
				builtins = append(builtins, src.sc)
			}
		}
		if len(s.configs) == 0 {
			if err := fixesBelong(fixes, builtins); err != nil {
				return nil, err
			}
		}
		explicit = &fixes
	}
	var out []variant
	for _, src := range sources {
		if explicit != nil {
			out = append(out, variant{src.sc, *explicit, src.path, src.pressure})
			continue
		}
		for _, fixes := range src.sc.Variants() {
			out = append(out, variant{src.sc, fixes, src.path, src.pressure})
		}
	}
	return out, nil
}

// fixesBelong reports a fix that none of the scenarios is checked with: a
// slip more often than an experiment. (With a --config file any fix may
// apply.)
func fixesBelong(fixes spec.Fixes, scenarios []*scenario.Scenario) error {
	var names, offered []string
	has := map[spec.Fix]bool{}
	for _, sc := range scenarios {
		names = append(names, sc.Name)
		for _, set := range sc.FixSets {
			for _, f := range set {
				if !has[f] {
					offered = append(offered, f.String())
				}
				has[f] = true
			}
		}
	}
	for _, fix := range fixes.List() {
		if !has[fix] {
			return fmt.Errorf("--fix %s belongs to none of the selected scenarios (%s); their fixes: %s",
				fix, strings.Join(names, ", "), strings.Join(offered, ", "))
		}
	}
	return nil
}

// printDerivation prints how a --config file became the configuration
// checked: each option, the settings it gave and why, in the order of the
// file's lines (the derivation's own order among those of one line), the
// settings no line of the file gave (defaults) after them, then the
// warnings.
func printDerivation(w io.Writer, f *configfile.File) {
	fmt.Fprintf(w, "kvcheck: %s (%s) is checked as scenario %s", f.Path, f.Kind, f.Scenario.Name)
	if len(f.Mapping) == 0 {
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, ", scaled down as follows:")
	}
	mapping := slices.Clone(f.Mapping)
	slices.SortStableFunc(mapping, func(a, b configfile.Mapping) int { return cmp.Compare(fileOrder(a.Line), fileOrder(b.Line)) })
	for _, m := range mapping {
		where := "  -"
		if m.Line > 0 {
			where = fmt.Sprintf("  line %d", m.Line)
		}
		settings := "(no setting)"
		if len(m.Settings) > 0 {
			settings = strings.Join(m.Settings, " ")
		}
		fmt.Fprintf(w, "%s: %s → %s: %s\n", where, m.Option, settings, m.Why)
	}
	if len(f.Ignored) > 0 {
		fmt.Fprintf(w, "kvcheck: %s: options ignored, known not to matter to the KV cache:\n", f.Path)
		for _, line := range f.Ignored {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	printWarnings(w, f)
}

// printWarnings prints a --config file's warnings.
func printWarnings(w io.Writer, f *configfile.File) {
	for _, warn := range f.Warnings {
		fmt.Fprintf(w, "kvcheck: warning: %s: %s\n", f.Path, warn)
	}
	if p := f.Pressure; p != nil {
		fmt.Fprintf(w, "kvcheck: %s: checked on the pressure sweep around these sizes (--pressure=false: the derived configuration alone):\n", f.Path)
		for _, line := range p.Why {
			fmt.Fprintf(w, "  %s\n", line)
		}
		fmt.Fprintf(w, "  an ok needs some configuration to reach each of: %s\n", strings.Join(p.Goals, ", "))
	}
}

// fileOrder sorts a mapping's line: lines of the file first, in order,
// then the settings no line gave (line 0).
func fileOrder(line int) int {
	if line <= 0 {
		return math.MaxInt
	}
	return line
}

// lookupScenario is scenario.Lookup with an error that quotes a
// bounded prefix of the name.
func lookupScenario(name string) (*scenario.Scenario, error) {
	sc, err := scenario.Lookup(name)
	if err == nil {
		return sc, nil
	}
	var names []string
	for _, sc := range scenario.All() {
		names = append(names, sc.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown scenario %s; valid scenarios: %s", quote(name), strings.Join(names, ", "))
}

// parseFixes is spec.ParseFixes with an error that quotes a bounded
// prefix of the name.
func parseFixes(names []string) (spec.Fixes, error) {
	var fixes spec.Fixes
	for _, n := range names {
		f, err := spec.ParseFix(n)
		if err != nil {
			var valid []string
			for _, f := range spec.AllFixes() {
				valid = append(valid, f.String())
			}
			sort.Strings(valid)
			return 0, fmt.Errorf("unknown fix %s; valid fixes: %s (or 'none')", quote(n), strings.Join(valid, ", "))
		}
		fixes = fixes.With(f)
	}
	return fixes, nil
}
