#!/usr/bin/env bash
# mode: after, with replicates: K (K > 0).  The screen (one build, n = 1 per
# cell) can flag a lecture but not decide it.  Each lecture it flagged
# (notebook-diff verdict regression or improvement) is run again here, on
# this runner: its base version (the baseline's cache record, the executed
# notebook jupyter-cache keeps) and its head version (this build's record),
# K fresh kernels each, interleaved, cold and warm (qe-replicate --warm),
# then once more each under cProfile for the cells the runs flag
# (--profile, never a timed run; replicate-profile: false turns it off).
# The evaluation inputs ask for more: replicate-compare names variables
# captured in each kernel after its run (--compare), and
# replicate-compare-labelled adds the last expression of each labelled cell
# (--compare-labelled), compared by
# qe-cell-diff within replicate-rtol and replicate-atol (numerical fidelity,
# precision loss); replicate-sweep runs both versions of each replicated
# lecture K times more at each size of a parameter (--sweep), after every
# flagged lecture's replicate runs, with what the budget has left.
# qe-cell-diff judges the stream in its replicate mode (three states, the
# test's p), qe-sweep turns the profiles into hotspots and the sweep into
# curves and crossovers, and qe-comment renders both as the evaluation
# report, which is added to the job summary and to the comment the summary
# step wrote.  Within the time budget (replicate-budget): a lecture, or a
# lecture's sweep, whose estimate does not fit is skipped with a note, and
# qe-replicate is stopped when the budget runs out.
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
sweepstream=$QE_ARTIFACT/replicate-sweep.ndjson
notes=$QE_STATE/replicate-notes.md
rm -f "$stream" "$repdiff" "$repeval" "$sweepstream" "$notes" "$QE_STATE/replicate.md"

# compare_inputs: replicate-compare's names (commas, blanks or newlines
# between them) as qe-replicate's --compare; a name that is not one is left out
compare_inputs() {
	local words=() w names=
	IFS=$' \t\r\n,' read -r -d '' -a words <<< "${QE_REPLICATE_COMPARE:-}" || true
	for w in ${words[@]+"${words[@]}"}; do
		if [[ $w =~ ^[A-Za-z_][A-Za-z0-9_]{0,79}$ ]]; then
			names="${names:+$names,}$w"
		else
			warn "input replicate-compare: '$w' is not a variable name (letters, digits and _, not first a digit); left out"
		fi
	done
	[ -z "$names" ] || repargs+=("--compare=$names")
}
# tolerance OPTION VALUE INPUT: a number (1e-6, 0.001) as qe-cell-diff's OPTION
tolerance() {
	if diff_option "$1" "$2" "$3"; then diffargs+=("$1=$2"); fi
}
# sweep_inputs: replicate-sweep's lines, NAME=V1,V2,... each (the first the
# size axis, the others moving with it), as qe-replicate's --sweep options;
# points: how many sizes.  Any line that is not one turns the sweep off.
sweep_inputs() {
	local raw line v n lines=() lit="[A-Za-z0-9_.+'\"-]+"
	while IFS= read -r raw || [ -n "$raw" ]; do
		line=${raw//[[:space:]]/}
		case $line in '' | '#'*) continue ;; esac
		if ! [[ $line =~ ^[A-Za-z_][A-Za-z0-9_]{0,79}=$lit(,$lit)*$ ]]; then
			warn "input replicate-sweep: expected one parameter a line, NAME=V1,V2,... (numbers or Python literals without commas or blanks), got '$raw': no sweep"
			return 0
		fi
		v=${line#*=}
		v=${v//[^,]/}
		n=$((${#v} + 1))
		if [ "${#lines[@]}" -gt 0 ] && [ "$n" != "$points" ]; then
			warn "input replicate-sweep: parameters swept together need as many values each ($points, then $n): no sweep"
			return 0
		fi
		points=$n
		lines+=("--sweep=$line")
	done <<< "${QE_REPLICATE_SWEEP:-}"
	if [ "$points" -gt 50 ]; then
		warn "input replicate-sweep: $points sizes, at most 50: no sweep"
		points=0
		return 0
	fi
	sweepargs=(${lines[@]+"${lines[@]}"})
	[ "${#lines[@]}" -gt 0 ] || points=0
}

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
# the evaluation inputs: a bad value is a warning, and that part is left out
repargs=() diffargs=() sweepargs=() points=0
labelled=${QE_REPLICATE_COMPARE_LABELLED:-false}
is_bool replicate-compare-labelled "$labelled"
[ "$labelled" != true ] || repargs+=(--compare-labelled)
profile=${QE_REPLICATE_PROFILE:-true}
is_bool replicate-profile "$profile"
[ "$profile" != true ] || repargs+=(--profile)
compare_inputs
tolerance --rtol "${QE_REPLICATE_RTOL:-}" replicate-rtol
tolerance --atol "${QE_REPLICATE_ATOL:-}" replicate-atol
sweep_inputs
[ -f "$diff" ] || exit 0	# no screen: not a pull request with a baseline
need_tools qe-replicate qe-stamp qe-cell-diff qe-comment || exit 0
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

# replicate_one EST runs|sweep ARGS...: qe-replicate ARGS for the lecture
# $doc ($base against $cache) into replicate-one.ndjson, within what is left
# of the budget, when its estimate EST (s) fits; 0 when it ran, 1 when it was
# skipped or refused (the next lecture may fit), 2 when the budget ran out
# (a warning and a note each time)
replicate_one() {
	local est=$1 kind=$2 left st=0 cannot skipped ranout stopped failed refused
	shift 2
	left=$(budget_left)
	if [ "$kind" = runs ]; then
		cannot="a lecture: it needs about ${est} s, ${left} s are left; skipped"
		skipped="not replicated, it needs about ${est} s and ${left} s of the budget (${budget_in}) is left"
		ranout="replicating a lecture; its runs are left out" stopped="stopped"
		failed="a lecture (see its messages above); its runs are left out" refused="not replicated"
	else
		cannot="a lecture's sweep: it needs about ${est} s (${points} sizes), ${left} s are left; not swept"
		skipped="not swept, its ${points} sizes need about ${est} s and ${left} s of the budget (${budget_in}) is left"
		ranout="sweeping a lecture; its sweep is left out" stopped="sweep stopped"
		failed="a lecture's sweep (see its messages above: both versions need a cell tagged parameters); its sweep is left out"
		refused="not swept"
	fi
	if [ "$est" -gt "$left" ]; then
		warn "replicates: the budget (${budget_in}) cannot hold $cannot"
		note "$(shown "$doc"): $skipped"
		return 1
	fi
	timeout --kill-after=10 "$left" "${QE_PYTHON:-python3}" "$QE_BIN/qe-replicate" "$@" -k "$k" \
	    -t "$left" -d "$doc" "$base" "$cache" > "$QE_STATE/replicate-one.ndjson" || st=$?
	if [ "$st" = 124 ] || [ "$st" = 137 ]; then
		warn "replicates: the budget (${budget_in}) ran out while $ranout"
		note "$(shown "$doc"): $stopped, the budget (${budget_in}) ran out"
		return 2
	elif [ "$st" != 0 ]; then
		warn "replicates: qe-replicate stopped with status $st for $failed"
		note "$(shown "$doc"): $refused, qe-replicate stopped with status $st (see the job log)"
		return 1
	fi
}

# the flagged lectures, as qe-comment --flagged names them: any document
# name, as its bytes, and its whole seconds
if ! "$QE_BIN/qe-comment" --flagged "$diff" > "$QE_STATE/flagged.bin"; then
	warn "replicates: qe-comment could not read all of the screen's diff (see above): only the lectures it read are replicated"
fi
start=$SECONDS
# budget_left: the seconds of the budget not yet spent
budget_left() { echo $((budget - (SECONDS - start))); }
: > "$QE_STATE/replicated.bin"
flagged=0 done=0 doc='' b=0 h=0	# b, h: whole seconds, digits only (qe-comment writes them)
while read_nul doc && read_nul b && read_nul h; do
	flagged=$((flagged + 1))
	if [ -z "$doc" ]; then
		warn "replicates: a flagged lecture's name cannot be passed to qe-replicate (it is empty); skipped"
		note "a lecture: not replicated, its name cannot be passed to qe-replicate"
		continue
	fi
	# each run: a kernel start (10 s allowed) and the lecture, twice with --warm;
	# the profile: once more each, cold
	est=$((k * (2 * (b + h) + 20)))
	[ "$profile" != true ] || est=$((est + b + h + 20))
	st=0
	replicate_one "$est" runs --warm ${repargs[@]+"${repargs[@]}"} || st=$?
	[ "$st" != 2 ] || break
	[ "$st" = 0 ] || continue
	cat "$QE_STATE/replicate-one.ndjson" >> "$stream"
	printf '%s\0%s\0%s\0' "$doc" "$b" "$h" >> "$QE_STATE/replicated.bin"
	done=$((done + 1))
done < "$QE_STATE/flagged.bin"
# the sweeps, with what every flagged lecture's replicate runs left of the
# budget: each size, K runs of each version, cold (the curve is as used)
swept=0
while [ "$points" -gt 0 ] && read_nul doc && read_nul b && read_nul h; do
	est=$((points * k * (b + h + 20)))
	st=0
	replicate_one "$est" sweep "${sweepargs[@]}" || st=$?
	[ "$st" != 2 ] || break
	[ "$st" = 0 ] || continue
	cat "$QE_STATE/replicate-one.ndjson" >> "$sweepstream"
	swept=$((swept + 1))
done < "$QE_STATE/replicated.bin"
rm -f "$QE_STATE/replicate-one.ndjson" "$QE_STATE/flagged.bin" "$QE_STATE/replicated.bin"

# stamp_runs FILE: this runner's provenance on the runs of FILE (qe-stamp),
# so the sweep's curves name their machine and the memory rule knows the
# runner's memory; with the report's arguments (runner class, environment
# file, package lists: report.sh), so the runs carry the screen's head's
# fingerprint; trouble keeps the runs unstamped, with a warning
same=()
[ ! -f "$QE_STATE/stamp.args" ] || mapfile -d '' -t same < "$QE_STATE/stamp.args"
stamp_runs() {
	if "$QE_BIN/qe-stamp" ${same[@]+"${same[@]}"} -w "${GITHUB_WORKSPACE:-$PWD}" "$1" > "$1.stamped"; then
		mv "$1.stamped" "$1"
	else
		rm -f "$1.stamped"
		warn "replicates: qe-stamp reported trouble over the replicate runs (see above); they stay unstamped"
	fi
}
[ "$done" = 0 ] || stamp_runs "$stream"
[ "$swept" = 0 ] || stamp_runs "$sweepstream"

if [ "$done" -gt 0 ] && ! "$QE_BIN/qe-cell-diff" ${diffargs[@]+"${diffargs[@]}"} "$stream" "$stream" > "$repdiff"; then
	warn "replicates: qe-cell-diff reported trouble over the replicate runs (see above)"
fi
# the hotspots of the profiles, the curves of the sweeps (an older
# qe-sweep-less install: none)
sweepin=()
[ "$swept" = 0 ] || sweepin=("$sweepstream")
if [ "$done" -gt 0 ] && [ -x "$QE_BIN/qe-sweep" ] && ! "$QE_BIN/qe-sweep" "$stream" ${sweepin[@]+"${sweepin[@]}"} > "$repeval"; then
	warn "replicates: qe-sweep reported trouble over the profiles and sweeps (see above)"
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
sweep_s=
[ "$points" = 0 ] || sweep_s=", $swept swept at $points sizes"
notice "replicates: $done of $flagged flagged lectures replicated ($k $run_s of each version)$sweep_s"
