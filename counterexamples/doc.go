// Package counterexamples turns the checker's counterexamples into
// transcripts people read and tests replay, replays and rewrites them, and
// draws them as one HTML page.
//
// A transcript is a text file in the layout of cockroachdb/datadriven:
//
//	# draft-admission (real code): _prepare_draft_resources raises "..."
//	# Reproduces: ... What happens: counterexamples/stories/draft-admission.txt.
//	# Found by: go run ./cmd/kvcheck check --scenario draft-admission --fix none (...).
//	# [*] step 17 prepare-resources rank=0: _prepare_draft_resources raises.
//	# Fix joint-admission, PR #19006: ..., closes it (671 states, all reachable): draft-admission.joint-admission.ok.txt.
//
//	config scenario=draft-admission fixes=none
//	tokens_per_block=4 max_draft_len=1 kv_reserve_draft_tokens=1 max_batch_size=4 ...
//	request prompt=12 new=4 family=0 shared=8
//	----
//	pool pages: target 8, draft 8
//
//	# [*] step 17
//	schedule rank=0
//	prepare-resources rank=0
//	----
//	batch [gen 1, gen 2, ctx 3 chunk 4 last]
//	req 3: position 0 → 8, reused prefix 0 → 8; target created active, capacity 12, ...; draft created active, ...
//	pages in use: target 5 → 7/8, draft 7 → 8/8
//	crashed: rank 0 draft pool request 3: _prepare_draft_resources raised RuntimeError: ...
//	violation no-crash-on-refusal: as above
//
// The banner (`#` lines) says each fact once: the title, what the file
// reproduces and where the scenario's story is (stories/NAME.txt), how it
// was found, the `[*]` step (the `# [*]` comment marks its directive) and
// each fix checked against it. The config directive is the setup, the
// directives below it the test; the grammar of every directive, with an
// example, is at Replayer.Exec. A directive's output tells what its steps
// changed together (summarize), in the spec's words (spec.Spec.Describe,
// which the state directive's dump shares): per rank its batch, one line
// per request with the changes of the request and of its target and draft
// caches, each changed field with every value it took ("capacity 12 → 14
// → 13"), then the pages in use of every pool that changed, the crash, and
// what each step broke. An action that is not enabled where it stands is
// output too ("not enabled; enabled here: ..."), so deleting lines always
// leaves a file that replays. Write puts one action in each directive when
// the file then fits in MaxLines lines, otherwise one iteration, one round
// of iterations, or several rounds.
//
// Replay executes a transcript strictly and deterministically and returns
// the file with the actual outputs (Result.Actual), a unified diff against
// the file (Result.Diff), or an *InputError with file, line and what was
// expected. Check and Transcripts build the transcripts of the built-in
// scenarios (`kvcheck check --out DIR`), and Explain draws one as HTML.
// testdata/ holds the repository's transcripts; TestTranscripts replays
// every one through datadriven.
package counterexamples
