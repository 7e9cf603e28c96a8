package spec

import (
	"embed"

	"github.com/kvcheck/kvcheck/model"
)

// sources are the spec's own Go files and those of its subpackages
// (spec/configtext, spec/scenario, spec/space, spec/yamlconf: how a
// configuration reads as text, the built-in scenarios, what a sweep
// enumerates and how scenario files read), embedded so that SourceHash
// changes whenever any of them does; TestSourceHashCoversEverySubpackage
// keeps the list whole.
//
//go:embed *.go configtext/*.go scenario/*.go space/*.go yamlconf/*.go
var sources embed.FS

// SourceHash is a hex SHA-256 of the spec's Go source files: a result
// computed with one spec is reusable exactly while it is unchanged (the
// sweep's results cache keys on it, with model.SourceHash).
func SourceHash() string { return model.HashFiles(sources) }
