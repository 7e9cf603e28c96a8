//go:build unix

package model

import (
	"syscall"
	"unsafe"
)

// allocWords returns n zeroed uint64s mapped from the operating system,
// outside the Go heap: the search's large tables come and go with their
// growth, and the garbage collector would otherwise let up to one heap's
// worth of freed tables pile up before it reclaims them. freeWords gives
// them back at once. Tables below mappedWords words come from the Go heap:
// a system call each way costs more than they do, and a sweep of many
// small searches would spend its time in them. It falls back to the Go
// heap if the mapping fails.
func allocWords(n int) []uint64 {
	if n == 0 {
		return nil
	}
	if n < mappedWords {
		return make([]uint64, n)
	}
	b, err := syscall.Mmap(-1, 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|populate)
	if err != nil {
		return make([]uint64, n)
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
}

// freeWords unmaps what allocWords returned.
func freeWords(w []uint64) {
	if cap(w) < mappedWords {
		return // on the Go heap
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&w[:1][0])), cap(w)*8)
	syscall.Munmap(b) // a heap fallback fails here, harmlessly: EINVAL
}
