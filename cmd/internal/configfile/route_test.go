package configfile

import (
	"slices"
	"testing"
)

// TestRouteADP: requests without a rank go as DefaultADPRouter places a
// burst on idle ranks: longest prompt first, to the rank with the fewest
// tokens, then requests, then the lowest; a rank is full at ceil(n/ranks)
// requests, counting the pinned ones; pinned requests stay.
func TestRouteADP(t *testing.T) {
	for _, tc := range []struct {
		prompt, pinned, want []int64
		ranks                int
	}{
		{[]int64{8, 8, 8, 8}, []int64{-1, -1, -1, -1}, []int64{0, 1, 0, 1}, 2},
		// The longest first: 16 to rank 0, then 8 and 4 to rank 1 (fewer
		// tokens), but rank 1 is full at 2, so the 2 goes to rank 0.
		{[]int64{4, 16, 8, 2}, []int64{-1, -1, -1, -1}, []int64{1, 0, 1, 0}, 2},
		// A request pinned to rank 1 counts there: the two others fill rank
		// 0 first (both ranks hold no tokens; rank 0 has fewer requests),
		// then rank 1 (fewer tokens).
		{[]int64{8, 8, 8}, []int64{-1, 1, -1}, []int64{0, 1, 1}, 2},
		{[]int64{8, 8, 8}, []int64{-1, -1, -1}, []int64{0, 1, 2}, 3},
	} {
		if got := routeADP(tc.prompt, tc.pinned, tc.ranks); !slices.Equal(got, tc.want) {
			t.Errorf("routeADP(%v, %v, %d) = %v, want %v", tc.prompt, tc.pinned, tc.ranks, got, tc.want)
		}
	}
}
