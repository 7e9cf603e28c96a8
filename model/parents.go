package model

import (
	"slices"
	"unsafe"
)

// parentLinks remembers how each stored state was first reached: the index
// of its parent and the position of the action among the parent's enabled
// actions, 5 bytes a state in blocks that never move. A trace is rebuilt
// as TLC does, by re-executing the actions from the initial state, so the
// search stores neither states nor actions.
type parentLinks struct {
	parent chunked[uint32]
	action chunked[uint8]
	// wide holds the action positions that do not fit in a byte (the
	// entry in action is then wideAction).
	wide map[uint32]int
}

const wideAction = 1<<8 - 1

// set records that state idx was reached from parent by its k-th enabled
// action. Indices must be set in increasing order, or below a grow.
func (p *parentLinks) set(idx, parent uint32, k int) {
	p.parent.set(int(idx), parent)
	if k >= wideAction {
		if p.wide == nil {
			p.wide = map[uint32]int{}
		}
		p.wide[idx] = k
		k = wideAction
	}
	p.action.set(int(idx), uint8(k))
}

// grow makes room for indices below n.
func (p *parentLinks) grow(n int) {
	p.parent.grow(n)
	p.action.grow(n)
}

func (p *parentLinks) bytes() int64 {
	return p.parent.bytes() + p.action.bytes()
}

// path returns the action positions that lead from the initial state
// (index 0) to state idx.
func (p *parentLinks) path(idx uint32) []int {
	var ks []int
	for idx != 0 {
		k := int(p.action.at(int(idx)))
		if k == wideAction {
			k = p.wide[idx]
		}
		ks = append(ks, k)
		idx = p.parent.at(int(idx))
	}
	slices.Reverse(ks)
	return ks
}

// chunkBits sets the size of a chunked block: 64Ki entries.
const chunkBits = 16

// chunked is an array of T held in fixed-size blocks, so that growing it
// never copies and wastes at most one block.
type chunked[T any] struct{ blocks [][]T }

func (c *chunked[T]) grow(n int) {
	for len(c.blocks)<<chunkBits < n {
		c.blocks = append(c.blocks, make([]T, 1<<chunkBits))
	}
}

func (c *chunked[T]) set(i int, v T) {
	c.grow(i + 1)
	c.blocks[i>>chunkBits][i&(1<<chunkBits-1)] = v
}

func (c *chunked[T]) at(i int) T { return c.blocks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunked[T]) bytes() int64 {
	var zero T
	return int64(len(c.blocks)) * (1 << chunkBits) * int64(unsafe.Sizeof(zero))
}
