package spec

import (
	"fmt"

	"github.com/kvcheck/kvcheck/model"
)

// Token accounting: the sampler (TorchSampler / SpecSampler.update_requests,
// applied by PyExecutor._update_requests) must apply each forward's sample
// to the request objects exactly once. The spec counts, in the ghost field
// Request.Produced, the tokens each forward produced where the forward
// records its sample state (recordSample), apart from the sampler's update
// of NumTokens (applySample), so that an update applied twice, skipped or
// miscounted leaves the two apart.

// InvTokenAccounting names the token-accounting invariant.
const InvTokenAccounting = "tokens-accounted"

// produceTokens adds to the ghost count of each request of batch b on this
// rank what its forward produced: 1 + accepted draft tokens for a
// generation step (handle_stop_criteria stops at max_tokens), the first
// token for the last chunk of a prompt. The attention-DP dummy's sample is
// discarded.
func (v rankView) produceTokens(b *Batch) {
	for i := 0; i < int(b.Count); i++ {
		e := &b.Entries[i]
		if e.ID == dummyID {
			continue
		}
		r := v.request(e.ID)
		switch {
		case e.Kind == GenerationStep:
			r.Produced = uint8(min(int(r.Produced)+1+int(e.Accepted), int(v.cfg.template(e.ID).MaxNewTokens)))
		case e.Kind == ContextChunk && e.Last:
			r.Produced = uint8(min(int(r.Produced)+1, int(v.cfg.template(e.ID).MaxNewTokens)))
		}
	}
}

// tokenInvariant is the token-accounting invariant.
func (sp *Spec) tokenInvariant() invariantDecl {
	return sp.byRank(InvTokenAccounting,
		"once its iteration ended, a request holds its prompt plus the tokens its forwards produced, each forward's sample applied once (TorchSampler.update_requests via _update_requests; LlmRequest::pause keeps them as the new prompt)",
		sp.checkTokenAccounting)
}

// checkTokenAccounting compares, for every request whose iteration ended
// on its rank, max_beam_num_tokens with the template's prompt plus the
// ghost count (0 tokens while no forward has finished its prompt): equal
// for a live request, not more for a finished one.
func (sp *Spec) checkTokenAccounting(s *State, rs rankRange) *model.Failure {
	if s.Crash.Happened {
		return nil // the engine is down mid-iteration; no-crash-on-refusal reports it
	}
	for r := rs.lo; r < rs.hi; r++ {
		pending := sp.pendingIDs(s, r)
		for id := 1; id <= len(sp.Config.Requests); id++ {
			req := &s.Ranks[r].Requests[id]
			if pending&(1<<id) != 0 || req.State == NotArrived {
				continue
			}
			want := 0
			if req.Produced > 0 {
				want = int(sp.Config.template(uint8(id)).PromptLen) + int(req.Produced)
			}
			// A finished request may have had one more forward whose
			// sample was discarded (the overlap loop ran it while the
			// previous batch's sample ended the request); it must not hold
			// more than its forwards produced.
			if req.State == Finished && int(req.NumTokens) <= want {
				continue
			}
			if int(req.NumTokens) != want {
				return &model.Failure{Message: fmt.Sprintf("rank %d request %d holds %d tokens, but its prompt of %d plus the %d tokens its forwards produced make %d",
					r, id, req.NumTokens, sp.Config.template(uint8(id)).PromptLen, req.Produced, want)}
			}
		}
	}
	return nil
}
