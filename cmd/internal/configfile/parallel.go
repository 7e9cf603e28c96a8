package configfile

import (
	"fmt"
	"strings"

	"github.com/kvcheck/kvcheck/spec"
)

// parallelism maps tensor, pipeline and attention-data parallelism onto
// the model's ranks and executor loop. It returns whether requests are
// routed over attention-DP ranks and over how many.
func (d *deriver) parallelism() (adp bool, routeRanks int64, err error) {
	tp, tpLine, tpOpt, err := d.intOption("tensor_parallel_size", 1, 1, 1<<16)
	if err != nil {
		return false, 0, err
	}
	pp, ppLine, ppOpt, err := d.intOption("pipeline_parallel_size", 1, 1, 1<<16)
	if err != nil {
		return false, 0, err
	}
	adp, adpLine, adpOpt, err := d.boolOption("enable_attention_dp", false)
	if err != nil {
		return false, 0, err
	}
	noOverlap, olLine, olOpt, err := d.boolOption("disable_overlap_scheduler", false)
	if err != nil {
		return false, 0, err
	}
	ranksCap, ranksGiven, err := d.sectionInt("ranks", 2, 1, spec.MaxRanks)
	if err != nil {
		return false, 0, err
	}
	loop := "overlap"
	if noOverlap {
		loop = "non-overlap"
	}
	routeRanks = 1
	switch {
	case pp > 1 && adp && tp > 1:
		stages := min(pp, spec.MaxRanks/2)
		d.emit(ppLine, ppOpt, fmt.Sprintf("%d pipeline stages run PyExecutor._executor_loop_pp, each with its attention-DP ranks", stages), fmt.Sprintf("ranks=%d", 2*stages), "loop=pipeline")
		d.emit(adpLine, adpOpt, "each first-stage attention-DP rank schedules its own micro-batch; _can_queue vetoes a stage with an empty one", "enable_attention_dp=true")
		d.emit(tpLine, tpOpt, "2 attention-DP ranks per stage show every interaction between them (kvcheck.ranks does not apply)", "stage_adp_ranks=2")
		d.emit(olLine, olOpt, "the pipeline loop has its own overlap of micro-batches")
		routeRanks = 2
	case pp > 1:
		ranks := min(pp, spec.MaxRanks)
		why := fmt.Sprintf("%d pipeline stages run PyExecutor._executor_loop_pp: rank 0 schedules micro-batches, the others follow", ranks)
		if ranksGiven {
			ranks = min(ranks, ranksCap)
			why += " (kvcheck.ranks)"
		}
		d.emit(ppLine, ppOpt, why, fmt.Sprintf("ranks=%d", ranks), "loop=pipeline")
		if tp > 1 {
			d.emit(tpLine, tpOpt, "the tensor-parallel ranks of a stage shard heads and make the same KV-cache decisions: one rank per stage stands for them")
		}
		d.emit(olLine, olOpt, "the pipeline loop has its own overlap of micro-batches")
		adp = false
	case adp:
		ranks := min(tp, ranksCap)
		d.emit(adpLine, adpOpt, "each attention-DP rank schedules its own requests and pads empty batches with dummies", "enable_attention_dp=true")
		d.emit(tpLine, tpOpt, fmt.Sprintf("%d attention-DP ranks show every interaction between ranks (kvcheck.ranks, default 2)", ranks), fmt.Sprintf("ranks=%d", ranks))
		d.emit(olLine, olOpt, "kept", "loop="+loop)
		routeRanks = ranks
	default:
		why := "one rank"
		if tp > 1 {
			why = "without attention DP the tensor-parallel ranks shard heads and make the same KV-cache decisions: one rank stands for them"
		}
		d.emit(tpLine, tpOpt, why, "ranks=1")
		d.emit(olLine, olOpt, "kept", "loop="+loop)
	}
	return adp && routeRanks > 1, routeRanks, d.adpConfig(adp)
}

// adpConfig maps attention_dp_config (AttentionDpConfig, llm_args.py):
// each option is mapped or refused with its reason.
func (d *deriver) adpConfig(adp bool) error {
	fl, ok := d.option("attention_dp_config")
	if !ok {
		return nil
	}
	if !adp {
		d.emit(fl.Line, "attention_dp_config", "no effect without enable_attention_dp (PyExecutor reads it under attention DP only)")
		return nil
	}
	balance, line, opt, err := d.boolOption("attention_dp_config.enable_balance", false)
	if err != nil {
		return err
	}
	if balance {
		return d.r.Errorf(line, "attention_dp_config.enable_balance: true is not modelled: PyExecutor._balance_adp_requests then takes the scheduled context requests out of a batch the V2 scheduler has already allocated for, until every rank has one (for up to timeout_iters iterations, and batching_wait_iters more while every rank also generates); the spec schedules what it allocates, so it would check another engine. Set it to false in a copy of the file to check the rest")
	}
	d.emit(line, opt, "kept: no context request is held back to balance the ranks")
	for _, k := range []string{"attention_dp_config.timeout_iters", "attention_dp_config.batching_wait_iters"} {
		if kf, ok := d.option(k); ok {
			if _, err := d.r.Int(kf, -1<<31, 1<<31); err != nil {
				return err
			}
			d.emit(kf.Line, k+": "+kf.Node.Value, "no effect: read by _balance_adp_requests only under enable_balance")
		}
	}
	for _, k := range []string{"attention_dp_config.enable_kv_cache_aware_routing", "attention_dp_config.kv_cache_routing_conversation_affinity"} {
		on, line, opt, err := d.boolOption(k, false)
		if err != nil {
			return err
		}
		if !on {
			if line > 0 {
				d.emit(line, opt, "kept: DefaultADPRouter places the requests")
			}
			continue
		}
		var unpinned []string
		for i, r := range d.ks.requests {
			if r.rank < 0 {
				unpinned = append(unpinned, fmt.Sprintf("requests[%d] (line %d)", i, r.line))
			}
		}
		if len(unpinned) > 0 {
			return d.r.Errorf(line, "%s: true routes each request by the prefixes cached on each rank when it is fetched (ADPRouter.create picks a cache-aware router), which kvcheck does not model; give every request the rank: you expect it on (%s have none)", k, strings.Join(unpinned, ", "))
		}
		d.emit(line, opt, "every request's rank: is given, so the cache-aware router's placement is the one you state")
	}
	return nil
}

// requests emits the requests; under attention DP those without a rank
// are placed as DefaultADPRouter places a burst of them on idle ranks
// (routeADP).
func (d *deriver) requests(adp bool, ranks int64) error {
	tpb := d.ks.tokensPerBlock
	placed := make([]int64, len(d.ks.requests))
	var prompts, pinned []int64
	routed := false
	for i, r := range d.ks.requests {
		prompts = append(prompts, r.promptPages*tpb)
		pinned = append(pinned, r.rank)
		if r.rank < 0 {
			routed = true
		} else if r.rank >= ranks {
			return d.r.Errorf(r.line, "requests: rank %d, but the model has %d attention-DP rank(s) (0..%d)", r.rank, ranks, ranks-1)
		}
		placed[i] = max(r.rank, 0)
	}
	if adp && routed {
		placed = routeADP(prompts, pinned, int(ranks))
		var parts []string
		for i, r := range d.ks.requests {
			how := "routed"
			if r.rank >= 0 {
				how = "rank: given"
			}
			parts = append(parts, fmt.Sprintf("%d→%d (%s)", i+1, placed[i], how))
		}
		d.emit(d.ks.has["requests"].Line, "attention-DP routing", fmt.Sprintf("requests without rank: go where TensorRT-LLM's DefaultADPRouter puts them when they arrive together on idle ranks: longest prompt first to the rank with the fewest active tokens, then requests, at most ceil(%d/%d) per rank: %s. The router decides at each fetch from what the ranks hold, so requests arriving later may land elsewhere; pin those with rank:",
			len(placed), ranks, strings.Join(parts, ", ")))
	}
	for i, r := range d.ks.requests {
		family := "none"
		if r.family >= 0 {
			family = fmt.Sprint(r.family)
		}
		line := fmt.Sprintf("request prompt=%d new=%d family=%s shared=%d rank=%d", r.promptPages*tpb, r.newTokens, family, r.sharedPages*tpb, placed[i])
		if r.receivingKV {
			line += " receiving_kv=true"
		}
		d.emit(r.line, fmt.Sprintf("kvcheck.requests[%d]", i), "pages of the model's tokens_per_block", line)
	}
	return nil
}
