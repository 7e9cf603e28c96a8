package model

import "unsafe"

// prefetch asks the processor to bring the cache line at p into its
// caches without waiting for it (PREFETCHT0): unlike a load, it does not
// hold up the instructions after it, so a miss it starts overlaps with
// whatever work follows, as long as that work lasts.
//
//go:noescape
func prefetch(p unsafe.Pointer)

// spinPause tells the processor that the goroutine is spinning, waiting
// (PAUSE), which saves power and lets a waiting loop leave it promptly.
func spinPause()
