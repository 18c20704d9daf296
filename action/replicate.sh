#!/usr/bin/env bash
# mode: after, with replicates: K (K > 0).  The screen (one build, n = 1 per
# cell) can flag a lecture but not decide it.  Each lecture it flagged
# (notebook-diff verdict regression or improvement) is run again here, on
# this runner: its base version (the baseline's cache record, the executed
# notebook jupyter-cache keeps) and its head version (this build's record),
# K fresh kernels each, interleaved, cold and warm (qe-replicate --warm),
# then once more each under cProfile for the cells the runs flag
# (--profile, never a timed run).
# qe-cell-diff judges the stream in its replicate mode (three states, the
# test's p), qe-sweep turns the profiles into hotspots, and qe-comment
# renders both, which are added to the job summary and to the comment the
# summary step wrote.  Within the time
# budget (replicate-budget): a lecture whose estimate does not fit is
# skipped with a note, and qe-replicate is stopped when the budget runs out.
# qe-replicate runs with the Python the lectures build with (QE_PYTHON, the
# action's input python: its nbclient, ipykernel and the lectures' packages).
# A warm pass that raises is a note of qe-replicate's records, never a failed
# run: a lecture that built is never reported as failing for it.
# Nothing here fails the build: trouble is a warning and a note.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

summary=${GITHUB_STEP_SUMMARY:-/dev/null}
diff=$QE_ARTIFACT/diff.ndjson
stream=$QE_ARTIFACT/replicate.ndjson
repdiff=$QE_ARTIFACT/replicate-diff.ndjson
repeval=$QE_ARTIFACT/replicate-eval.ndjson
notes=$QE_STATE/replicate-notes.md
rm -f "$stream" "$repdiff" "$repeval" "$notes" "$QE_STATE/replicate.md"

k=${QE_REPLICATES:-0}
if ! [[ $k =~ ^[0-9]+$ ]] || [ "$k" -gt 100 ]; then
	warn "input replicates: expected a number of runs from 0 to 100, got '$k': no replicate runs"
	exit 0
fi
[ "$k" -gt 0 ] || exit 0
budget_in=${QE_REPLICATE_BUDGET:-20m}
if [[ $budget_in =~ ^([0-9]+)(s|m|h)?$ ]]; then
	case ${BASH_REMATCH[2]} in
	h) budget=$((BASH_REMATCH[1] * 3600)) ;;
	m) budget=$((BASH_REMATCH[1] * 60)) ;;
	*) budget=$((10#${BASH_REMATCH[1]})) ;;
	esac
else
	warn "input replicate-budget: expected seconds, or minutes or hours (90s, 20m, 1h), got '$budget_in': no replicate runs"
	exit 0
fi
[ -f "$diff" ] || exit 0	# no screen: not a pull request with a baseline
need_tools qe-replicate qe-cell-diff qe-comment || exit 0
cache=$(cache_dir)
if [ ! -f "$QE_STATE/baseline-cache/global.db" ] || [ ! -d "$cache/executed" ]; then
	warn "replicates: no baseline cache from the before step, or no cache from the build: no replicate runs"
	exit 0
fi
# the baseline's records, with the executed notebooks the build left in place
# (jupyter-cache keeps a changed notebook's earlier record beside the new one),
# hard-linked: qe-cache-extract reads no notebook through a symbolic link out
# of the cache (copied where the two folders are on different file systems)
base=$QE_STATE/replicate-base
rm -rf "$base"
mkdir -p "$base"
cp "$QE_STATE/baseline-cache/global.db" "$base/global.db"
if ! cp -al "$cache/executed" "$base/executed" 2> /dev/null; then
	rm -rf "$base/executed"
	cp -R "$cache/executed" "$base/executed"
fi

note() { printf -- '- %s\n' "$*" >> "$notes"; }
# a document name shown in a note only when plain (letters, digits, _ . / -)
shown() {
	if [[ $1 =~ ^[A-Za-z0-9_./-]{1,80}$ ]]; then printf '\140%s\140' "$1"; else printf 'a lecture'; fi
}

# the flagged lectures, as qe-comment --flagged names them: any document
# name, as its bytes, and its whole seconds
if ! "$QE_BIN/qe-comment" --flagged "$diff" > "$QE_STATE/flagged.bin"; then
	warn "replicates: qe-comment could not read all of the screen's diff (see above): only the lectures it read are replicated"
fi
start=$SECONDS
flagged=0 done=0 doc='' b=0 h=0	# b, h: whole seconds, digits only (qe-comment writes them)
while read_nul doc && read_nul b && read_nul h; do
	flagged=$((flagged + 1))
	if [ -z "$doc" ]; then
		warn "replicates: a flagged lecture's name cannot be passed to qe-replicate (it is empty); skipped"
		note "a lecture: not replicated, its name cannot be passed to qe-replicate"
		continue
	fi
	# each run: a kernel start (10 s allowed) and the lecture, twice with --warm
	est=$((k * (2 * (b + h) + 20) + b + h + 20)) # the K runs and the profile
	left=$((budget - (SECONDS - start)))
	if [ "$est" -gt "$left" ]; then
		warn "replicates: the budget (${budget_in}) cannot hold a lecture: it needs about ${est} s, ${left} s are left; skipped"
		note "$(shown "$doc"): not replicated, it needs about ${est} s and ${left} s of the budget (${budget_in}) is left"
		continue
	fi
	st=0
	timeout --kill-after=10 "$left" "${QE_PYTHON:-python3}" "$QE_BIN/qe-replicate" --warm --profile -k "$k" \
	    -t "$left" -d "$doc" "$base" "$cache" > "$QE_STATE/replicate-one.ndjson" || st=$?
	if [ "$st" = 124 ] || [ "$st" = 137 ]; then
		warn "replicates: the budget (${budget_in}) ran out while replicating a lecture; its runs are left out"
		note "$(shown "$doc"): stopped, the budget (${budget_in}) ran out"
		break
	elif [ "$st" != 0 ]; then
		warn "replicates: qe-replicate stopped with status $st for a lecture (see its messages above); its runs are left out"
		note "$(shown "$doc"): not replicated, qe-replicate stopped with status $st (see the job log)"
		continue
	fi
	cat "$QE_STATE/replicate-one.ndjson" >> "$stream"
	done=$((done + 1))
done < "$QE_STATE/flagged.bin"
rm -f "$QE_STATE/replicate-one.ndjson" "$QE_STATE/flagged.bin"

if [ "$done" -gt 0 ] && ! "$QE_BIN/qe-cell-diff" "$stream" "$stream" > "$repdiff"; then
	warn "replicates: qe-cell-diff reported trouble over the replicate runs (see above)"
fi
# the hotspots of the profiles (an older qe-sweep-less install: none)
if [ "$done" -gt 0 ] && [ -x "$QE_BIN/qe-sweep" ] && ! "$QE_BIN/qe-sweep" "$stream" > "$repeval"; then
	warn "replicates: qe-sweep reported trouble over the profiles (see above)"
fi
evalargs=()
if [ -s "$repeval" ]; then evalargs=("$repeval"); else rm -f "$repeval"; fi
[ "$flagged" -gt 0 ] || exit 0
run_s=runs
[ "$k" != 1 ] || run_s=run
title="Replicate runs: $k fresh $run_s of each version on this runner, as used and warm"
{
	if [ -s "$repdiff" ]; then
		"$QE_BIN/qe-comment" -s -l 12000 -n 10 -t "$title" "$repdiff" ${evalargs[@]+"${evalargs[@]}"} ||
		    warn "replicates: qe-comment reported trouble (see above)"
	else
		printf '## %s\n\nNo lecture was replicated.\n' "$title"
	fi
	if [ -s "$notes" ]; then
		printf '\n'
		cat "$notes"
	fi
} > "$QE_STATE/replicate.md"
{ printf '\n'; cat "$QE_STATE/replicate.md"; } >> "$summary"
if [ -n "${QE_COMMENT_FILE:-}" ] && [ -f "$QE_COMMENT_FILE" ]; then
	{ printf '\n'; cat "$QE_STATE/replicate.md"; } >> "$QE_COMMENT_FILE"
fi
notice "replicates: $done of $flagged flagged lectures replicated ($k $run_s of each version)"
