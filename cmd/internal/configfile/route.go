package configfile

import (
	"container/heap"
	"sort"
)

// routeADP places requests on attention-DP ranks as TensorRT-LLM's
// DefaultADPRouter.route_requests does when they are fetched together on
// idle ranks (_torch/pyexecutor/scheduler/adp_router.py, read in the
// stored tree of NVIDIA/TensorRT-LLM): requests with an explicit rank
// (scheduling_params.attention_dp_rank, kvcheck's rank:) go there first
// (_assign_explicit_dp_ranks; a request's count goes up, its tokens do
// not); the rest, longest prompt first (sorted(..., reverse=True), stable),
// go one by one to the rank with the fewest active tokens, then fewest
// requests, then the lowest rank (a min-heap of HeapVal(num_tokens,
// num_requests, rank)), and a rank leaves the heap once it holds
// expected_num_active_requests = ceil(new requests / ranks), floored at
// the busiest rank's count (_expected_num_active_requests). pinned[i] < 0
// means request i has no explicit rank; prompt[i] is its prompt length.
// It returns each request's rank.
func routeADP(prompt []int64, pinned []int64, ranks int) []int64 {
	out := make([]int64, len(prompt))
	counts := make([]int, ranks)
	var free []int
	for i, r := range pinned {
		if r >= 0 && int(r) < ranks {
			out[i] = r
			counts[r]++
		} else {
			free = append(free, i)
		}
	}
	expected := (len(free) + sumInts(counts) + ranks - 1) / ranks
	for _, c := range counts {
		expected = max(expected, c)
	}
	h := &rankHeap{}
	for r := 0; r < ranks; r++ {
		if counts[r] < expected {
			*h = append(*h, rankLoad{tokens: 0, requests: counts[r], rank: r})
		}
	}
	heap.Init(h)
	sort.SliceStable(free, func(a, b int) bool { return prompt[free[a]] > prompt[free[b]] })
	for _, i := range free {
		if h.Len() == 0 {
			// Every rank is at the expected count: the router leaves the
			// request unscheduled until the next fetch. kvcheck keeps it
			// on rank 0 (the next fetch finds rank 0 as loaded as any).
			out[i] = 0
			continue
		}
		top := heap.Pop(h).(rankLoad)
		out[i] = int64(top.rank)
		top.tokens += prompt[i]
		top.requests++
		if top.requests < expected {
			heap.Push(h, top)
		}
	}
	return out
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// rankLoad is the router's HeapVal: a rank's active tokens and requests.
type rankLoad struct {
	tokens   int64
	requests int
	rank     int
}

// rankHeap orders rankLoad as Python orders the HeapVal tuples.
type rankHeap []rankLoad

func (h rankHeap) Len() int { return len(h) }
func (h rankHeap) Less(i, j int) bool {
	if h[i].tokens != h[j].tokens {
		return h[i].tokens < h[j].tokens
	}
	if h[i].requests != h[j].requests {
		return h[i].requests < h[j].requests
	}
	return h[i].rank < h[j].rank
}
func (h rankHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)   { *h = append(*h, x.(rankLoad)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
