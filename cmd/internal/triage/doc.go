// Package triage answers, for one violation kvcheck found, the three
// questions a maintainer asks before acting on it (docs/triage.md):
//
//   - Is it an artifact of the scaling? The finding's configuration is
//     re-checked with tokens_per_block ×2, ×4 and ×8, every key that counts
//     tokens scaled with it (the `unit:"tokens"` fields of spec.Config and
//     spec.RequestTemplate), and with every pool a page and a few pages
//     larger: the same violation everywhere is robust, gone somewhere
//     fragile (scale.go).
//   - What does it depend on? Each knob (each fix, the version, the draft
//     pool's mode and size, the host tier, recompute pause, chunked
//     prefill, block reuse, the transceiver, each pool size ±1,
//     max_num_active_requests and max_batch_size) is changed alone and the
//     violation looked for again: "needs" and "indifferent to" (knobs.go).
//   - Is it new? Its signature (invariant, raising function and error, the
//     mechanisms its trace exercises) is matched against every built-in
//     scenario's real-code violation and every historical bug's
//     (attribute.go).
//
// It also flags a capacity edge, a configuration in which one request
// needs a whole pool less what a pad dummy holds (capacity.go). Every
// re-check looks for exactly the finding's violation (sweep.Match), is
// bounded by a state budget, and goes through the sweep's results cache,
// so a triage costs seconds and a second one of the same finding nothing.
package triage
