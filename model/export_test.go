package model

import "sync"

// ForgetTables empties the pool of finished searches' tables, so that the
// next search starts from new ones (reuse_test.go).
func ForgetTables() { tablesPool = sync.Pool{} }

// SplitRoundsWith makes searches with several workers cut each round with
// f, which returns the chunks' bounds for n states and w workers, instead
// of by the workers' speed (split.go), until restore is called.
func SplitRoundsWith(f func(n, w int) []int) (restore func()) {
	splitForTest = f
	return func() { splitForTest = nil }
}
