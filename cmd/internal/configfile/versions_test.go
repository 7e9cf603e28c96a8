package configfile

import (
	"strings"
	"testing"
)

// TestEverySpecVersionPlaced: each version the spec models is a release
// tag (ordered by its number) or a commit placed on TensorRT-LLM's history
// by versionPoints, and each versionPoint is a version the spec models.
// When the spec adds a commit version, this names it.
func TestEverySpecVersionPlaced(t *testing.T) {
	versions := SpecVersions()
	if len(versions) < 2 || versions[0] != "v1.3.0rc25" {
		t.Fatalf("spec versions %v", versions)
	}
	for _, v := range versions {
		if _, ok := releaseOf(v); ok {
			continue
		}
		placed := false
		for _, p := range versionPoints {
			placed = placed || p.name == v
		}
		if !placed {
			t.Errorf("spec version %s is neither a release tag nor in versionPoints (cmd/internal/configfile/versions.go): add the release it follows and what it models differently", v)
		}
	}
	for _, p := range versionPoints {
		if !contains(versions, p.name) {
			t.Errorf("versionPoints names %s, which the spec does not model", p.name)
		}
		if _, ok := releaseOf(p.follows); !ok {
			t.Errorf("%s follows %q, not a release", p.name, p.follows)
		}
	}
}

// TestChooseVersion: a modelled version (or its commit) is taken as is; a
// later release maps to the newest modelled release at or before it with a
// warning naming what kvcheck models after that release; an earlier
// release, an unknown commit or another word is refused with the versions
// modelled.
func TestChooseVersion(t *testing.T) {
	for _, tc := range []struct {
		user, version, warning, err string
	}{
		{"v1.3.0rc25", "v1.3.0rc25", "", ""},
		{"1.3.0rc25", "v1.3.0rc25", "", ""},
		{"785c948", "v1.3.0rc25", "", ""},
		{"00746ef", "00746ef", "", ""},
		{"00746ef9992943a9bb604dbf1ecf00c64af58c32", "00746ef", "", ""},
		{"1.3.0rc26", "v1.3.0rc25", "TensorRT-LLM 1.3.0rc26 is later than v1.3.0rc25, the newest release kvcheck models at or before it", ""},
		{"1.3.0", "v1.3.0rc25", "at 00746ef: PR #19202", ""},
		{"v1.4.0rc1", "v1.3.0rc25", "Anything else merged between v1.3.0rc25 and v1.4.0rc1 is not modelled", ""},
		{"1.3.0rc24", "", "", "release 1.3.0rc24 is older than every version kvcheck models (v1.3.0rc25 (785c948), 00746ef (main after v1.3.0rc25), 00746ef+pr19181 (main after v1.3.0rc25))"},
		{"1.2.1", "", "", "release 1.2.1 is older"},
		{"abcdef1234", "", "", "commit abcdef1234 is not one kvcheck can place"},
		{"latest", "", "", `expected a TensorRT-LLM release such as 1.3.0rc26 or a commit hash, got "latest"`},
	} {
		got, err := chooseVersion(tc.user)
		switch {
		case tc.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: %v, %v; want error %q", tc.user, got, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.user, err)
		case got.version != tc.version || (tc.warning == "") != (got.warning == "") || !strings.Contains(got.warning, tc.warning):
			t.Errorf("%s: %+v, want %s with warning %q", tc.user, got, tc.version, tc.warning)
		}
	}
}
