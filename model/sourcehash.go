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

// HashFiles is a hex SHA-256 of the Go files of fsys, each with its path,
// in path order (fs.WalkDir's): the files at its top and those of the
// directories below (spec embeds its subpackages' too); tests (_test.go)
// are left out, as they change no result.
func HashFiles(fsys fs.FS) string {
	h := sha256.New()
	_ = fs.WalkDir(fsys, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, _ := fs.ReadFile(fsys, path)
		h.Write([]byte(path))
		h.Write([]byte{0})
		h.Write(data)
		h.Write([]byte{0})
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}
