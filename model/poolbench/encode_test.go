package poolbench_test

import (
	"math/rand/v2"
	"testing"

	"github.com/kvcheck/kvcheck/model/poolbench"
)

// TestEncodingRoundTrip: DecodeState gives back every state AppendState
// encoded, on random walks of the largest configurations with and without
// the seeded bug (whose stale sizes are encoded too).
func TestEncodingRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, cfg := range []poolbench.Config{
		poolbench.DefaultConfig,
		{Blocks: 16, Requests: 4, MaxK: 3, MaxH: 200},
		{Blocks: 15, Requests: 3, MaxK: 2, MaxH: 15, Bug: true},
		{Blocks: 1, Requests: 1, MaxK: 1, MaxH: 1},
	} {
		p := newPool(t, cfg)
		s := p.Initial()
		var actions []poolbench.Action
		var enc []byte
		for step := range 20000 {
			enc = p.AppendState(enc[:0], &s)
			got := poolbench.State{Owner: [poolbench.MaxBlocks]uint8{9, 9, 9}}
			p.DecodeState(enc, &got)
			if got != s {
				t.Fatalf("%+v step %d: decoded %+v, want %+v", cfg, step, got, s)
			}
			if actions = p.Actions(&s, actions[:0]); len(actions) == 0 {
				s = p.Initial()
				continue
			}
			s = p.Next(&s, actions[rng.IntN(len(actions))])
		}
	}
}
