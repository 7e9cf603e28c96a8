package spec

import (
	"embed"

	"github.com/kvcheck/kvcheck/model"
)

// sources are the spec's own Go files, embedded so that SourceHash changes
// whenever the spec does.
//
//go:embed *.go
var sources embed.FS

// SourceHash is a hex SHA-256 of the spec's Go source files: a result
// computed with one spec is reusable exactly while it is unchanged (the
// sweep's results cache keys on it, with model.SourceHash).
func SourceHash() string { return model.HashFiles(sources) }
