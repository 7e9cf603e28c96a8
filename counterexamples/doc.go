// Package counterexamples turns the checker's counterexamples into
// transcripts people read and tests replay, replays and rewrites them, and
// draws them as one HTML page.
//
// A transcript is a text file in the layout of cockroachdb/datadriven:
//
//	# draft-admission (real code): _prepare_draft_resources raises "..."
//	# Reproduces: ... What happens: counterexamples/stories/draft-admission.txt.
//	# Found by: ... Setup: ... Test (steps: what ran; pages in use after them, target draft):
//	#   16-17   rank 0 runs [gen 1, gen 2, ctx 3 chunk 4 last]            7/8 8/8
//	#   [*] 17 prepare-resources rank=0: _prepare_draft_resources raises (the title's error)
//	# Fixes: joint-admission (PR #19006) closes it: draft-admission.joint-admission.ok.txt
//
//	config scenario=draft-admission fixes=none
//	tokens_per_block=4 max_draft_len=1 kv_reserve_draft_tokens=1 max_batch_size=4 ...
//	request prompt=12 new=4 family=0 shared=8
//	----
//	pool pages: target 8, draft 8
//
//	# [*] step 17 _prepare_draft_resources raises; closed by joint-admission, ...
//	schedule rank=0
//	prepare-resources rank=0
//	----
//	batch [gen 1, gen 2, ctx 3 chunk 4 last]
//	req 3: position 0 → 8, reused prefix 0 → 8; target created active, capacity 12, ...; draft created active, ...
//	pages in use: target 5 → 7/8, draft 7 → 8/8
//	crashed: rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError: ...
//	violation no-crash-on-refusal: as above
//
// The banner (`#` lines) says what the file reproduces and where the
// scenario's story is (stories/NAME.txt), how it was found, the setup, an
// outline of the directives with the pages in use after each and `[*]` on
// the step that breaks, and the fixes checked against it. The config
// directive names the scenario (for its goals, report and story) and the
// fixes; its input is the configuration text (ConfigText: spec.FormatConfig's
// settings that differ from the zero configuration, which is what it is
// applied to, several to a line, so the file is self-contained). Every
// other directive is a spec action in its own words (spec.Action.String;
// spec.Spec.ParseAction reads it back), followed by more action lines as its
// input, or `state` (spec.Spec.Dump) or `invariants`. Each action is a step
// of its own; the directive's output tells what its steps changed together
// (summarize): per rank its batch, one line per request with the changes of
// the request and of its target and draft caches, each changed field with
// every value it took ("capacity 12 → 14 → 13"), then the pages in use of
// every pool that changed, the crash, and what each step broke. The
// changes come from go-cmp (Changes). An action that is not enabled where
// it stands is output too ("not enabled; enabled here: ..."), so deleting
// lines always leaves a file that replays. Write puts one action in each
// directive when the file then fits in MaxLines lines, otherwise one
// iteration, one round of iterations, or several rounds.
//
// Replay executes a transcript strictly and deterministically and returns
// the file with the actual outputs (Result.Actual), a unified diff against
// the file (Result.Diff), or an *InputError with file, line and what was
// expected. Check and Transcripts build the transcripts of the built-in
// scenarios (`kvcheck check --out DIR`), and Explain draws one as HTML.
// testdata/ holds the repository's transcripts; TestTranscripts replays
// every one through datadriven.
package counterexamples
