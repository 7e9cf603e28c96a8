package model

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"unsafe"
)

// popPrefetchAhead is how many bytes past the entry it returns pop
// prefetches: a few entries of a few hundred bytes.
const popPrefetchAhead = 1024

// queueBlockSize is the size of a queue block: the unit in which a queue
// grows, spills to disk and is read back. An entry larger than this gets a
// block of its own.
var queueBlockSize = 1 << 20

// stateQueue is one BFS level's states in discovery order, as a FIFO of
// byte blocks holding entries (uvarint length, 4-byte state index,
// encoded state). It grows one block at a time, never by copying, and
// when the search is short of memory its sealed blocks move to a
// temporary file in sequential writes and come back in sequential reads,
// as TLC's disk queue does, so that a frontier larger than memory slows
// the search down instead of ending it.
type stateQueue struct {
	blocks []*queueBlock // unread blocks, oldest first; the last one is open
	n      int           // unread entries
	mem    int64         // bytes of blocks held in memory
	file   *os.File      // spill file, created on the first spill
	dir    string        // where to create it ("" = os.TempDir)
	end    int64         // bytes written to file
	pool   *blockPool
	// spilled counts bytes written to disk over the queue's life.
	spilled int64
	err     error         // the first I/O error; the search reports it
	retire  []*queueBlock // blocks read to the end, for release
}

// queueBlock is a run of whole entries. A spilled block has no data; its
// bytes sit in the queue's file at off.
type queueBlock struct {
	data []byte
	off  int64
	size int // bytes of entries (len(data) while in memory)
	n    int // entries
	read int // bytes already consumed by the reader
	// prefetched is how far pop has prefetched (a multiple of 64 bytes
	// from the block's start).
	prefetched int
}

// blockPool recycles queue blocks between the two levels' queues. It is
// locked: while the first worker queues the round it assigns, another may
// read back a spilled block of the next (pipelined.go). A block is a
// megabyte of entries, so the lock is taken seldom.
type blockPool struct {
	mu   sync.Mutex
	free [][]byte
}

func (p *blockPool) get(size int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if size <= queueBlockSize && len(p.free) > 0 {
		b := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		return b[:0]
	}
	return make([]byte, 0, max(size, queueBlockSize))
}

func (p *blockPool) put(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cap(b) == queueBlockSize {
		p.free = append(p.free, b)
	}
}

// push appends the entry (idx, enc).
func (q *stateQueue) push(idx uint32, enc []byte) {
	var hdr [binary.MaxVarintLen64 + 4]byte
	h := binary.PutUvarint(hdr[:], uint64(len(enc)))
	binary.LittleEndian.PutUint32(hdr[h:], idx)
	h += 4
	need := h + len(enc)
	var tail *queueBlock
	if len(q.blocks) > 0 {
		tail = q.blocks[len(q.blocks)-1]
	}
	if tail == nil || tail.data == nil || len(tail.data)+need > cap(tail.data) {
		tail = &queueBlock{data: q.pool.get(need)}
		q.mem += int64(cap(tail.data))
		q.blocks = append(q.blocks, tail)
	}
	tail.data = append(tail.data, hdr[:h]...)
	tail.data = append(tail.data, enc...)
	tail.size = len(tail.data)
	tail.n++
	q.n++
}

// pop returns the oldest entry; enc stays valid until the block it sits in
// is released by release. ok is false when the queue is empty.
func (q *stateQueue) pop() (idx uint32, enc []byte, ok bool) {
	for len(q.blocks) > 0 {
		b := q.blocks[0]
		if b.read < b.size {
			if b.data == nil {
				q.load(b)
			}
			l, h := binary.Uvarint(b.data[b.read:])
			p := b.read + h
			idx = binary.LittleEndian.Uint32(b.data[p:])
			p += 4
			enc = b.data[p : p+int(l) : p+int(l)]
			b.read = p + int(l)
			// The entries a few states on were written a level ago and
			// are long out of the caches: loading each of their lines
			// now, once, overlaps the misses with this state's expansion.
			for ahead := min(b.read+popPrefetchAhead, b.size); b.prefetched < ahead; b.prefetched += 64 {
				prefetch(unsafe.Pointer(&b.data[b.prefetched]))
			}
			q.n--
			return idx, enc, true
		}
		q.retire = append(q.retire, b)
		q.blocks = q.blocks[1:]
	}
	return 0, nil, false
}

// release returns to the pool the first n blocks that pop has finished
// reading, or all of them for n < 0; entries popped from them must not be
// used after it.
func (q *stateQueue) release(n int) {
	if n < 0 || n > len(q.retire) {
		n = len(q.retire)
	}
	for _, b := range q.retire[:n] {
		if b.data != nil {
			q.mem -= int64(cap(b.data))
			q.pool.put(b.data)
			b.data = nil
		}
	}
	rest := copy(q.retire, q.retire[n:])
	clear(q.retire[rest:])
	q.retire = q.retire[:rest]
}

// load reads a spilled block back into memory.
func (q *stateQueue) load(b *queueBlock) {
	b.data = q.pool.get(b.size)[:b.size]
	q.mem += int64(cap(b.data))
	if _, err := q.file.ReadAt(b.data, b.off); err != nil && q.err == nil {
		q.err = fmt.Errorf("reading the disk queue: %w", err)
		clear(b.data)
	}
}

// spill writes every sealed, unread block held in memory to the queue's
// file and frees it. It returns the bytes freed.
func (q *stateQueue) spill() int64 {
	var freed int64
	for i, b := range q.blocks {
		if i == len(q.blocks)-1 || b.data == nil || b.read > 0 {
			continue // the open block, spilled already, or being read
		}
		if q.file == nil {
			f, err := os.CreateTemp(q.dir, "kvcheck-queue-*")
			if err != nil {
				q.fail(err)
				return freed
			}
			os.Remove(f.Name()) // the file lives until closed, even after a crash
			q.file = f
		}
		if _, err := q.file.WriteAt(b.data[:b.size], q.end); err != nil {
			q.fail(err)
			return freed
		}
		b.off = q.end
		q.end += int64(b.size)
		q.spilled += int64(b.size)
		freed += int64(cap(b.data))
		q.mem -= int64(cap(b.data))
		q.pool.put(b.data)
		b.data = nil
	}
	return freed
}

func (q *stateQueue) fail(err error) {
	if q.err == nil {
		q.err = fmt.Errorf("writing the disk queue: %w", err)
	}
}

// reset empties the queue (after its last entry was read) and rewinds its
// file for reuse.
func (q *stateQueue) reset() {
	q.release(-1)
	for _, b := range q.blocks {
		if b.data != nil {
			q.mem -= int64(cap(b.data))
			q.pool.put(b.data)
		}
	}
	q.blocks, q.n, q.end = q.blocks[:0], 0, 0
	if q.file != nil {
		q.file.Truncate(0)
	}
}

// close deletes the spill file.
func (q *stateQueue) close() {
	if q.file != nil {
		q.file.Close()
		q.file = nil
	}
}
