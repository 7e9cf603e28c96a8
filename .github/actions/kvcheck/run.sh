#!/usr/bin/env bash
# The steps of the kvcheck action (action.yml), as a script a serving
# repository's CI runs from its checkout:
#
#   1. install the pinned kvcheck: go install
#      github.com/kvcheck/kvcheck/cmd/kvcheck@$KVCHECK_VERSION (a tag of the
#      module, docs/ci.md); KVCHECK_SOURCE=DIR builds a local clone instead
#      and KVCHECK_BIN=PATH takes a built binary (no network: how make test
#      runs this script on cmd/kvcheck/testdata/serving-repo);
#   2. check every file of $KVCHECK_FILES (default deploy/*.yaml) with
#      kvcheck check --config FILE, through the results cache $KVCHECK_CACHE,
#      writing the counterexample transcripts under $KVCHECK_OUT/transcripts
#      and each file's output in $KVCHECK_OUT/NAME.log;
#   3. triage each counterexample transcript into $KVCHECK_OUT/triage (a
#      kvcheck without the triage command says there is none);
#   4. exit with the worst status: 2 a file kvcheck cannot read or refuses,
#      else 1 a verdict differs, else 3 a search incomplete, else 0.
set -uo pipefail

files_glob=${KVCHECK_FILES:-deploy/*.yaml}
out=${KVCHECK_OUT:-kvcheck-out}
cache=${KVCHECK_CACHE:-}
args=${KVCHECK_ARGS:-}

fail() {
	echo "kvcheck action: $*" >&2
	exit 2
}

# 1. Install.
bin_dir=$(mktemp -d)
if [ -n "${KVCHECK_BIN:-}" ]; then
	kvcheck=$KVCHECK_BIN
elif [ -n "${KVCHECK_SOURCE:-}" ]; then
	(cd "$KVCHECK_SOURCE" && go build -o "$bin_dir/kvcheck" ./cmd/kvcheck) || fail "building kvcheck in $KVCHECK_SOURCE failed"
	kvcheck=$bin_dir/kvcheck
else
	[ -n "${KVCHECK_VERSION:-}" ] || fail "KVCHECK_VERSION (the action's version input) is empty; pin a release such as v0.1.0"
	GOBIN=$bin_dir go install "github.com/kvcheck/kvcheck/cmd/kvcheck@${KVCHECK_VERSION}" ||
		fail "go install github.com/kvcheck/kvcheck/cmd/kvcheck@${KVCHECK_VERSION} failed (is ${KVCHECK_VERSION} a tag of the module? docs/ci.md)"
	kvcheck=$bin_dir/kvcheck
fi
if [ "$kvcheck" = "$bin_dir/kvcheck" ]; then
	# On PATH, so every reproduce line reads "kvcheck check ...".
	export PATH="$bin_dir:$PATH"
	kvcheck=kvcheck
fi
version=$("$kvcheck" version) || fail "$kvcheck does not run"
echo "$version"

# 2. Check each deployment file.
shopt -s nullglob
# shellcheck disable=SC2206 # the glob is the input
files=($files_glob)
[ ${#files[@]} -gt 0 ] || fail "no file matches $files_glob (the action's files input)"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	fail "$out exists and is not empty; the action writes a fresh directory"
fi
mkdir -p "$out/transcripts" "$out/triage" || fail "cannot create $out"
cache_flags=(--no-cache)
if [ -n "$cache" ]; then
	cache_flags=(--cache "$cache")
fi
worst=0
rank() { # the severity of an exit status: 2 > 1 > 3 > 0
	case $1 in 0) echo 0 ;; 3) echo 1 ;; 1) echo 2 ;; *) echo 3 ;; esac
}
summary=()
for f in "${files[@]}"; do
	name=$(basename "$f")
	name=${name%.*}
	# shellcheck disable=SC2086 # args are flags, split as written
	"$kvcheck" check --config "$f" "${cache_flags[@]}" --out "$out/transcripts/$name" $args >"$out/$name.log" 2>&1
	status=$?
	cat "$out/$name.log"
	summary+=("$f: exit $status")
	if [ "$(rank "$status")" -gt "$(rank "$worst")" ]; then
		worst=$status
	fi
done

# 3. Triage: each counterexample's labels (docs/triage.md), through the same
# results cache as the checks, which already ran most re-checks; a fix's
# transcript (*.ok.txt) replays a counterexample and has none of its own.
transcripts=("$out"/transcripts/*/*.txt)
if "$kvcheck" triage --help >/dev/null 2>&1; then
	for t in "${transcripts[@]}"; do
		case $t in *.ok.txt) continue ;; esac
		"$kvcheck" triage "${cache_flags[@]}" "$t" >"$out/triage/$(basename "$t" .txt).triage.txt" 2>&1
	done
else
	echo "this kvcheck has no triage command; each report names the fixes that close its counterexample" >"$out/triage/README.txt"
fi

# 4. Report.
{
	echo "$(echo "$version" | head -n 1) on ${#files[@]} file(s), ${#transcripts[@]} transcript(s) in $out/transcripts:"
	for line in "${summary[@]}"; do
		echo "  $line"
	done
	echo "status $worst (0 every verdict as expected, 1 one differs, 2 a file kvcheck refuses, 3 incomplete)"
} | tee "$out/summary.log"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	cat "$out/summary.log" >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	echo "status=$worst" >>"$GITHUB_OUTPUT"
fi
exit "$worst"
