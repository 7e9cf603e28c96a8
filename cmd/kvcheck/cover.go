package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/space"
)

// coverage collects, per scenario, what the variants of a `check --cover`
// or `fuzz --cover` run exercised (spec.Coverage), for the table printed at
// the end of the run.
type coverage struct {
	byScenario map[string]*spec.Coverage
	order      []string
	// classes marks the value classes (space.ValueClasses) of the
	// configurations a sweep checked; nil outside a sweep.
	classes []bool
}

func newCoverage() *coverage {
	return &coverage{byScenario: map[string]*spec.Coverage{}}
}

// sink returns a fresh spec.Coverage to hand to one variant's spec, or nil
// when c is nil (no --cover): the spec then counts nothing.
func (c *coverage) sink() *spec.Coverage {
	if c == nil {
		return nil
	}
	return spec.NewCoverage()
}

// add folds one variant's counts into its scenario's.
func (c *coverage) add(scenario string, counts *spec.Coverage) {
	if c == nil || counts == nil {
		return
	}
	if c.byScenario[scenario] == nil {
		c.byScenario[scenario] = spec.NewCoverage()
		c.order = append(c.order, scenario)
	}
	c.byScenario[scenario].Add(counts)
}

// coverRow is one line of the coverage table: a mechanism, how many
// transitions exercised it in all, and which scenarios reached it.
type coverRow struct {
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	Count     uint64   `json:"count"`
	Scenarios []string `json:"scenarios"`
	Models    string   `json:"models"`
}

// addConfig marks the value classes of a configuration a sweep checked.
func (c *coverage) addConfig(cfg *spec.Config) {
	if c == nil {
		return
	}
	if c.classes == nil {
		c.classes = make([]bool, len(space.ValueClasses()))
	}
	space.MarkValueClasses(cfg, c.classes)
}

// classReport is what a sweep's configurations reached of the settings'
// value classes.
type classReport struct {
	Reached int      `json:"reached"`
	Total   int      `json:"total"`
	Never   []string `json:"never_reached"`
}

func (c *coverage) classReport() *classReport {
	if c.classes == nil {
		return nil
	}
	all := space.ValueClasses()
	r := &classReport{Total: len(all), Never: []string{}}
	for i, vc := range all {
		if c.classes[i] {
			r.Reached++
		} else {
			r.Never = append(r.Never, vc.String())
		}
	}
	return r
}

// rows merges the scenarios' counts into one row per mechanism.
func (c *coverage) rows() []coverRow {
	var out []coverRow
	index := map[string]int{}
	for _, rr := range spec.NewCoverage().Rows() {
		index[rr.Key()] = len(out)
		out = append(out, coverRow{Kind: string(rr.Kind), Name: rr.Name, Models: rr.Models, Scenarios: []string{}})
	}
	for _, sc := range c.order {
		for _, rr := range c.byScenario[sc].Rows() {
			if rr.Count == 0 {
				continue
			}
			row := &out[index[rr.Key()]]
			row.Count += rr.Count
			row.Scenarios = append(row.Scenarios, sc)
		}
	}
	return out
}

// print writes the coverage table, then the mechanisms no variant of the
// run reached. With asJSON it writes one JSON object instead.
func (c *coverage) print(w io.Writer, asJSON bool, command string) {
	rows := c.rows()
	var never []coverRow
	for _, r := range rows {
		if r.Count == 0 {
			never = append(never, r)
		}
	}
	classes := c.classReport()
	if asJSON {
		line, _ := json.Marshal(struct {
			Coverage     []coverRow   `json:"coverage"`
			ValueClasses *classReport `json:"value_classes,omitempty"`
		}{rows, classes})
		fmt.Fprintln(w, string(line))
		return
	}
	defer c.printClasses(w, classes, command)
	fmt.Fprintf(w, "\ncoverage: %d of %d mechanisms reached\n", len(rows)-len(never), len(rows))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tMECHANISM\tCOUNT\tSCENARIOS\tMODELS")
	for _, r := range rows {
		scenarios := strings.Join(r.Scenarios, ",")
		if scenarios == "" {
			scenarios = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", r.Kind, r.Name, r.Count, scenarios, r.Models)
	}
	tw.Flush()
	if len(never) == 0 {
		return
	}
	names := make([]string, len(never))
	for i, r := range never {
		names[i] = r.Kind + " " + r.Name
		if why := spec.CoverageException(spec.CoverageKind(r.Kind), r.Name); why != "" {
			names[i] += ": " + why
		}
	}
	sort.Strings(names)
	fmt.Fprintf(w, "\nnever reached (%d):\n", len(never))
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", n)
	}
	fmt.Fprintf(w, "  reproduce: %s\n", command)
}

// printClasses prints the value classes a sweep's configurations reached
// and those never reached.
func (c *coverage) printClasses(w io.Writer, r *classReport, command string) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nvalue classes: %d of %d reached", r.Reached, r.Total)
	if len(r.Never) > 0 {
		fmt.Fprintf(w, "; never reached: %s", strings.Join(r.Never, ", "))
	}
	fmt.Fprintf(w, "\n  reproduce: %s\n", command)
}
