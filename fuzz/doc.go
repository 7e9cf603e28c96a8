// Package fuzz explores any model.Spec at random where exhaustive search runs
// out, and turns what it finds into short, replayable counterexamples.
//
//   - walk.go, run.go   seeded random walks on several workers, with
//     state-novelty feedback: walks restart from states no walk had reached
//     and stop when they stop finding new ones (Run)
//   - swarm.go          per-walk action weights derived from the walk's seed
//     (swarm testing): some classes of action switched off, others favoured
//   - seen.go, corpus.go  the fingerprints reached, with parent links so any
//     of them yields its trace, and the states walks restart from
//   - replay.go         strict replay of a trace up to its first violation
//   - shrink.go, ddmin.go, reduce.go  the shrinker: loop removal, delta
//     debugging, smaller configurations, then a bounded exhaustive search
//   - kv.go             the configuration reductions of the KV-cache spec
//   - decode.go         one byte per choice: the decoding of go test -fuzz
//     inputs and of any byte string into a trace
//   - rapid.go          the spec as a pgregory.net/rapid state machine
//
// Randomness comes only from math/rand/v2 PCG streams seeded explicitly from
// Options.Seed: the same seed and worker count give the same run (see Run
// for exactly what is reproducible). The spec itself stays pure: every
// choice is an action of the spec that the walker picks.
package fuzz
