// Command arrows measures the spec's layout (issue 23, docs/development.md
// "Layout"): for each package directory given, its non-test Go files and
// the arrows between files, an arrow being one file's use of anything a
// file declares (a type, function, method, field, variable or constant),
// counted once per pair of files, from go/types' record of uses. Arrows to
// the files of another package of this module are counted per package.
//
//	go run ./cmd/arrows ./spec ./spec/space ./spec/yamlconf ./spec/scenario
//	go run ./cmd/arrows -v ./spec/space      also list each arrow and what it uses
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// modulePath is this module's import path: arrows into its packages count.
const modulePath = "github.com/kvcheck/kvcheck"

func main() {
	verbose := flag.Bool("v", false, "list every arrow with the identifiers it uses")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "arrows: give one or more package directories, e.g. go run ./cmd/arrows ./spec ./spec/space")
		os.Exit(2)
	}
	for _, dir := range flag.Args() {
		m, err := Measure(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "arrows: %s: %v\nreproduce: go run ./cmd/arrows %s\n", dir, err, dir)
			os.Exit(1)
		}
		m.Write(os.Stdout, *verbose)
	}
}

// Measurement is one package's files and arrows.
type Measurement struct {
	Dir   string
	Files []string
	// Arrows maps "from.go -> to.go" (to prefixed with its package's path
	// in the module when it is another package's) to the identifiers used.
	Arrows map[string][]string
}

// Inside counts the arrows between the package's own files; Across the
// arrows into each other package of the module.
func (m *Measurement) Inside() (inside int, across map[string]int) {
	across = map[string]int{}
	for k := range m.Arrows {
		to := k[strings.Index(k, " -> ")+4:]
		if i := strings.LastIndex(to, "/"); i >= 0 {
			across[to[:i]]++
		} else {
			inside++
		}
	}
	return inside, across
}

// Write prints the measurement: a summary line, and with verbose each arrow.
func (m *Measurement) Write(w io.Writer, verbose bool) {
	inside, across := m.Inside()
	var pkgs []string
	for p := range across {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	fmt.Fprintf(w, "%s: %d files, %d arrows inside", m.Dir, len(m.Files), inside)
	for _, p := range pkgs {
		fmt.Fprintf(w, ", %d to %s", across[p], p)
	}
	fmt.Fprintln(w)
	if !verbose {
		return
	}
	var keys []string
	for k := range m.Arrows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s : %s\n", k, strings.Join(m.Arrows[k], " "))
	}
}

// Measure type-checks the package in dir (from source, so run it inside
// the module) and collects its arrows.
func Measure(dir string) (*Measurement, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	m := &Measurement{Dir: filepath.ToSlash(filepath.Clean(dir)), Arrows: map[string][]string{}}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		m.Files = append(m.Files, filepath.Base(name))
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no non-test Go files")
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check(files[0].Name.Name, fset, files, info)
	if err != nil {
		return nil, err
	}
	seen := map[string]map[string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() == nil || !obj.Pos().IsValid() {
			continue
		}
		same := obj.Pkg() == pkg
		if !same && !strings.HasPrefix(obj.Pkg().Path(), modulePath+"/") {
			continue
		}
		if same && obj.Parent() != nil && obj.Parent() != pkg.Scope() {
			continue // a local name
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if !same {
			to = strings.TrimPrefix(obj.Pkg().Path(), modulePath+"/") + "/" + to
		} else if to == from {
			continue
		}
		name := obj.Name()
		if f, ok := obj.(*types.Func); ok && f.Type().(*types.Signature).Recv() != nil {
			name = "." + name
		} else if v, ok := obj.(*types.Var); ok && v.IsField() {
			name = "." + name
		}
		k := from + " -> " + to
		if seen[k] == nil {
			seen[k] = map[string]bool{}
		}
		if !seen[k][name] {
			seen[k][name] = true
			m.Arrows[k] = append(m.Arrows[k], name)
		}
	}
	for k := range m.Arrows {
		sort.Strings(m.Arrows[k])
	}
	return m, nil
}
