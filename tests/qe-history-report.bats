#!/usr/bin/env bats
# qe-history report: the static page (-o DIR) and the Markdown trend table
# (--format md), on a year of generated builds (tests/tools/gen_history.py, from
# real qe-cache-extract records of the timed fixture caches) with known
# steps: intro's cell "slow-sleep" x3 from build 30, numba_demo x1.2 with
# the numba upgrade at build 40, the runner class changing at build 45.
# Chromium (headless) renders the page; the screenshot must show it and the
# console must stay silent.

load helper

setup_file() {
	H="$BATS_FILE_TMPDIR"
	qe-cache-extract "$(shared jupyter-cache-timed/base)" > "$H/base.ndjson" 2> /dev/null || true
	qe-cache-extract "$(shared jupyter-cache-timed/head)" > "$H/head.ndjson" 2> /dev/null || true
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" "$H/base.ndjson" "$H/head.ndjson" "$H/reports"
	qe-history add -d "$H/h.db" "$H"/reports/main-*.ndjson.gz "$H"/reports/pr-*.ndjson.gz > /dev/null
	qe-history report -d "$H/h.db" -o "$H/site" || true    # test 1 checks its status
}

setup() {
	H="$BATS_FILE_TMPDIR"
	T="$BATS_TEST_TMPDIR"
	PAGE="$H/site/index.html"
}

# commit N: the first 7 hex digits of main build N's commit (gen_history.py)
commit() {
	printf 'main-%s' "$1" | sha1sum | cut -c 1-7
}

# charts: the title of every trend chart, in order
charts() {
	grep -o "<svg class='chart'[^>]*><title>[^<]*" "$PAGE" | sed 's/.*<title>//; s/: lecture time per main build$//'
}

@test "report -o: one page; a trend chart per lecture and per cell with a step, the largest first, no chart without one; no script, nothing fetched" {
	run -0 --separate-stderr qe-history report -d "$H/h.db" -o "$T/site"
	assert_equal "$stderr" ""
	cmp "$T/site/index.html" "$PAGE"
	# the stepped lectures (by step), then the stepped cells (by step); no lecture without a step
	run -0 charts
	assert_output - <<-'EOF'
	intro
	dynamics/markov
	numba_demo
	intro: cell time per main build
	numba_demo: cell time per main build
	numba_demo: cell time per main build
	numba_demo: cell time per main build
	EOF
	run -0 grep -o "<text x='8' y='16' font-size='13' font-weight='600'>[^<]*" "$PAGE"
	assert_equal "$(sed 's/.*>//' <<< "$output" | sed -n 4,7p)" "intro · cell slow-sleep
numba_demo · cell njit-big
numba_demo · cell njit-define
numba_demo · cell njit-first-call"
	# no script, no external resource, no event handler
	run -1 grep -Eic '<script|javascript:|https?://[^"'"'"' ]*\.(js|css|png|svg|woff)| on[a-z]+=' "$PAGE"
	run -0 grep -c "Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\"" "$PAGE"
}

@test "report -o: each injected step is marked on its chart with its ratio, the first commit after it and both medians; the runner-class change on every chart; outliers ringed" {
	intro=$(sed -n "/<title>intro: lecture time/,/<\/svg>/p" "$PAGE")
	[[ $intro =~ ×[12]\.[0-9][0-9]\ at\ $(commit 30)\</text\> ]]
	[[ $intro =~ \>median\ 6\.00\ s\</text\>.*\>median\ 11\.5\ s\</text\> ]]
	[[ $intro =~ \<title\>one-build\ outlier\ ×2\.01\</title\> ]]
	numba=$(sed -n "/<title>numba_demo: lecture time/,/<\/svg>/p" "$PAGE")
	[[ $numba =~ ×1\.[12][0-9]\ at\ $(commit 40)\</text\> ]]
	# a chart holds only its own lecture's steps
	[[ ! $intro =~ at\ $(commit 40) ]]
	# the build-level step (runner class, build 45): a grey rule on all seven
	run -0 grep -o "<title>build-level step at $(commit 45)</title>" "$PAGE"
	assert_equal "${#lines[@]}" 7
	# the step table: causes and explanations; the outliers apart
	run -0 grep -c "<td>environment</td><td>numba 0.60.0 → 0.61.0, environment.yml changed</td>" "$PAGE"
	run -0 grep -c "<td>runner</td><td>runner class github-hosted/ubuntu-24.04/4cpu → runs-on/cpu=4+ram=16</td>" "$PAGE"
	run -0 grep -c "<h3>One-build outliers</h3>" "$PAGE"
	# the environment section: the upgrade with every package that changed and what moved; the machine change said so
	run -0 grep -o "<h3>Build #2[0-9][0-9], [0-9-]*</h3>" "$PAGE"
	assert_output $'<h3>Build #240, 2026-08-31</h3>\n<h3>Build #245, 2026-10-05</h3>'
	run -0 grep -c "<th>What changed</th><td>package <code>numba</code> 0.60.0 → 0.61.0<br>env-file <code>environment.yml</code>" "$PAGE"
	run -0 grep -c "1 lecture and 2 cells moved (by effect, largest first)" "$PAGE"
	run -0 grep -c "A machine change (the runner class): timings of two machines are not compared" "$PAGE"
	# the cost note counts what it sums: every stored build
	run -0 grep -c "Execution minutes of every stored build (main's, pull requests' and other branches'" "$PAGE"
}

@test "report -o: the slowest tables are qe-history slowest's rows, the first 20 of each level" {
	qe-history slowest -d "$H/h.db" > "$T/slowest.ndjson"
	run -0 bash -c "grep -o '<tr><td class=n>[0-9]*</td><td><code>[^<]*</code></td><td class=n>[0-9]*</td><td><code>[^<]*' '$PAGE' | sed 's/<[^>]*>/|/g; s/||*/|/g'"
	assert_equal "${#lines[@]}" 20
	expect=$(jq -r 'select(.level == "cell") | "|\(.rank)|\(.document)|\(.code_cell)|\(.name)"' "$T/slowest.ndjson")
	assert_output "$expect"
	run -0 jq -r 'select(.level == "lecture" and .rank == 1) | .document' "$T/slowest.ndjson"
	assert_output intro
	run -0 grep -c '<tr><td class=n>1</td><td><code>intro</code></td><td class=n>' "$PAGE"
}

@test "report: every string from the reports is escaped (lecture names, labels, first lines, package versions)" {
	mkdir -p "$T/r"
	for f in "$H"/reports/main-*.ndjson.gz; do
		gzip -dc "$f" | sed 's#"images"#"<img src=x onerror=alert(1)>"#g; s#"png-helper"#"</code><script>alert(2)</script>"#g; s#"0.61.0"#"0.61.0\\"><b>x</b>"#g' |
			gzip -n > "$T/r/${f##*/}"
	done
	qe-history add -d "$T/h.db" "$T"/r/*.gz > /dev/null
	run -0 --separate-stderr qe-history report -d "$T/h.db" -o "$T/site"
	run -1 grep -E '<img|<script|<b>x' "$T/site/index.html"
	run -0 grep -c '&lt;img src=x onerror=alert(1)&gt;' "$T/site/index.html"
	run -0 grep -c '&lt;/code&gt;&lt;script&gt;alert(2)&lt;/script&gt;' "$T/site/index.html"
	run -0 grep -c '0.61.0&quot;&gt;&lt;b&gt;x&lt;/b&gt;' "$T/site/index.html"
}

@test "Chromium renders the page at 1280 px: not blank, charts and tables drawn, no console message; a page with an error is caught" {
	browser_or_skip
	screenshot "$PAGE" "$T/page.png" 1280x2000 "$T/console.log"
	run -0 grep -c ':CONSOLE' "$T/console.log" || true
	run -1 grep ':CONSOLE' "$T/console.log"
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/png_ink.py" "$T/page.png"
	[[ $output =~ ^1280x2000\ ink=([0-9.]+)\ colors=([0-9]+)$ ]]
	# drawn: more than 3% of the pixels are ink, in many colours (lines,
	# bars, red step marks, anti-aliased text)
	[ "$(echo "${BASH_REMATCH[1]} > 0.03" | bc)" = 1 ]
	[ "${BASH_REMATCH[2]}" -gt 200 ]
	# the detectors are not blind: an empty page is blank, a script's
	# console.error is seen
	printf '<!DOCTYPE html><html><body></body></html>' > "$T/blank.html"
	screenshot "$T/blank.html" "$T/blank.png" 1280x2000 "$T/console.log"
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/png_ink.py" "$T/blank.png"
	assert_output "1280x2000 ink=0.000 colors=1"
	printf '<!DOCTYPE html><script>console.error("boom")</script>' > "$T/err.html"
	screenshot "$T/err.html" "$T/err.png" 1280x2000 "$T/console.log"
	run -0 grep -c ':CONSOLE.*"boom"' "$T/console.log"
}

@test "Chromium at 1280 px: the step charts show the medians as solid red lines across their segments (not faint)" {
	browser_or_skip
	screenshot "$PAGE" "$T/top.png" 1280x1000
	# the first 1000 px hold the seven step charts; each step draws two medians of 30 px or more
	# in the step red (#cf222e): a faint (half-transparent) line or a dashed rule is no run
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/png_ink.py" "$T/top.png" --runs cf222e
	[[ $output =~ ^1280x1000\ ink=[0-9.]+\ colors=[0-9]+\ runs=([0-9]+)$ ]]
	[ "${BASH_REMATCH[1]}" -ge 14 ]
	# the detector is not blind to faintness: the same page with the medians half transparent has none
	sed "s/stroke='#cf222e' stroke-width='2.5'/stroke='#cf222e' stroke-opacity='.5' stroke-width='2.5'/g" "$PAGE" > "$T/faint.html"
	screenshot "$T/faint.html" "$T/faint.png" 1280x1000
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/png_ink.py" "$T/faint.png" --runs cf222e
	[[ $output =~ runs=0$ ]]
}

@test "report --format md: the trend rows of the lectures a diff flags; without --diff the charted ones" {
	gzip -dc "$H/reports/main-29.ndjson.gz" > "$T/29.ndjson"
	# build 30 re-executed intro (a new cache key), as a pull request would
	gzip -dc "$H/reports/main-30.ndjson.gz" |
		jq -c 'if .document == "intro" and (.cache_key | type) == "string" then .cache_key = "ffffffffffffffffffffffffffffffff" else . end' > "$T/30.ndjson"
	qe-cell-diff "$T/29.ndjson" "$T/30.ndjson" > "$T/diff.ndjson" || true
	run -0 jq -r 'select(.kind == "notebook-diff" and .verdict == "regression") | .document' "$T/diff.ndjson"
	assert_output intro
	run -0 --separate-stderr qe-history report -d "$H/h.db" --format md --diff "$T/diff.ndjson"
	assert_line --index 0 '#### Trend on main of the lectures above'
	assert_line --index 2 '| Lecture | Trend | Now | Median | Last step |'
	# the no-break space before the unit, as its two UTF-8 bytes: with no LANG, `.` matches one byte
	local nbsp=$'\xc2\xa0'
	assert_line --index 4 --regexp "^\| \`intro\` \| (▁|▂|▃|▄|▅|▆|▇|█){16} \| [0-9.]+${nbsp}s \| [0-9.]+${nbsp}s \| ×[12]\.[0-9]+ at \`$(commit 30)\` \(2026-06-22\) \|$"
	assert_equal "${#lines[@]}" 5
	# without a diff: the charted lectures, the stepped ones
	run -0 --separate-stderr qe-history report -d "$H/h.db" --format md
	assert_line --index 0 '### Trends on main'
	assert_equal "${#lines[@]}" 7
	assert_line --index 4 --regexp '^\| `intro` \|'
	# nothing flagged: nothing printed
	printf '' > "$T/empty.ndjson"
	run -0 --separate-stderr qe-history report -d "$H/h.db" --format md --diff "$T/empty.ndjson"
	assert_output ""
}

@test "report: usage errors (-o or --format md, one of them; --diff only with md; no operands)" {
	local msg="qe-history: report: -o dir (the page) or --format md (the trend table, with --diff), one of them"
	run -2 --separate-stderr qe-history report -d "$H/h.db"
	assert_equal "${stderr_lines[0]}" "$msg"
	assert_equal "${stderr_lines[1]}" "usage: qe-history add [-d db] [--main-ref ref] [--replace] report ..."
	run -2 --separate-stderr qe-history report -d "$H/h.db" -o "$T/x" --format md
	assert_equal "${stderr_lines[0]}" "$msg"
	run -2 --separate-stderr qe-history report -d "$H/h.db" -o "$T/x" --diff "$T/d"
	assert_equal "${stderr_lines[0]}" "$msg"
	run -2 --separate-stderr qe-history report -d "$H/h.db" -o "$T/x" extra
	assert_equal "${stderr_lines[0]}" "qe-history: report: too many operands"
	run -2 --separate-stderr qe-history report -d "$H/h.db" -n 5 -o "$T/x"
	assert_equal "${stderr_lines[0]}" "qe-history: -n: not an option of report"
	[ ! -e "$T/x" ]
	# a database that is not there: said, nothing written
	run -2 --separate-stderr qe-history report -d "$T/none.db" -o "$T/x"
	assert_output ""
	[ -n "$stderr" ]
	[ ! -e "$T/x" ]
}
