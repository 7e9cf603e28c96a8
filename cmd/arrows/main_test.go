package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestMeasureCountsArrowsOncePerPair: in testdata/three, a.go uses b.go's
// B and c.go's C and C.M, c.go uses b.go's B, and local names and a file's
// own declarations are no arrows.
func TestMeasureCountsArrowsOncePerPair(t *testing.T) {
	m, err := Measure("testdata/three")
	if err != nil {
		t.Fatalf("Measure: %v (reproduce: go test ./cmd/arrows -run TestMeasureCountsArrowsOncePerPair)", err)
	}
	want := map[string][]string{
		"a.go -> b.go": {"B"},
		"a.go -> c.go": {".M", "C"},
		"c.go -> b.go": {"B"},
	}
	if !reflect.DeepEqual(m.Arrows, want) {
		t.Errorf("arrows %v, want %v (reproduce: go test ./cmd/arrows -run TestMeasureCountsArrowsOncePerPair)", m.Arrows, want)
	}
	var out strings.Builder
	m.Write(&out, false)
	if got := out.String(); got != "testdata/three: 3 files, 3 arrows inside\n" {
		t.Errorf("summary %q (reproduce: go test ./cmd/arrows -run TestMeasureCountsArrowsOncePerPair)", got)
	}
}

// TestSpaceBuildsOnSpec: spec/space's arrows into spec are counted as
// arrows to another package, and spec has none into spec/space,
// spec/scenario or spec/configtext (the layout docs/development.md
// measures).
func TestSpaceBuildsOnSpec(t *testing.T) {
	space, err := Measure("../../spec/space")
	if err != nil {
		t.Fatalf("Measure spec/space: %v (reproduce: go test ./cmd/arrows -run TestSpaceBuildsOnSpec)", err)
	}
	if _, across := space.Inside(); across["spec"] == 0 {
		t.Errorf("spec/space has no arrows into spec: %v (reproduce: go test ./cmd/arrows -run TestSpaceBuildsOnSpec)", across)
	}
	spec, err := Measure("../../spec")
	if err != nil {
		t.Fatalf("Measure spec: %v (reproduce: go test ./cmd/arrows -run TestSpaceBuildsOnSpec)", err)
	}
	_, across := spec.Inside()
	for _, sub := range []string{"spec/space", "spec/scenario", "spec/configtext"} {
		if across[sub] != 0 {
			t.Errorf("spec has %d arrows into %s (reproduce: go test ./cmd/arrows -run TestSpaceBuildsOnSpec)", across[sub], sub)
		}
	}
}
