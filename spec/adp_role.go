package spec

// Rank.AdpDummyRole bits: the pad dummy's role and what arrived since the
// rank's last attention-DP fetch.
const (
	// adpRoleContext: _adp_dummy_is_gen is False (a context dummy).
	adpRoleContext = 1 << iota
	// adpRoleContextArrived: a context-only request arrived since the last
	// fetch.
	adpRoleContextArrived
	// adpRoleGenerationArrived: a generation-only request arrived since the
	// last fetch.
	adpRoleGenerationArrived
)

// noteArrivalRole records, for _update_adp_dummy_role, the kind of a
// request that arrived under attention DP with a KV cache transceiver
// (context-only, sending its KV, or generation-only, receiving it) on the
// ranks whose next fetch sees it: every rank's fetch is handed every
// rank's new requests (the router's result), so outside the pipeline loop
// every rank, and under pipeline parallelism the ADP ranks of the stage
// that activates it (stage, from rank stage × adpWidth).
func (sp *Spec) noteArrivalRole(s *State, t *RequestTemplate, stage uint8) {
	if !sp.Config.AttentionDP || !sp.Config.KVTransceiver {
		return
	}
	var bit uint8
	switch {
	case t.SendingKV:
		bit = adpRoleContextArrived
	case t.ReceivingKV:
		bit = adpRoleGenerationArrived
	default:
		return
	}
	first, n := uint8(0), sp.Config.Ranks
	if sp.Config.Loop == PipelineLoop {
		first, n = stage*sp.Config.adpWidth(), sp.Config.adpWidth()
	}
	for r := first; r < first+n; r++ {
		s.Ranks[r].AdpDummyRole |= bit
	}
}

// updateAdpDummyRole is PyExecutor._update_adp_dummy_role (py_executor.py
// at 2829508), called by _fetch_new_requests with every rank's new
// requests under attention DP and a KV cache transceiver (the overlap
// loop's path, without the non-overlap forward intent): a context-only
// request among them makes the dummy a context dummy, else a
// generation-only one makes it a generation dummy; with neither the role
// stays (sticky).
//
// It updates rank r's role; every rank of an allgather updates alike.
func (v rankView) updateAdpDummyRole() {
	switch role := v.rank.AdpDummyRole; {
	case role&adpRoleContextArrived != 0:
		v.rank.AdpDummyRole = adpRoleContext
	case role&adpRoleGenerationArrived != 0:
		v.rank.AdpDummyRole = 0
	}
}

// arrivalWaits reports whether, under attention DP, the router holds the
// next arrival in the waiting queue: the spec's requests are pinned to
// their rank (scheduling_params.attention_dp_rank, attention_dp_relax
// False), and request_utils.get_from_waiting_queue admits such a request
// only while its rank has fewer than max_num_active_requests active
// requests (the dummy counts); otherwise it waits, and so does every
// request behind it (arrivals are in order). Under pipeline parallelism
// the request arrives at its ADP rank of the first stage, whose count
// decides.
func (sp *Spec) arrivalWaits(s *State, t *RequestTemplate) bool {
	if !sp.Config.AttentionDP || sp.Config.MaxNumActiveRequests == 0 {
		return false
	}
	if sp.view(s, t.Rank).activeCount() < int(sp.Config.MaxNumActiveRequests) {
		return false
	}
	sp.hit(brArrivalWaits)
	return true
}
