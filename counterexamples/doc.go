// Package counterexamples turns the checker's counterexamples into
// transcripts people read and tests replay, replays and rewrites them, and
// draws them as one HTML page.
//
// A transcript is a text file in the layout of cockroachdb/datadriven:
//
//	# draft-admission (real code): _prepare_draft_resources raises "..."
//	#
//	# Reproduces: ... Found by: ... Setup: ... Test (steps; pages in use ...):
//	#   16-17   rank 0 runs [gen 1, gen 2, ctx 3 chunk 4 last]  target 7/8, draft 8/8
//	#   [*] 17 prepare-resources rank=0 raises in _prepare_draft_resources
//	# Fixes checked against it: ...
//
//	config scenario=draft-admission fixes=none
//	tokens_per_block=4
//	...
//	request prompt=12 new=4 family=0 shared=8 rank=0
//	----
//	rank 0: target pool 8/8 pages free, draft pool 8/8 pages free
//
//	prepare-resources rank=0
//	----
//	rank 0 draft cache 3: created active, incarnation 1, flags stop-committing
//	rank 0 draft pool: free pages 1 → 0
//	crashed: rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError: ...
//	violation no-crash-on-refusal: as above
//
// The banner (`#` lines) says what the file reproduces, how it was found,
// the setup, a step outline with `[*]` on the step that breaks, and the
// fixes checked against it. The config directive names the scenario (for
// its goals, report and story) and the fixes; its input is the
// configuration text (ConfigText: spec.FormatConfig's lines that differ
// from the zero configuration, which is what it is applied to, so the file
// is self-contained). Every other directive is a spec action in its own
// words (spec.Action.String; spec.Spec.ParseAction reads it back), or
// `state` (spec.Spec.Dump) or `invariants`. An action's output lists what it
// changed, one line per rank, request, cache and pool, computed by go-cmp
// (Changes), then each invariant it broke. An action that is not enabled
// where it stands is output too ("not enabled; enabled here: ..."), so
// deleting lines always leaves a file that replays.
//
// Replay executes a transcript strictly and deterministically and returns
// the file with the actual outputs (Result.Actual), a unified diff against
// the file (Result.Diff), or an *InputError with file, line and what was
// expected. Check and Transcripts build the transcripts of the built-in
// scenarios (`kvcheck check --out DIR`), and Explain draws one as HTML.
// testdata/ holds the repository's transcripts; TestTranscripts replays
// every one through datadriven.
package counterexamples
