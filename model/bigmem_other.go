//go:build !unix

package model

// allocWords returns n zeroed uint64s (on the Go heap where mapping memory
// from the operating system is not implemented).
func allocWords(n int) []uint64 { return make([]uint64, n) }

// freeWords leaves w to the garbage collector.
func freeWords(w []uint64) {}
