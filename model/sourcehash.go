package model

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"strings"
)

// sources are the engine's own Go files, embedded so that SourceHash
// changes whenever the engine does.
//
//go:embed *.go
var sources embed.FS

// SourceHash is a hex SHA-256 of the engine's Go source files: a check
// result is reusable exactly while the engine (and the spec) are unchanged.
func SourceHash() string { return HashFiles(sources) }

// HashFiles is a hex SHA-256 of the files at the top of fsys, each with its
// name, in name order; tests (_test.go) are left out, as they change no
// result.
func HashFiles(fsys fs.FS) string {
	h := sha256.New()
	entries, _ := fs.ReadDir(fsys, ".")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		data, _ := fs.ReadFile(fsys, e.Name())
		h.Write([]byte(e.Name()))
		h.Write([]byte{0})
		h.Write(data)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
