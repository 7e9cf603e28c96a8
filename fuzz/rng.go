package fuzz

import (
	"math/bits"
	"math/rand/v2"
)

// splitmix64 is SplitMix64's output function: a bijective mix that turns
// consecutive integers into well-spread seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// deriveSeed returns the seed of stream i of seed: each worker, and each
// walk's swarm configuration, gets its own stream, so they do not depend on
// each other's draws.
func deriveSeed(seed, i uint64) uint64 {
	return splitmix64(seed ^ splitmix64(i))
}

// rng is one PCG stream with a bounded draw that involves no interface call
// (rand.Rand goes through the Source interface on every draw).
type rng struct{ pcg rand.PCG }

func newRNG(seed uint64) rng {
	var r rng
	r.pcg.Seed(seed, deriveSeed(seed, 0x5eed))
	return r
}

// below returns a number in [0, n) by Lemire's multiply-shift; its bias is
// at most n/2^64, far below anything a walk could notice.
func (r *rng) below(n int) int {
	hi, _ := bits.Mul64(r.pcg.Uint64(), uint64(n))
	return int(hi)
}

// chance reports true with probability 1/n.
func (r *rng) chance(n int) bool { return r.below(n) == 0 }
