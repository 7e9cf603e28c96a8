package model

import "sync"

// ForgetTables empties the pool of finished searches' tables, so that the
// next search starts from new ones (reuse_test.go).
func ForgetTables() { tablesPool = sync.Pool{} }
