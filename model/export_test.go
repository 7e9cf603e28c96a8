package model

import "sync"

// ForgetTables empties the pool of finished searches' tables, so that the
// next search starts from new ones (reuse_test.go).
func ForgetTables() { tablesPool = sync.Pool{} }

// ShareRoundsWith makes the workers of searches claim blocks of size
// states (claim.go) and call delay(w) before each claim, until restore is
// called.
func ShareRoundsWith(size uint32, delay func(w int)) (restore func()) {
	old := blockStates
	blockStates, claimDelayForTest = size, delay
	return func() { blockStates, claimDelayForTest = old, nil }
}
