package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFlagNamesFollowTheirBits: each list of flag words Dump prints
// (describe.go) names, in bit order, the constants of the iota block that
// declares its bits, read from the source: a flag declared without its
// word, a word left for a flag taken out, or two in another order, fails
// naming the constant. The word is the constant's name past its prefix in
// kebab case (requestFlagKVSent → kv-sent).
func TestFlagNamesFollowTheirBits(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		words  []string
	}{
		{"requestFlag", requestFlagNames},
		{"flag", cacheFlagNames},
		{"adpRole", adpRoleNames},
	} {
		consts := iotaBlockOf(t, tc.prefix)
		if len(consts) == 0 {
			t.Fatalf("no iota block of %s... constants in the package", tc.prefix)
		}
		for i, name := range consts {
			want := kebab(strings.TrimPrefix(name, tc.prefix))
			switch {
			case i >= len(tc.words):
				t.Errorf("%s (bit %d) has no word in describe.go's list for %s flags; add %q", name, i, tc.prefix, want)
			case tc.words[i] != want:
				t.Errorf("%s (bit %d) is worded %q in describe.go; expected %q", name, i, tc.words[i], want)
			}
		}
		if len(tc.words) > len(consts) {
			t.Errorf("describe.go words %d %s flags, the iota block declares %d: %v has no constant", len(tc.words), tc.prefix, len(consts), tc.words[len(consts):])
		}
	}
}

// iotaBlockOf returns, in order, the names of the const block whose first
// constant is PREFIX... = 1 << iota, from the package's non-test files.
func iotaBlockOf(t *testing.T, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST || len(g.Specs) == 0 {
				continue
			}
			first := g.Specs[0].(*ast.ValueSpec)
			if len(first.Names) != 1 || !strings.HasPrefix(first.Names[0].Name, prefix) || len(first.Values) != 1 {
				continue
			}
			// the next character must start the flag's own name
			if rest := strings.TrimPrefix(first.Names[0].Name, prefix); rest == "" || strings.ToUpper(rest[:1]) != rest[:1] {
				continue
			}
			if b, ok := first.Values[0].(*ast.BinaryExpr); !ok || b.Op != token.SHL {
				continue
			}
			var names []string
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					names = append(names, n.Name)
				}
			}
			return names
		}
	}
	return nil
}

// kebab turns CamelCase into kebab-case, keeping runs of capitals
// together (KVSent → kv-sent, AdpDummy → adp-dummy).
func kebab(s string) string {
	s = regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`).ReplaceAllString(s, "$1-$2")
	s = regexp.MustCompile(`([a-z0-9])([A-Z])`).ReplaceAllString(s, "$1-$2")
	return strings.ToLower(s)
}
