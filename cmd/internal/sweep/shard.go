package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of a deterministic partition of a space's
// configurations: shard Index of Count owns the configurations whose index
// is Index modulo Count. Configurations are sorted smallest first, so
// round-robin gives every shard a like share of small and large ones. The
// zero Shard owns everything.
type Shard struct{ Index, Count int }

// Owns reports whether the shard checks configuration i.
func (s Shard) Owns(i int) bool { return s.Count <= 1 || i%s.Count == s.Index }

func (s Shard) String() string {
	if s.Count <= 1 {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(text string) (Shard, error) {
	a, b, ok := strings.Cut(text, "/")
	i, errI := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	if !ok || errI != nil || errN != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard: expected i/n with 0 <= i < n (e.g. 0/4), got %q", text)
	}
	return Shard{i, n}, nil
}
