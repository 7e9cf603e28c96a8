package main

import (
	"fmt"
	"time"

	"github.com/kvcheck/kvcheck/cmd/internal/configfile"
	"github.com/kvcheck/kvcheck/spec"
	"github.com/kvcheck/kvcheck/spec/scenario"
)

// deploymentRows checks the configuration file path as it is (a
// deployment's TensorRT-LLM options with its kvcheck: section, as
// `kvcheck check --config` reads it) under its first fix, in a child
// process for each reduction setting of modes (symmetry and partial-order
// reduction together), and prints and returns the rows.
func deploymentRows(exe, path string, modes []bool, workers int, limit time.Duration) []row {
	f, err := configfile.Load(path)
	if err != nil {
		fail(err)
	}
	label := f.Scenario.Name
	fmt.Printf("\n%s (%s), checked as it is under %s, %d worker(s):\n", label, path, fixLabel(f.Scenario), workers)
	printHeader()
	var rows []row
	first := 0
	for _, on := range modes {
		if r, ok := runChild(exe, []string{"-child-file", path}, label, on, on, workers, limit, &first); ok {
			rows = append(rows, r)
		}
	}
	return rows
}

// fixLabel names the fix set a deployment is checked under.
func fixLabel(sc *scenario.Scenario) string {
	if vs := sc.Variants(); len(vs) > 1 {
		return vs[1].Label()
	}
	return "the real code (the file names no fix)"
}

// checkFile checks the configuration file path under its first fix.
func checkFile(path string, symmetry, por bool, workers int) (result, error) {
	f, err := configfile.Load(path)
	if err != nil {
		return result{}, err
	}
	sc := f.Scenario
	var fixes spec.Fixes
	if vs := sc.Variants(); len(vs) > 1 {
		fixes = vs[1]
	}
	sp, err := sc.Spec(fixes)
	if err != nil {
		return result{}, err
	}
	r := check(sp, sc.Depth, symmetry, por, workers)
	r.Name = sc.Name
	return r, nil
}
