#!/usr/bin/env bats
# qe-cache-extract on mystmd builds, for real: mystmd 1.8.3 from npm
# (tools/deps test, under tests/.node), Debian's python3-jupyter-server and
# ipykernel, the capture hook armed (a private IPYTHONDIR the server's
# kernels inherit), offline `myst build --site --execute` of the book in
# tests/fixtures/mystmd/book (its {exec-time} plugin left out: not what is
# tested here).  Builds, in setup_file (shared by the tests):
#   1  cold, --execute-parallel 3
#   2  after a prose-only edit of dynamics/markov.md
#   3  after a code edit of dynamics/solow.md
# and of a second copy (book2), for qe-comment:
#   4  cold, one document at a time: the A/A pair of build 1 at another load
#   5  intro's slow-sleep 0.3 s -> 1.3 s, the cache removed: every document
#      executed again, three at a time
# and of the shared MyST-NB book's intro and dynamics/markov as a mystmd
# project (nb), against the hook fixture's jupyter-cache of the same book:
#   6  cold
# each read with -s (the build's start) and the hook log.  The .ipynb form of
# the cache is read from tests/fixtures/mystmd/ipynb-form (see its README).
# Every build's Jupyter server and kernels are ended (tests/mystmd.bash).
load helper
load mystmd

# [BOOK=DIR] build N [MYST-ARGS...]: build the book (DIR, default book), then extract it
# into bN.ndjson (stderr bN.err).  Each book its own hook log (hook.log for book): the
# books name their documents alike, and of several runs of a document the newest counts
build() {
	local w=$BATS_FILE_TMPDIR n=$1 book=${BOOK:-book} log
	shift
	log=$w/hook${BOOK:+-$BOOK}.log
	date -u +%Y-%m-%dT%H:%M:%S.%6NZ > "$w/since$n"
	myst_env "$w/env"
	echo "$MYST_TOKEN" >> "$w/tokens"
	(
		export IPYTHONDIR="$w/ipython" QE_TELEMETRY_LOG="$log"
		myst_build "$w/$book" --execute "$@" > "$w/build$n.out" || true
	)
	qe-cache-extract -t "$log" -s "$(cat "$w/since$n")" "$w/$book" > "$w/b$n.ndjson" 2> "$w/b$n.err" || true
}

setup_file() {
	myst_skip || return 0
	local w=$BATS_FILE_TMPDIR
	cp -R "$TESTS_DIR/fixtures/mystmd/book" "$w/book"
	sed -i '/plugins:/d; /exec-time.mjs/d' "$w/book/myst.yml"
	IPYTHONDIR="$w/ipython" qe-hook arm
	build 1 --execute-parallel 3
	printf '\nA sentence added: prose only.\n' >> "$w/book/dynamics/markov.md"
	build 2
	sed -i 's/time.sleep(0.8)/time.sleep(0.6)/' "$w/book/dynamics/solow.md"
	build 3
	cp -R "$TESTS_DIR/fixtures/mystmd/book" "$w/book2"
	sed -i '/plugins:/d; /exec-time.mjs/d' "$w/book2/myst.yml"
	BOOK=book2 build 4 --execute-parallel 1
	sed -i 's/time.sleep(0.3)/time.sleep(1.3)/' "$w/book2/intro.md"
	rm -r "$w/book2/_build/execute"
	BOOK=book2 build 5 --execute-parallel 3
	mkdir -p "$w/nb/dynamics"
	cp "$SHARED_FIXTURES/notebooks/base/lectures/intro.md" "$w/nb/"
	cp "$SHARED_FIXTURES/notebooks/base/lectures/dynamics/markov.md" "$w/nb/dynamics/"
	# a site: without one myst executes nothing
	cat > "$w/nb/myst.yml" <<-EOF
		version: 1
		project:
		  id: qe-mystnb-book-as-mystmd
		  toc:
		    - file: intro.md
		    - file: dynamics/markov.md
		site:
		  template: book-theme
	EOF
	BOOK=nb build 6
}

setup() {
	myst_skip
	W=$BATS_FILE_TMPDIR
}

# hook_ends N: build N's hook end lines (kernels started after sinceN, before the next build)
hook_ends() {
	local upto=9999
	[ ! -f "$W/since$(($1 + 1))" ] || upto=$(cat "$W/since$(($1 + 1))")
	jq -c --arg s "$(cat "$W/since$1")" --arg u "$upto" \
		'select(.event == "end" and .kernel_start >= $s and .kernel_start < $u)' "$W/hook.log"
}

@test "mystmd: every record validates; one notebook record per document with code; the engine is mystmd" {
	run -0 validate "$W/b1.ndjson" "$W/b2.ndjson" "$W/b3.ndjson"
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.input) \(.engine)"' "$W/b1.ndjson"
	sort <<< "$output" > "$W/docs"
	run -0 cat "$W/docs"
	assert_output "dynamics/growth mystmd mystmd
dynamics/markov mystmd mystmd
dynamics/solow mystmd mystmd
errors/markov mystmd mystmd
intro mystmd mystmd
tools/params mystmd mystmd"
}

@test "mystmd: every executed code cell's duration is within 20 ms of the hook log's, joined by document and code" {
	# the oracle: the hook's end lines of build 1, keyed by document (no extension) and digest
	hook_ends 1 | jq -s 'map({key: "\(.document | sub("\\.md$"; ""))/\(.source_sha256)", value: .duration_s}) | from_entries' > "$W/hook1.json"
	run -0 jq -r --slurpfile h "$W/hook1.json" 'select(.kind == "cell" and .status != "skipped" and .status != "not-run")
		| ($h[0]["\(.document)/\(.source_sha256)"]) as $d
		| if $d == null or .duration_s == null or ((.duration_s - $d) | fabs) > 0.02 then "BAD \(.document) \(.index) \(.duration_s) \($d)" else "ok" end' "$W/b1.ndjson"
	refute_output --partial BAD
	# every cell a kernel ran is timed: 16 hook end lines, 16 timed cells
	[ "$(hook_ends 1 | wc -l)" -eq "$(jq -s '[.[] | select(.kind == "cell" and .duration_s != null)] | length' "$W/b1.ndjson")" ]
	# the designed sleeps: at least the sleep, less than 0.2 s more
	run -0 jq -r 'select(.kind == "cell" and .label != null and .duration_s != null) | "\(.document)#\(.label) \(.duration_s)"' "$W/b1.ndjson"
	for want in "intro#slow-sleep 0.3" "intro#directive-label 0.1" "dynamics/markov#markov-sleep 0.5" \
		"dynamics/growth#growth-after 0.2" "dynamics/solow#solow-sleep 0.8" "tools/params#params-sleep 0.25"; do
		got=$(grep "^${want% *} " <<< "$output" | cut -d' ' -f2)
		awk -v g="$got" -v s="${want#* }" 'BEGIN { exit !(g >= s && g < s + 0.2) }' || fail "$want: got '$got'"
	done
}

@test "mystmd: every status is right: the failing document, the tolerated error, the cell never run, the skipped cell" {
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.status) \(.error)"' "$W/b1.ndjson"
	assert_line "errors/markov failed ValueError: designed failure"
	assert_line "dynamics/growth ok null"
	assert_line "intro ok null"
	[ "$(grep -c ' ok null$' <<< "$output")" -eq 5 ]
	run -0 jq -r 'select(.kind == "cell") | "\(.document) \(.index) \(.label) \(.status)"' "$W/b1.ndjson"
	assert_line "errors/markov 1 fails-here error"
	assert_line "errors/markov 2 never-runs not-run"
	assert_line "dynamics/growth 1 growth-raises error"
	assert_line "dynamics/growth 2 growth-after ok"
	assert_line "intro 4 null skipped"
	[ "$(grep -c ' error$' <<< "$output")" -eq 2 ]
}

@test "mystmd: every label is right: #| label:, :label:, a cell's figure; none invented" {
	run -0 jq -r 'select(.kind == "cell" and .label != null) | "\(.document)#\(.label) \(.name)"' "$W/b1.ndjson"
	sort <<< "$output" > "$W/labels"
	run -0 cat "$W/labels"
	assert_output "dynamics/growth#growth-after growth-after
dynamics/growth#growth-raises growth-raises
dynamics/markov#markov-sleep markov-sleep
dynamics/markov#markov-sum markov-sum
dynamics/solow#solow-sleep solow-sleep
errors/markov#fails-here fails-here
errors/markov#never-runs never-runs
intro#directive-label directive-label
intro#fig-svg fig-svg
intro#slow-sleep slow-sleep
tools/params#params-sleep params-sleep"
}

@test "mystmd: the output digests are the cache entry's; the key is mystmd's own (every entry of build 1 is some document's)" {
	run -0 jq -r 'select(.kind == "notebook" and .cache_key != null) | .cache_key' "$W/b1.ndjson"
	[ "${#lines[@]}" -eq 5 ]
	for k in "${lines[@]}"; do [ -f "$W/book/_build/execute/$k.json" ] || fail "no entry $k"; done
	# build 1 left no entry unplaced
	run -0 cat "$W/b1.err"
	refute_output --partial "belong"
	# the image of the cell's figure: one output, digested
	run -0 jq -r 'select(.kind == "cell" and .label == "fig-svg") | .output_sha256' "$W/b1.ndjson"
	assert_output --regexp '^[0-9a-f]{64}$'
	refute_output "$(jq -r 'select(.kind == "cell" and .label == "slow-sleep") | .output_sha256' "$W/b1.ndjson")"
}

@test "mystmd: with --execute-parallel 3 the documents that ran together are named, both ways, as the hook log's intervals say" {
	# the oracle: each document's first start and last end in build 1's hook log
	hook_ends 1 | jq -s 'group_by(.document) | map({d: (.[0].document | sub("\\.md$"; "")), a: (map(.start) | min), b: (map(.end) | max)})' > "$W/spans"
	run -0 jq -r '. as $s | .[] | . as $x | [$s[] | select(.d != $x.d and .a < $x.b and $x.a < .b) | .d] | sort | "\($x.d) \(join(","))"' "$W/spans"
	sort <<< "$output" > "$W/want"
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.concurrent | join(","))"' "$W/b1.ndjson"
	sort <<< "$output" > "$W/got"
	run -0 diff "$W/want" "$W/got"
	# three at a time: someone ran beside someone
	run -0 jq -s '[.[] | select(.kind == "notebook") | .concurrent | length] | max' "$W/b1.ndjson"
	[ "$output" -ge 1 ]
}

@test "mystmd: after a prose-only edit nothing re-executes and every document is inherited (but the failing one, never cached)" {
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.origin) \(.concurrent)"' "$W/b2.ndjson"
	assert_line "errors/markov executed []"
	[ "$(grep -c ' inherited null$' <<< "$output")" -eq 5 ]
	# the kernels of build 2 ran errors/markov only
	[ "$(hook_ends 2 | jq -r .document | sort -u)" = "errors/markov.md" ]
	# the same keys as build 1
	diff <(jq -r 'select(.kind == "notebook") | "\(.document) \(.cache_key)"' "$W/b1.ndjson" | sort) \
		<(jq -r 'select(.kind == "notebook") | "\(.document) \(.cache_key)"' "$W/b2.ndjson" | sort)
}

@test "mystmd: after one code cell's edit only that document re-executes; its old entry is stale, said once and never attributed" {
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.origin)"' "$W/b3.ndjson"
	assert_line "dynamics/solow executed"
	assert_line "errors/markov executed"
	[ "$(grep -c ' inherited$' <<< "$output")" -eq 4 ]
	old=$(jq -r 'select(.kind == "notebook" and .document == "dynamics/solow") | .cache_key' "$W/b1.ndjson")
	new=$(jq -r 'select(.kind == "notebook" and .document == "dynamics/solow") | .cache_key' "$W/b3.ndjson")
	[ "$old" != "$new" ] && [ -f "$W/book/_build/execute/$old.json" ]
	! grep -q "$old" "$W/b3.ndjson" || fail "the stale entry $old is in a record"
	run -0 cat "$W/b3.err"
	assert_line "qe-cache-extract: $W/book/_build/execute: 1 cache entry belongs to no document of the build (an edited document's old outputs): not read: $old.json"
	[ "$(grep -c belong "$W/b3.err")" -eq 1 ]
	run -0 jq -r 'select(.kind == "cell" and .label == "solow-sleep") | .duration_s' "$W/b3.ndjson"
	awk -v g="$output" 'BEGIN { exit !(g >= 0.6 && g < 0.8) }'
}

@test "mystmd: the _build operand reads as its project; qe-cell-diff compares two mystmd builds unchanged" {
	qe-cache-extract -t "$W/hook.log" -s "$(cat "$W/since3")" "$W/book/_build" > "$W/b3b.ndjson" 2> /dev/null || true
	run -0 diff "$W/b3.ndjson" "$W/b3b.ndjson"
	qe-cell-diff "$W/b1.ndjson" "$W/b3.ndjson" > "$W/diff.ndjson"
	# a notebook-diff per document, the edited cell compared under its name
	[ "$(jq -s '[.[] | select(.kind == "notebook-diff")] | length' "$W/diff.ndjson")" -eq 6 ]
	run -0 jq -r 'select(.kind == "cell-diff" and .document == "dynamics/solow") | .name' "$W/diff.ndjson"
	assert_line "solow-sleep"
	run -0 validate "$W/diff.ndjson"
}

# flagged FILE: the comment's top-table rows that flag something (slower, faster, failing)
flagged() {
	grep -E '^\| (🔴|🟢|❌|🟠)' "$1" || true
}

@test "mystmd comment: a designed slower cell (intro's slow-sleep 0.3 s -> 1.3 s) is named, and nothing else" {
	run -0 validate "$W/b4.ndjson" "$W/b5.ndjson"
	# build 5 executed every document again
	[ "$(jq -s '[.[] | select(.kind == "notebook" and .origin == "executed")] | length' "$W/b5.ndjson")" -eq 6 ]
	qe-cell-diff "$W/b4.ndjson" "$W/b5.ndjson" > "$W/slow.ndjson"
	run -0 validate "$W/slow.ndjson"
	run -0 jq -r 'select(.kind == "cell-diff" and (.verdict == "regression" or .verdict == "improvement")) | "\(.document) \(.name) \(.verdict)"' "$W/slow.ndjson"
	assert_output "intro slow-sleep regression"
	qe-comment "$W/slow.ndjson" > "$W/slow.md"
	run -0 flagged "$W/slow.md"
	assert_line --index 0 --regexp '^\| 🔴 slower \| intro \| slow-sleep \| '
	# the lecture's own row may follow (its total moved by the same second); no other document, no other cell
	refute_output --regexp '\| (dynamics|errors|tools)/'
	[ "$(grep -c 'slow-sleep' <<< "$output")" -eq 1 ]
	[ "${#lines[@]}" -le 2 ]
	# a regression: -e says so
	run -1 qe-cell-diff -e "$W/b4.ndjson" "$W/b5.ndjson"
}

@test "mystmd comment: a flagged cell of a document that ran beside others says so, naming them (the head record's concurrent)" {
	# the oracle: build 5's intro record (its concurrent is checked against the hook log above, for build 1)
	want=$(jq -r 'select(.kind == "notebook" and .document == "intro") | .concurrent | if length > 3 then "ran beside \(length) other documents" else "ran beside \(length) other document\(if length == 1 then "" else "s" end) (\(join(", ")))" end' "$W/b5.ndjson")
	# three at a time, intro's 1.3 s sleep outlasts its neighbours' starts
	[ "$(jq -r 'select(.kind == "notebook" and .document == "intro") | .concurrent | length' "$W/b5.ndjson")" -ge 1 ]
	run -0 jq -r 'select(.kind == "cell-diff" and .name == "slow-sleep") | .concurrent_head | join(",")' "$W/slow.ndjson"
	assert_output "$(jq -r 'select(.kind == "notebook" and .document == "intro") | .concurrent | join(",")' "$W/b5.ndjson")"
	run -0 grep -F '| slow-sleep |' "$W/slow.md"
	assert_output --partial "$want"
	# an unflagged row of the same document does not say it
	run -0 grep -F '| directive-label |' "$W/slow.md"
	refute_output --partial "ran beside"
	# nor does a serial build's (build 4: no document beside another)
	qe-cell-diff "$W/b5.ndjson" "$W/b4.ndjson" | qe-comment > "$W/fast.md"
	run -0 grep -F 'slow-sleep' "$W/fast.md"
	assert_output --partial "faster"
	refute_output --partial "ran beside"
}

@test "mystmd comment: an A/A pair (build 1 three at a time, build 4 one at a time) flags nothing" {
	qe-cell-diff "$W/b1.ndjson" "$W/b4.ndjson" > "$W/aa.ndjson"
	run -0 jq -r 'select(.kind == "diff-summary") | [.cells.regression, .cells.improvement, .notebooks.regression, .notebooks.improvement] | join(" ")' "$W/aa.ndjson"
	assert_output "0 0 0 0"
	# every document compared, its cells matched
	[ "$(jq -s '[.[] | select(.kind == "cell-diff" and .base_index != null and .head_index != null)] | length' "$W/aa.ndjson")" -ge 16 ]
	qe-comment "$W/aa.ndjson" > "$W/aa.md"
	run -0 flagged "$W/aa.md"
	assert_output ""
	run -1 grep 'ran beside' "$W/aa.md"
	run -0 qe-cell-diff -e "$W/b1.ndjson" "$W/b4.ndjson"
}

@test "mystmd comment: a MyST-NB (jupyter-cache) base against a mystmd head compares document by document and names the engines" {
	local H=$TESTS_DIR/fixtures/hook/cache
	# the hook fixture's jupyter-cache 1.0.1 (MyST-NB 0.17.2's) and this mystmd, as pip lists give them
	printf '[{"name": "jupyter-cache", "version": "1.0.1"}, {"name": "myst-nb", "version": "0.17.2"}]\n' > "$W/pip-base.json"
	printf '[{"name": "mystmd", "version": "%s"}]\n' "$("$MYST" --version | tr -d v)" > "$W/pip-head.json"
	qe-cache-extract -t "$H/hook.log" "$H/.jupyter_cache" | qe-stamp -p "$W/pip-base.json" > "$W/mystnb.ndjson"
	qe-stamp -p "$W/pip-head.json" "$W/b6.ndjson" > "$W/b6s.ndjson"
	qe-cell-diff "$W/mystnb.ndjson" "$W/b6s.ndjson" > "$W/engines.ndjson"
	run -0 validate "$W/engines.ndjson"
	run -0 jq -c 'select(.kind == "diff-summary") | .engines' "$W/engines.ndjson"
	assert_output '{"base":{"engine":"jupyter-cache","version":"1.0.1"},"head":{"engine":"mystmd","version":"1.8.3"}}'
	# both documents of the head found in the base by name, every cell of theirs matched by its code
	run -0 jq -r 'select(.kind == "notebook-diff" and .verdict != "removed") | .document' "$W/engines.ndjson"
	assert_output "dynamics/markov
intro"
	run -0 jq -r 'select(.kind == "cell-diff" and (.document == "intro" or .document == "dynamics/markov")) | "\(.base_index == .head_index) \(.verdict)"' "$W/engines.ndjson"
	[ "${#lines[@]}" -eq 10 ]
	refute_output --partial false
	refute_output --regexp ' (new|removed)$'
	qe-comment "$W/engines.ndjson" > "$W/engines.md"
	run -0 grep -F 'Engines differ' "$W/engines.md"
	assert_output '> - **Engines differ**: base executed by `jupyter-cache` `1.0.1`, head by `mystmd` `1.8.3`. Lectures are compared by name and cells by their code; a change may be the engine'"'"'s.'
	# two mystmd builds: no such line
	qe-cell-diff "$W/b1.ndjson" "$W/b4.ndjson" | qe-comment > "$W/same.md"
	run -1 grep -F 'Engines differ' "$W/same.md"
}

@test "mystmd: the .ipynb cache form (upstream's writer): per-document duration, its timestamp, the same digests as the .json form" {
	local f=$TESTS_DIR/fixtures/mystmd/ipynb-form
	cp -R "$f" "$W/ipynb"
	qe-cache-extract -s 2026-12-05T23:55:40.200Z "$W/ipynb" > "$W/ipynb.ndjson"
	run -0 validate "$W/ipynb.ndjson"
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.status) \(.execution_seconds) \(.created) \(.origin)"' "$W/ipynb.ndjson"
	assert_line "dynamics/growth ok 1.698 2026-12-05T23:55:41.083000Z executed"
	assert_line "dynamics/markov ok 0.704 2026-12-05T23:55:40.095000Z inherited"
	assert_line "errors/markov failed null null executed"
	# the same entries in the .json form (slot i = cell i's outputs): the same digests, no duration
	cp -R "$f" "$W/json"
	for e in "$W"/json/_build/execute/*.ipynb; do
		jq -c '[.cells[] | .outputs]' "$e" > "${e%.ipynb}.json"
		rm "$e"
	done
	qe-cache-extract "$W/json" > "$W/json.ndjson"
	diff <(jq -r 'select(.kind == "cell") | "\(.document) \(.index) \(.output_sha256)"' "$W/ipynb.ndjson") \
		<(jq -r 'select(.kind == "cell") | "\(.document) \(.index) \(.output_sha256)"' "$W/json.ndjson")
	run -0 jq -r 'select(.kind == "notebook" and .status == "ok") | .execution_seconds' "$W/json.ndjson"
	refute_output --regexp '[0-9]'
}

@test "mystmd --pages: the pages as a transform sees them (no frontmatter) give the site content's records, the kernelspec read from each source in its forms; a wrong or missing one is said" {
	local p=$BATS_TEST_TMPDIR/p f
	cp -R "$W/book" "$p"
	mkdir "$p/pages"
	for f in "$p"/_build/site/content/*.json; do
		jq -c '{location, mdast}' "$f" > "$p/pages/${f##*/}"
	done
	qe-cache-extract -t "$W/hook.log" -s "$(cat "$W/since3")" "$p" > "$p/site.ndjson" 2> /dev/null || true
	# the front matter's other forms: a flow mapping, quoted, under jupyter:, a comment
	sed -i '1,5c ---\nkernelspec: {name: "python3", display_name: Python 3}\n---' "$p/intro.md"
	sed -i '1,5c ---\ntitle: Markov\njupyter:\n  kernelspec:\n    display_name: Python 3\n    name: '"'"'python3'"'"'  # the kernel\n---' "$p/dynamics/markov.md"
	run -0 head -7 "$p/dynamics/markov.md"
	assert_line --index 5 "    name: 'python3'  # the kernel"
	run -0 --separate-stderr qe-cache-extract -t "$W/hook.log" -s "$(cat "$W/since3")" --pages "$p/pages" "$p"
	diff <(jq -S -c . "$p/site.ndjson") <(jq -S -c . <<< "$output")
	run -0 jq -r 'select(.kind == "notebook" and .cache_key != null) | .document' <<< "$output"
	assert_equal "${#lines[@]}" 5
	# another kernel's name: another key, no entry, not executed (said); no source: said
	sed -i 's/^  name: python3$/  name: python2/' "$p/tools/params.md"
	rm "$p/dynamics/solow.md"
	run -2 --separate-stderr qe-cache-extract --pages "$p/pages" "$p"
	f=$output
	run -0 echo "$stderr"
	assert_line --partial -- "$p/dynamics/solow.md: No such file or directory"
	assert_line --partial "2 documents with code have no cache entry and no error: not executed"
	run -0 jq -r 'select(.kind == "notebook") | .document' <<< "$f"
	refute_line tools/params
	refute_line dynamics/solow
	assert_line dynamics/markov
}

@test "mystmd: no Jupyter server or kernel of these builds is left running" {
	while read -r t; do
		run -0 myst_pids "$t"
		assert_output ""
	done < "$W/tokens"
}
