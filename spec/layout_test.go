package spec

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// specLayout is the spec's package layout (docs/development.md, "Layout"):
// each package under spec/ and the packages of spec/... it may import.
// The engine's state machine is spec itself, which imports none of them;
// the machinery around the engine builds on spec, one way:
// spec/configtext (the configuration's text form) imports only spec,
// spec/scenario (the built-in scenarios, their file format and expected
// verdicts) reads its files with spec/yamlconf, a leaf, and their config:
// sections with spec/configtext, and spec/space (configuration spaces)
// ranges over spec/configtext's keys and takes a scenario's default sweep
// from spec/scenario. A new package under spec/ is added here, and to the
// layout the docs describe.
var specLayout = map[string][]string{
	"spec":            {},
	"spec/yamlconf":   {},
	"spec/configtext": {"spec"},
	"spec/scenario":   {"spec", "spec/yamlconf", "spec/configtext"},
	"spec/space":      {"spec", "spec/scenario", "spec/configtext"},
}

const modulePath = "github.com/kvcheck/kvcheck/"

// TestSpecImportsOneWay: every package under spec/ is in specLayout and
// imports (outside its tests) only the packages of spec/... specLayout
// gives it, so spec never imports what builds on it and no two
// subpackages import each other; spec's transitive imports hold none of
// the packages that build on it.
func TestSpecImportsOneWay(t *testing.T) {
	imports := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if name := e.Name(); path != "." && (name == "testdata" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Join("spec", path))
		imports[pkg] = nil
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, modulePath); ok && (rel == "spec" || strings.HasPrefix(rel, "spec/")) {
				imports[pkg] = append(imports[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading spec/'s packages: %v (reproduce: go test ./spec -run TestSpecImportsOneWay)", err)
	}
	for pkg, got := range imports {
		allowed, ok := specLayout[pkg]
		if !ok {
			t.Errorf("package %s is not in specLayout (spec/layout_test.go): add it with the packages it may import, and describe it in docs/development.md's Layout (reproduce: go test ./spec -run TestSpecImportsOneWay)", pkg)
			continue
		}
		for _, imp := range got {
			if !slices.Contains(allowed, imp) {
				t.Errorf("package %s imports %s, which specLayout does not allow it (%v): the spec's packages import one way (reproduce: go test ./spec -run TestSpecImportsOneWay)", pkg, imp, allowed)
			}
		}
	}
	for pkg := range specLayout {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("specLayout names %s, which has no Go files (reproduce: go test ./spec -run TestSpecImportsOneWay)", pkg)
		}
	}
	// spec's transitive imports within spec/...
	seen := map[string]bool{}
	var visit func(string)
	visit = func(pkg string) {
		for _, imp := range imports[pkg] {
			if !seen[imp] {
				seen[imp] = true
				visit(imp)
			}
		}
	}
	visit("spec")
	for imp := range seen {
		if imp == "spec" || slices.Contains(imports[imp], "spec") {
			t.Errorf("spec imports %s, which builds on spec (reproduce: go test ./spec -run TestSpecImportsOneWay)", imp)
		}
	}
}

// TestSourceHashCoversEverySubpackage: SourceHash's files (sourcehash.go's
// embed) are every Go file of spec/ and its subpackages, so that a changed
// subpackage changes the sweep cache's key too.
func TestSourceHashCoversEverySubpackage(t *testing.T) {
	var onDisk, embedded []string
	_ = filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(path, ".go") {
			onDisk = append(onDisk, filepath.ToSlash(path))
		}
		return err
	})
	_ = fs.WalkDir(sources, ".", func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			embedded = append(embedded, path)
		}
		return err
	})
	slices.Sort(onDisk)
	slices.Sort(embedded)
	for _, f := range onDisk {
		if _, found := slices.BinarySearch(embedded, f); !found {
			t.Errorf("SourceHash does not cover spec/%s: add its directory to the go:embed line of spec/sourcehash.go (reproduce: go test ./spec -run TestSourceHashCoversEverySubpackage)", f)
		}
	}
	if len(onDisk) == 0 {
		t.Fatal("found no Go files under spec/ (reproduce: go test ./spec -run TestSourceHashCoversEverySubpackage)")
	}
}
