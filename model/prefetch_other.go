//go:build !amd64

package model

import "unsafe"

// prefetch does nothing where there is no prefetch instruction written
// for the architecture (amd64's is in prefetch_amd64.s).
func prefetch(p unsafe.Pointer) {}

// spinPause does nothing where no pause instruction is written for the
// architecture (amd64's is in prefetch_amd64.s).
func spinPause() {}
