package spec

// This file exports the read-only sizes kvcheck triage (cmd/internal/triage)
// needs to say when a configuration sits at a capacity edge. It adds no
// behaviour to the spec.

// RequestBlocks is the pages request id (1-based) needs at its longest
// (prompt, new tokens, twice the draft width, extra tokens and the token
// being generated), as Validate sizes every pool to hold the longest
// request.
func (c *Config) RequestBlocks(id uint8) int {
	r := c.template(id)
	tokens := int(r.PromptLen) + int(r.MaxNewTokens) + 2*int(c.MaxDraftLen) + int(c.ExtraKVTokens) + 1
	return (tokens + int(c.TokensPerBlock) - 1) / int(c.TokensPerBlock)
}

// DummyBlocks is the target pages the attention-DP pad dummy holds once
// add_dummy_requests has sized it (addDummyRequest: token_num = 1 + D plus
// the extra KV tokens, then grown by D + 1 for its generation step); 0
// without attention DP.
func (c *Config) DummyBlocks() int {
	if !c.AttentionDP {
		return 0
	}
	tokens := 1 + int(c.MaxDraftLen) + int(c.ExtraKVTokens) + int(c.MaxDraftLen) + 1
	return (tokens + int(c.TokensPerBlock) - 1) / int(c.TokensPerBlock)
}
