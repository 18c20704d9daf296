#!/usr/bin/env bats
# qe-comment on qe-cell-diff outputs of the real fixture caches (goldens in
# tests/fixtures/qe-comment, made by make-inputs.sh / make-goldens.sh), on a
# hostile hand-made diff (make-hostile.py) and on a generated 10,000-cell diff.
# The Markdown is rendered with cmark-gfm (GitHub's renderer) to check its
# structure.

load helper

SHA=5f3c2a1b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a

setup() {
	T="$BATS_TEST_TMPDIR"
	D="$(fixture qe-comment)"
	cd "$D"
	# CI sets these; each test says what it wants
	unset GITHUB_SHA GITHUB_RUN_NUMBER GITHUB_RUN_ID
}

# html FILE.md: GitHub-flavoured Markdown to HTML, as GitHub renders comments
html() {
	cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tagfilter "$1"
}

ZWJ=$'\xe2\x80\x8d'
NBSP=$'\xc2\xa0'

# plain: after `run`, show no-break spaces as spaces (durations use them)
plain() {
	output=${output//$NBSP/ }
	IFS=$'\n' read -d '' -r -a lines <<< "$output" || true
}

# count PATTERN FILE: occurrences (not lines) of an extended regex
count() {
	grep -oE -- "$1" "$2" | wc -l
}

# cells_per_row FILE.html: the number of cells of each table row, one per line
cells_per_row() {
	awk 'BEGIN { RS = "</tr>" } /<tr>/ { print gsub(/<t[dh][ >]/, "&") }' "$1"
}

# has FILE LINE: FILE holds LINE exactly once (for outputs too big for `run`)
has() {
	run -0 grep -cxF -- "$2" "$1"
	assert_output 1
}

# has_re FILE REGEX: FILE has exactly one line matching REGEX
has_re() {
	run -0 grep -cxE -- "$2" "$1"
	assert_output 1
}

@test "qe-comment: -h, --version, bad option, bad values" {
	run -0 --separate-stderr qe-comment -h
	assert_line -n 0 "usage: qe-comment [-hrs] [--version] [-I run-id] [-l bytes] [-N run-number]"
	assert_equal "$stderr" ""
	run -0 --separate-stderr qe-comment --version
	assert_output "qe-comment 0.1.0"
	run -2 --separate-stderr qe-comment -z timed.ndjson
	assert_output ""
	assert_equal "${stderr_lines[0]}" "qe-comment: invalid option -- 'z'"
	assert_equal "${stderr_lines[1]}" "usage: qe-comment [-hrs] [--version] [-I run-id] [-l bytes] [-N run-number]"
	run -2 --separate-stderr qe-comment --limit 100 timed.ndjson
	assert_output ""
	assert_equal "${stderr_lines[0]}" "qe-comment: -l: invalid value '100'"
	run -2 --separate-stderr qe-comment -n -1 timed.ndjson
	assert_equal "${stderr_lines[0]}" "qe-comment: -n: invalid value '-1'"
}

@test "goldens: every fixture diff, as a comment and as a job summary" {
	local n=0
	for f in *.ndjson; do
		c=${f%.ndjson}
		want=0
		[ "$c" = hostile ] && want=2
		run -$want --separate-stderr qe-comment -S $SHA -N 42 -I 1234567890 "$f"
		assert_output - < "$c.md"
		run -$want --separate-stderr qe-comment -s -S $SHA -N 42 -I 1234567890 "$f"
		assert_output - < "$c.summary.md"
		n=$((n + 1))
	done
	assert_equal "$n" 12
}

@test "timed caches: headline, the one regression, three tables of the right size" {
	run -0 --separate-stderr qe-comment -S $SHA -N 42 -I 1234567890 timed.ndjson
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/c.md"
	plain
	assert_line -n 0 '<!-- qe-telemetry: {"head_sha":"5f3c2a1b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a","run_number":42,"run_id":1234567890} -->'
	assert_line -n 1 "### Lecture execution times"
	# correctness first: slow-sleep's source is the same, an earlier cell's
	# changed, and it prints another number: the timings compare different work
	assert_line -n 2 "⚠️ **Results differ** in slow-sleep (intro): the timings below compare different computations."
	assert_line -n 3 "🔴 **1 cell slower**, 0 faster, 22 unchanged in 6 re-executed lectures; 1 lecture still failing"
	assert_line "| 🔴 slower | intro | slow-sleep | 0.30 s → 0.90 s | ×2.97 | +0.60 s | 77% | **results differ**, earlier cell changed |"
	assert_line --partial "| intro | 🔴 slower; **results differ** | 0.59 s → 1.17 s |"
	html "$T/c.md" > "$T/c.html"
	assert_equal "$(count '<table>' "$T/c.html")" 3
	# rows: top table 1+1, per lecture 1+7, all cells 1+25
	assert_equal "$(count '<tr>' "$T/c.html")" 36
	assert_equal "$(count '<details>' "$T/c.html")" 2
	assert_equal "$(count '<(img|script|a |iframe)' "$T/c.html")" 0
	# the marker is an HTML comment that survives rendering, and nothing else is
	assert_equal "$(count '<!--' "$T/c.html")" 1
}

@test "summary flavour: no marker, what was compared, machine fingerprints" {
	run -0 --separate-stderr qe-comment -s -S $SHA timed.ndjson
	assert_line -n 0 "### Lecture execution times"
	refute_output --partial "qe-telemetry:"
	assert_line '- Base: `base.ndjson` (31 records); head: `head.ndjson` (32 records).'
	assert_line "- Base machine fingerprints: none recorded."
	run -0 --separate-stderr qe-comment -s machines.ndjson
	assert_line '- Base machine fingerprints: `c47824f9c49e38be`.'
	assert_line '- Head machine fingerprints: `7b71a94725f0f86a`.'
}

@test "machines differ: a warning names the differing fact; the regression does not gate" {
	run -0 --separate-stderr qe-comment machines.ndjson
	assert_line -n 3 "🟡 **1 cell slower**, 0 faster, 22 unchanged in 6 re-executed lectures; 1 lecture still failing (machines differ: not comparable)"
	assert_line "> [!WARNING]"
	assert_line '> - **Machines differ**: base and head ran on different machines, so no verdict here can fail the check. Differing: `runner_class` `ubuntu-latest` → `runs-on-4cpu`.'
	assert_line --partial "| slow-sleep |"
	assert_line --partial "**results differ**, earlier cell changed, machines differ |"
}

@test "runner factor: a large one is a warning that says what it means; the ratio is as measured, no row carries an adjusted one where it changes nothing" {
	# issue 40: every row used to read "×4.75 (adj. ×3.35)"; runner.ndjson
	# is the timed pair with head x1.6, judged with -A
	run -0 --separate-stderr qe-comment runner.ndjson
	plain
	assert_line "> - **Runner speed**: 3 compute cells in 3 lectures whose code did not change ran ×1.59 as long in head, too few to speak for the machine: removed as asked (qe-cell-diff -A); a verdict it would change is unclear (machine speed differs)."
	assert_line --partial "| 🔴 slower | intro | slow-sleep | 0.30 s → 1.45 s | ×4.75 | +1.14 s |"
	refute_output --partial "adj."
	assert_line --partial "Runner factor ×1.59 (3 compute cells in 3 lectures, within ×1.01): too few cells to speak for the machine; removed from the verdicts."
}

@test "replicates: unclear verdicts and p-values; stock caches: whole-notebook times" {
	run -0 --separate-stderr qe-comment replicates.ndjson
	plain
	# an evaluation opens with its decision: 2 + 2 runs explain themselves, 5 + 5 that overlap ask for twice as many
	assert_line -n 2 "**Decision for pair: run more, 2 more runs of each version.** The run count binds: 2 + 2 runs can never reach p < 0.05 (the least p of 2 + 2 runs is 0.33); 4 + 4 can (0.029)."
	assert_line -n 3 "**Decision for rep: run more, 5 more runs of each version.** The run count binds: the runs overlap (×1.31 slower as used, p = 0.45, 5 + 5 runs); twice the runs (10 + 10) may tell."
	assert_line -n 4 "🔴 **1 cell slower**, 1 faster, 2 unclear, 1 unchanged in 2 re-executed lectures (replicate runs: 5 + 5)"
	assert_line "| 🟡 unclear | pair | big | 1.00 s → 3.05 s | ×3.03 | +2.04 s | 100% | unclear as used: 1.00 s → 3.05 s (×3.03, p = 0.33, 2 + 2 runs, spread ×3.00–×3.07) |"
	# one answer per lecture: rep's total is unclear by the replicate rule,
	# though its cells hold one slower and one faster; the footer states that rule
	assert_line --partial "| rep | 🟡 unclear as used: 5.25 s → 6.89 s (×1.31, p = 0.45, 5 + 5 runs, spread ×1.00–×1.34) |"
	assert_line --regexp "^<sub>Replicate rule: slower or faster means beyond ×1.20 and by more than 50 ms per cell \\(×1.20 and 50 ms per lecture total\\)"
	refute_output --partial "×1.50"
	run -0 --separate-stderr qe-comment stock.ndjson
	assert_line -n 3 "🟡 No per-cell timings; whole lectures: 0 slower, 0 faster, 2 unchanged of 2 re-executed; 1 lecture still failing"
	assert_line "> - No per-cell timings in 2 re-executed lectures (dynamics/markov, intro): whole-notebook time compared instead."
	assert_line "4 lectures were not re-executed (cache reused): errors\\_allowed, images, numba\\_demo, stale\\_timing."
}

@test "nothing moved: a short quiet comment; nothing re-executed: says so" {
	run -0 --separate-stderr qe-comment quiet.ndjson
	assert_line -n 2 "🟢 No cell moved beyond the thresholds: 23 unchanged in 6 re-executed lectures"
	refute_output --partial "All cells"
	refute_output --partial "| | Lecture |"
	assert_equal "${#lines[@]}" 15	# no note: its one cell without a timing has no code
	run -0 --separate-stderr qe-comment cached.ndjson
	assert_line -n 2 "🟡 No lecture was re-executed in this build: nothing to compare; 1 lecture still failing"
}

@test "hostile strings render as inert text (cmark-gfm)" {
	run -2 --separate-stderr qe-comment hostile.ndjson
	assert_equal "$stderr" "qe-comment: hostile.ndjson:18: invalid UTF-8 at column 55
qe-comment: 1 line rejected"
	printf '%s\n' "$output" > "$T/h.md"
	html "$T/h.md" > "$T/h.html"
	# no element the input asked for: images, scripts, links, extra headings
	assert_equal "$(count '<(img|script|iframe|a |b>|i>|del>|em>|strong>[^<]*b\*)' "$T/h.html")" 0
	assert_equal "$(count '<h[1-6]>' "$T/h.html")" 1
	assert_equal "$(count '<(ol|li)' "$T/h.html")" 4		# our three warnings and one note
	assert_equal "$(count '<details>' "$T/h.html")" 2		# ours, none from a label
	assert_equal "$(count '<!--' "$T/h.html")" 1			# the marker only
	# the label <img ...> is text in its cell
	assert_equal "$(count '<td>&lt;img src=x onerror=alert\(1\)&gt;</td>' "$T/h.html")" 2
	# '|' in a label or a code span never breaks a table: 3 tables, every row complete
	assert_equal "$(count '<table>' "$T/h.html")" 3
	run -0 cells_per_row "$T/h.html"
	assert_equal "$(printf '%s\n' "$output" | sort -u | tr '\n' ' ')" "7 8 9 "
	assert_equal "$(printf '%s\n' "$output" | grep -c '^8$')" 10	# top table: header + 9
	assert_equal "$(printf '%s\n' "$output" | grep -c '^7$')" 3	# per lecture: header + 2
	assert_equal "$(printf '%s\n' "$output" | grep -c '^9$')" 15	# all cells: header + 14
	assert_equal "$(count '<td>\| broken \| table</td>' "$T/h.html")" 2
	# pipes and backslash-pipes in a code span (one backslash too many before
	# an odd run: the price of a row that cannot split whatever the scanner)
	assert_equal "$(count '<td>code cell 13 <code>a \| b \|\| c \\\\\| `d\|e` \\\\\|</code></td>' "$T/h.html")" 1
	# no working mention or reference: outside code spans (where GitHub links
	# nothing), '@', '#' and "GH-" are followed by a ZWJ
	sed 's,<code>[^<]*</code>,,g' "$T/h.html" > "$T/h-text.html"
	run -0 count '@[A-Za-z0-9]' "$T/h-text.html"
	assert_output 0
	run -0 count '#[0-9]|GH-[0-9]' "$T/h-text.html"
	assert_output 0
	run -0 count "@${ZWJ}org/team" "$T/h.html"
	assert_output 2
	# no control, bidi or invisible characters survive; the invalid line is reported
	run -0 count $'[\x01-\x08\x0b-\x1f\x7f]|\xe2\x80\xae|\xe2\x80\xac|\xe2\x81\xa6|\xe2\x81\xa9|\xc2\x85' "$T/h.md"
	assert_output 0
	run -0 grep -cxF "> - **Incomplete input**: some lines of the diff could not be read; this report may miss cells." "$T/h.md"
	assert_output 1
}

@test "hostile: a 100 kB first line is cut to 60 characters; a document name with newlines stays on one line" {
	run -2 --separate-stderr qe-comment hostile.ndjson
	plain
	assert_line --partial "| attacks | code cell 4 \`x = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA…\` | 🔴 slower |"
	assert [ "${#output}" -lt 12000 ]
	assert_line --partial "| evil␤lecture␤\\# heading␤&lt;details&gt; | code cell 1 \`␤␤first␤line\` | unchanged |"
	# a backtick run inside a code span: the fence is longer
	run -2 --separate-stderr qe-comment -s hostile.ndjson
	assert_line --partial '> - **Machines differ**: base and head ran on different machines, so no verdict here can fail the check. Differing: ``cpu`model`` `<img src=x onerror=alert(1)>` → `@org/team | x␤y`.'
	assert_line '- Base: `base␤<img src=x>.ndjson` (3 records); head: ``@head|`x`.ndjson`` (3 records).'
}

@test "title: escaped, invalid UTF-8 replaced, capped" {
	run -0 --separate-stderr qe-comment -t $'<b>@team</b> \xff\xfe | #1' timed.ndjson
	local R=$'\xef\xbf\xbd'
	assert_line -n 1 "### &lt;b&gt;@${ZWJ}team&lt;/b&gt; $R$R \\| \\#${ZWJ}1"
	run -0 --separate-stderr qe-comment -t "$(printf 'T%.0s' $(seq 300))" timed.ndjson
	assert_line -n 1 "### $(printf 'T%.0s' $(seq 100))…"
}

@test "marker: from options or GITHUB_*; invalid values left out and never echoed" {
	run -0 --separate-stderr env GITHUB_SHA=ABCDEF1234567 GITHUB_RUN_NUMBER=007 GITHUB_RUN_ID=99 qe-comment timed.ndjson
	assert_line -n 0 '<!-- qe-telemetry: {"head_sha":"abcdef1234567","run_number":7,"run_id":99} -->'
	run -0 --separate-stderr env GITHUB_SHA=ABCDEF1234567 qe-comment -S 1234567 -N 3 timed.ndjson
	assert_line -n 0 '<!-- qe-telemetry: {"head_sha":"1234567","run_number":3} -->'
	run -2 --separate-stderr env GITHUB_RUN_ID='1 --> <img src=x>' qe-comment -S 'g123456' -N ' 1' timed.ndjson
	assert_line -n 0 '<!-- qe-telemetry: {} -->'
	refute_output --partial "img"
	assert_equal "$stderr" "qe-comment: --head-sha: not a hexadecimal SHA of 7 to 64 digits; left out
qe-comment: --run-number: not a number of 1 to 19 digits; left out
qe-comment: GITHUB_RUN_ID: not a number of 1 to 19 digits; left out"
	# never the Netlify preview's marker text
	refute_output --partial "Netlify"
}

@test "repo URL: our links only; a bad URL is left out" {
	run -0 --separate-stderr qe-comment -S $SHA -N 42 -I 77 -u https://github.com/QuantEcon/lecture-python.myst/ quiet.ndjson
	assert_line --partial 'Head [`5f3c2a1`](https://github.com/QuantEcon/lecture-python.myst/commit/5f3c2a1b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a), run [42](https://github.com/QuantEcon/lecture-python.myst/actions/runs/77).'
	printf '%s\n' "$output" > "$T/q.md"
	html "$T/q.md" > "$T/q.html"
	assert_equal "$(count '<a href="https://github.com/QuantEcon/lecture-python.myst/(commit|actions/runs)/' "$T/q.html")" 2
	assert_equal "$(count '<a ' "$T/q.html")" 2
	run -2 --separate-stderr qe-comment -u 'https://x.org/a)(b' quiet.ndjson
	assert_equal "$stderr" "qe-comment: --repo-url: not an https URL of the form https://host/path; left out"
	refute_output --partial "x.org"
	run -2 --separate-stderr qe-comment -u 'http://x.org' quiet.ndjson
	refute_output --partial "x.org"
	# the longest URL and SHA accepted still make whole links (were cut at 255 bytes)
	url="https://github.com/$(printf 'a%.0s' $(seq 181))"
	sha=$(printf '0123456789abcdef%.0s' 1 2 3 4)
	run -0 --separate-stderr qe-comment -S $sha -N 42 -I 77 -u "$url" quiet.ndjson
	assert_line --partial "Head [\`0123456\`]($url/commit/$sha), run [42]($url/actions/runs/77)."
}

@test "-n limits the top table and says how many more" {
	run -2 --separate-stderr qe-comment -n 2 hostile.ndjson
	assert_equal "$(printf '%s\n' "$output" | grep -c '^| 🔴 slower | attacks |')" 2
	assert_line "7 more changes not shown in this table."
	run -0 --separate-stderr qe-comment -n 0 timed.ndjson
	refute_output --partial "| | Lecture |"
}

@test "gzip input, stdin, other record kinds ignored" {
	gzip -c timed.ndjson > "$T/t.ndjson.gz"
	run -0 --separate-stderr qe-comment -S $SHA -N 42 -I 1234567890 "$T/t.ndjson.gz"
	assert_output - < timed.md
	# extraction records in the same stream are not diff records: ignored
	run -0 --separate-stderr sh -c "cat '$(fixture qe-cell-diff/timed-head.ndjson)' timed.ndjson | qe-comment -S $SHA -N 42 -I 1234567890 -"
	assert_output - < timed.md
}

@test "no diff records: exit 2, and the comment says there is nothing to show" {
	run -2 --separate-stderr qe-comment /dev/null
	assert_equal "$stderr" "qe-comment: no qe-cell-diff records in the input"
	assert_line -n 1 "### Lecture execution times"
	assert_line -n 2 "⚠️ **No timing comparison available**: the input held no qe-cell-diff records."
	printf '{"kind":"cell-diff","document":"x","verdict":"slower"}\n{"verdict":"regression"}\n' > "$T/bad.ndjson"
	run -2 --separate-stderr qe-comment "$T/bad.ndjson"
	assert_equal "$stderr" "qe-comment: $T/bad.ndjson:1: cell-diff record without a known 'verdict'
qe-comment: $T/bad.ndjson:2: record without 'kind'
qe-comment: 2 lines rejected
qe-comment: no qe-cell-diff records in the input"
}

# big N: N changed cells in N/100 lectures, every one slower, with long labels
big() {
	jq -nc --argjson n "$1" '
	def cell(d; i): {kind: "cell-diff", schema_version: 1, document: d, base_index: i,
		head_index: i, label: "cell-\(i)-with-a-rather-long-label-to-fill-the-table",
		first_line: "x = \(i)", verdict: "regression", flags: ["source-changed"], reason: null,
		base_s: 1, head_s: (2 + i / 1000), ratio: (2 + i / 1000), delta_s: (1 + i / 1000),
		share_base: 0.01, share_head: 0.01, status_base: "ok", status_head: "ok",
		timing_source_base: "hook", timing_source_head: "hook", n_base: 1, n_head: 1, test: null};
	(range(0; $n / 100) as $l | "lecture-\($l)" as $d |
		{kind: "notebook-diff", schema_version: 1, document: $d, verdict: "regression",
		 flags: ["source-changed"], reason: null, measure: "cells_seconds", base_s: 100,
		 head_s: 250, ratio: 2.5, delta_s: 150, base_execution_seconds: 101,
		 head_execution_seconds: 251, base_cells_seconds: 100, head_cells_seconds: 250,
		 status_base: "ok", status_head: "ok", cache_key_base: "a", cache_key_head: "b",
		 head_origin: "executed", origin_from: "cache-key", fingerprint_base: null,
		 fingerprint_head: null, cells: {regression: 100}, test: null},
		(range(0; 100) as $i | cell($d; $i))),
	{kind: "diff-summary", schema_version: 1, base: "b", head: "h", base_records: $n,
	 head_records: $n, regression: true, notebooks: {}, cells: {}, notebook_flags: {},
	 cell_flags: {}, runner_factor: null, runner_factor_cells: 0, adjusted: false,
	 machines: "same", fingerprints_base: [], fingerprints_head: [], differing_facts: [],
	 thresholds: {cell_ratio: 1.5, cell_abs_s: 0.5, notebook_ratio: 1.5, notebook_abs_s: 1,
		execution_abs_s: 3.5, alpha: 0.05}}'
}

@test "10,000 changed cells: under 65,536 bytes, headline intact, truncation said" {
	big 10000 > "$T/big.ndjson"
	run -0 --separate-stderr sh -c 'qe-comment -S '$SHA' -N 1 "$1" > "$2"' sh "$T/big.ndjson" "$T/big.md"
	assert_equal "$stderr" ""
	assert [ "$(wc -c < "$T/big.md")" -le 65536 ]
	assert [ "$(wc -c < "$T/big.md")" -gt 60000 ]
	assert_equal "$(sed -n 4p "$T/big.md")" "🔴 **10,000 cells slower**, 0 faster, 0 unchanged in 100 re-executed lectures"
	has "$T/big.md" "9,990 more changes not shown in this table."
	has_re "$T/big.md" '\*Truncated: [0-9,]+ of 10,000 cells not listed, to stay within the size limit\.\*'
	has_re "$T/big.md" '<sub>Slower or faster means .*</sub>'
	# still well-formed: every table row complete, every <details> closed
	html "$T/big.md" > "$T/big.html"
	assert_equal "$(count '<details>' "$T/big.html")" 2
	assert_equal "$(count '</details>' "$T/big.html")" 2
	run -0 cells_per_row "$T/big.html"
	assert_equal "$(printf '%s\n' "$output" | sort -u | tr '\n' ' ')" "7 8 9 "
	# the job summary holds more of them, under 1 MiB
	run -0 --separate-stderr sh -c 'qe-comment -s "$1" > "$2"' sh "$T/big.ndjson" "$T/big.summary.md"
	assert [ "$(wc -c < "$T/big.summary.md")" -le 1048576 ]
	assert [ "$(wc -c < "$T/big.summary.md")" -gt 1000000 ]
	assert_equal "$(sed -n 3p "$T/big.summary.md")" "🔴 **10,000 cells slower**, 0 faster, 0 unchanged in 100 re-executed lectures"
	has "$T/big.summary.md" "9,975 more changes not shown in this table."
	has_re "$T/big.summary.md" '\*Truncated: [0-9,]+ of 10,000 cells not listed, to stay within the size limit\.\*'
	has "$T/big.summary.md" "- Lectures: 100 in total: 100 re-executed, 0 not re-executed. Cells: 10,000 compared."
	# and a small limit still keeps the headline
	run -0 --separate-stderr qe-comment -l 4096 "$T/big.ndjson"
	assert [ "${#output}" -le 4096 ]
	assert_line -n 2 "🔴 **10,000 cells slower**, 0 faster, 0 unchanged in 100 re-executed lectures"
}

@test "man page EXAMPLES: comment and summary of a diff file; straight from a pipe" {
	local cd="$(fixture qe-cell-diff)"
	cd "$T"
	qe-cell-diff "$cd/timed-base.ndjson" "$cd/timed-head.ndjson" > diff.ndjson || true
	run -0 --separate-stderr env GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY=o/r \
		sh -c 'qe-comment -S "$1" -u "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY" diff.ndjson > comment.md' sh $SHA
	assert_equal "$(head -c 40 comment.md)" '<!-- qe-telemetry: {"head_sha":"5f3c2a1b'
	has comment.md "🔴 **1 cell slower**, 0 faster, 22 unchanged in 6 re-executed lectures; 1 lecture still failing"
	: > summary.md
	run -0 --separate-stderr sh -c 'qe-comment -s diff.ndjson >> summary.md'
	assert_equal "$(head -1 summary.md)" "### Lecture execution times"
	run -0 --separate-stderr sh -c "qe-cell-diff '$cd/timed-base.ndjson' '$cd/timed-head.ndjson' | qe-comment -t 'Timing (GPU)'"
	assert_line -n 1 "### Timing \\(GPU\\)"
}

@test "a summary whose counts are not counts: '?', never a cast of NaN or 1e300 (fuzz-comment)" {
	jq -c 'if .kind == "diff-summary" then .runner_factor_cells = "eight" | .base_records = 1e300 | del(.head_records) else . end' \
		runner.ndjson > "$T/bad.ndjson"
	run -0 --separate-stderr qe-comment -s "$T/bad.ndjson"
	assert_equal "$stderr" ""
	plain
	assert_line --partial "**Runner speed**: ? compute cells in 3 lectures whose code did not change ran ×1.59 as long in head"
	assert_line '- Base: `base.ndjson` (? records); head: `head.ndjson` (? records).'
	assert_line --partial "Runner factor ×1.59 (? compute cells in 3 lectures, within ×1.01): too few cells to speak for the machine; removed from the verdicts. Machines: unknown."
}

@test "-r: the job summary of one build (golden), from a file, stdin or gzip" {
	cd report
	run -0 --separate-stderr qe-comment -r build.ndjson
	assert_equal "$stderr" ""
	assert_output - < build.md
	run -0 --separate-stderr sh -c 'gzip -c build.ndjson | qe-comment --report'
	assert_output - < build.md
	# the table shape the action's summary always had
	has build.md '| notebook | execution | timed cells | status |'
	has build.md '| notebook | code cell | name | time |'
	# code cells counted from 1 (index 2 is the third): as the PR comment counts them
	has build.md "| numba\\_demo | 3 | njit-first-call | 0.42${NBSP}s |"
	has build.md '| broken | — | — | failed |'
	has build.md '- broken: ValueError: deliberate failure for the fixture'
	# diff records in the same stream are not build records: ignored
	run -0 --separate-stderr sh -c 'cat ../timed.ndjson build.ndjson | qe-comment -r'
	assert_output - < build.md
}

@test "-r: hostile strings are inert (cmark-gfm); stale records skipped; values of the wrong type absent" {
	cat > "$T/r.ndjson" <<-'JSON'
	{"kind":"notebook","document":"<img src=x onerror=alert(1)> | @octocat","status":"failed","error":"see #123 and GH-45 at https://evil.example/x <!-- x -->\n# heading","execution_seconds":3.14159,"cells_seconds":1,"origin":"executed"}
	{"kind":"notebook","document":"- [link](javascript:alert(1)) ![i](x.png) *em* _u_ ~~s~~ `c`","status":"ok","execution_seconds":"fast","cells_seconds":null,"origin":"inherited"}
	{"kind":"notebook","document":"stale","status":"ok","execution_seconds":99,"current":false}
	{"kind":"cell","document":"1. list","index":0,"label":"a|b\u202eevil\u200bx\u0007","duration_s":2.5}
	{"kind":"cell","document":"> quote","index":1,"label":null,"first_line":"import os  # www.evil.example","duration_s":0.0004}
	{"kind":"cell","document":"x","index":"2","label":"not timed","duration_s":"1"}
	{"kind":"cell","document":"stale","index":3,"label":"stale","duration_s":50,"current":false}
	JSON
	run -0 --separate-stderr qe-comment -r "$T/r.ndjson"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/r.md"
	assert_line -n 1 "2 notebooks (1 executed by this build, 1 inherited from the cache), 1 failed; 2 of 3 code cells timed, 2.50${NBSP}s in timed cells, 3.14${NBSP}s of notebook execution."
	html "$T/r.md" > "$T/r.html"
	assert_equal "$(count '<(img|script|a |em>|del>|strong>|ol|blockquote)' "$T/r.html")" 0
	assert_equal "$(count '<h[1-6]>' "$T/r.html")" 4
	assert_equal "$(count '<!--' "$T/r.html")" 0
	assert_equal "$(count '<li>' "$T/r.html")" 1
	# every row has its four cells: no '|' from a name split one
	run -0 cells_per_row "$T/r.html"
	assert_equal "$(printf '%s\n' "$output" | sort -u | tr '\n' ' ')" "4 "
	# no working mention, reference or autolink outside code
	run -0 count '@[A-Za-z0-9]|#[0-9]|GH-[0-9]|://|www\.' "$T/r.md"
	assert_output 0
	run -0 count $'\xe2\x80\xae|\x07' "$T/r.md"
	assert_output 0
	has "$T/r.md" "| &lt;img src=x onerror=alert\\(1\\)&gt; \\| @${ZWJ}octocat | 3.14${NBSP}s | 1.00${NBSP}s | failed |"
	has "$T/r.md" "| 1\\. list | 1 | a\\|b�evil"$'\xe2\x80\x8b'"x␇ | 2.50${NBSP}s |"
	has "$T/r.md" "| &gt; quote | 2 | import os  \\# www${ZWJ}.evil.example | <1${NBSP}ms |"
	refute_line --partial stale
}

@test "-r: an empty report is a zero summary; a bad line is reported, the rest summarised; the limit holds" {
	run -0 --separate-stderr qe-comment -r /dev/null
	assert_equal "$stderr" ""
	assert_output "## Lecture execution times (this build)

0 notebooks, 0 failed; 0 of 0 code cells timed, <1${NBSP}ms in timed cells, <1${NBSP}ms of notebook execution."
	{ head -3 report/build.ndjson; echo '{not json'; tail -n +4 report/build.ndjson; } > "$T/bad.ndjson"
	run -2 --separate-stderr qe-comment -r "$T/bad.ndjson"
	assert_equal "$stderr" "qe-comment: $T/bad.ndjson:4: invalid JSON at column 3
qe-comment: 1 line rejected"
	assert_output - < report/build.md
	# 3,000 failed lectures with long errors: cut at the limit, the rest counted
	jq -nc 'range(3000) | {kind: "notebook", document: "lecture-\(.)", status: "failed",
		error: ("E" * 200), execution_seconds: .}' > "$T/failed.ndjson"
	run -0 --separate-stderr qe-comment -r -l 65536 "$T/failed.ndjson"
	printf '%s\n' "$output" > "$T/f.md"
	assert [ "$(wc -c < "$T/f.md")" -le 65537 ]
	has_re "$T/f.md" '\*[0-9]+ more not listed, to stay within the size limit\.\*'
	has "$T/f.md" "| lecture-2999 | 49m${NBSP}59s | — | failed |"
}

@test "-r (issue 40): every duration as the comment writes it, never raw seconds (399.58 is 6m 40s, 6.8 is 6.80 s)" {
	# the report's real records, the slowest lecture given the issue's lln_clt time
	jq -c 'if .kind == "notebook" and .document == "numba_demo" then .execution_seconds = 399.58
		elif .kind == "cell" and .label == "njit-first-call" then .duration_s = 6.8 else . end' \
		report/build.ndjson > "$T/r.ndjson"
	run -0 --separate-stderr qe-comment -r "$T/r.ndjson"
	printf '%s\n' "$output" > "$T/r.md"
	has "$T/r.md" "| numba\\_demo | 6m${NBSP}40s | 0.87${NBSP}s | ok |"
	has "$T/r.md" "| numba\\_demo | 3 | njit-first-call | 6.80${NBSP}s |"
	# no bare number of seconds anywhere: no "| 6.8 |", no 399.58
	run -1 grep -E '\| [0-9]+(\.[0-9]+)? \|$|\| [0-9]+\.[0-9]+ \||399' "$T/r.md"
}

@test "an empty code cell (issue 40) is not a cell that was not run: the real nbclient pair counts only the cell after the error" {
	extract() { qe-cache-extract "$(shared nbclient)/$1/lectures" > "$T/$1.ndjson"; }
	extract base
	extract head
	run -0 --separate-stderr qe-cell-diff "$T/base.ndjson" "$T/head.ndjson"
	printf '%s\n' "$output" > "$T/d.ndjson"
	# intro's last code cell has no code; broken's last one never ran after the error
	run -0 jq -c 'select(.kind == "cell-diff" and .first_line == null) | [.document, .status_head, .reason]' "$T/d.ndjson"
	assert_output '["intro","not-run","no code"]'
	run -0 --separate-stderr qe-comment "$T/d.ndjson"
	plain
	assert_line '> - 1 cell was not run in head (skipped, or after an error).'
	refute_line --partial 'no usable timing'
	assert_line --partial '| intro | code cell 7 | no timing | — | — | — | — | — | earlier cell changed; no code |'
	# without the cell after the error, no note at all
	grep -v '"broken-after"' "$T/d.ndjson" > "$T/d2.ndjson"
	run -0 --separate-stderr qe-comment "$T/d2.ndjson"
	refute_line --partial 'not run'
	refute_line '> [!NOTE]'
}

@test "output changed (issue 40): one rule for rows and count; a change no code explains is counted, never beside a verdict in any table (real builds)" {
	cd_="$(fixture qe-cell-diff)"
	# the broad pair's regressions print their timings; the same-load pair draws unseeded
	for p in factor-broad-base:factor-broad-head:5 factor-same-run1:factor-same-run2:1; do
		IFS=: read -r b h n <<< "$p"
		qe-cell-diff "$cd_/$b.ndjson" "$cd_/$h.ndjson" > "$T/diff" || [ $? -eq 1 ]
		# the diff's own facts: output changed, with and without a code change before it
		quiet=$(jq -s '[.[] | select(.kind == "cell-diff" and (.flags | index("output-changed"))
			and (.flags | index("source-changed") | not) and (.flags | index("upstream-changed") | not))] | length' "$T/diff")
		assert_equal "$quiet" "$n"
		explained=$(jq -s '[.[] | select(.kind == "cell-diff" and (.flags | index("output-changed"))
			and ((.flags | index("source-changed")) or (.flags | index("upstream-changed"))))] | length' "$T/diff")
		run -0 --separate-stderr qe-comment "$T/diff"
		plain
		if [ "$n" -eq 1 ]; then
			assert_line "> - 1 cell's output differs though its code and the cells before it did not change (an unseeded random draw, a clock): not a timing matter."
		else
			assert_line "> - $n cells' output differs though their code and the cells before them did not change (an unseeded random draw, a clock): not a timing matter."
		fi
		# rows tell only the output changes code explains: as many as the diff has, in all tables
		assert_equal "$(printf '%s\n' "$output" | grep -E '^\|' | grep -c 'output changed' || true)" "$explained"
	done
}

@test "hotspot (issue 40): the cell's own top-level call is never the hotspot; no ceiling beyond what the profile tells" {
	local f
	f="$(fixture sweep/profile.ndjson)"
	# run() is the cell (99% cumulative): the Python function below it with the most time is named
	run -0 --separate-stderr sh -c "qe-sweep '$f' | qe-comment -s"
	plain
	assert_line '| Hotspot | `lec` `solve` (new): 0.49 s of 1.05 s (47%) in `simulate`; 10x faster there gives ×1.73 overall (at most ×1.89) |'
	refute_output --partial 'in `run`'
	# the issue's profile: the cell's one call at 99.997%, a builtin below it holding the time; no Python
	# function below: the hottest by own time, and no ceiling (under 1% of the cell is left outside it)
	jq -c 'if .kind == "profile" then .cell_s = 1 | .functions = [.functions[] | select(.function == "<module>" or .function == "run")
		| if .function == "run" then .own_s = 0.0001 | .cumulative_s = 0.99997 else . end]
		+ [{function: "<built-in method time.sleep>", file: null, line: 0, calls: 1, own_s: 0.9995, cumulative_s: 0.9995}]
		else . end' "$f" > "$T/p.ndjson"
	run -0 --separate-stderr sh -c "qe-sweep '$T/p.ndjson' | tee '$T/h.ndjson' | qe-comment -s"
	plain
	assert_line '| Hotspot | `lec` `solve` (new): 1.00 s of 1.00 s (100%) in `<built-in method time.sleep>`; 10x faster there gives ×9.96 overall |'
	refute_output --partial 'at most'
	run -0 validate "$T/h.ndjson"
	run -0 jq -c 'select(.kind == "hotspot") | .amdahl | [.function, .limit]' "$T/h.ndjson"
	assert_output '["<built-in method time.sleep>",null]'
}

@test "every fixture's comment and summary agree with themselves: counts add up, sections match (tests/tools/comment_check.py)" {
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/comment_check.py" *.md
	assert_output ""
	# and at a small limit, where sections are cut
	for f in verdicts-pr timed stock; do
		qe-comment -l 4096 "$f.ndjson" > "$T/$f.small.md"
		qe-comment -s -l 4096 "$f.ndjson" > "$T/$f.small.summary.md"
	done
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/comment_check.py" "$T"/*.md
	assert_output ""
	# the checker is not blind: a headline that miscounts failures is caught
	sed 's/; \*\*1 lecture newly failing\*\*/; **2 lectures failed**/' verdicts-pr.summary.md > "$T/wrong.md"
	run -1 /usr/bin/python3 "$TESTS_DIR/tools/comment_check.py" "$T/wrong.md"
	assert_line "$T/wrong.md: headline failing 0+1, warnings 1+1"
	# and a lecture shown unchanged beside a slower cell
	sed 's/^| long | 🔴 slower |/| long | unchanged |/' verdicts-pr.md > "$T/wrong2.md"
	run -1 /usr/bin/python3 "$TESTS_DIR/tools/comment_check.py" "$T/wrong2.md"
	assert_line "$T/wrong2.md: lecture long unchanged beside cells '1 slower, 8 unchanged'"
}

@test "verdicts PR: newly vs still failing, the exception line, the timeout cell, lectures changed on main apart; failing on both sides stays a failure though changed on main" {
	run -0 --separate-stderr qe-comment -s verdicts-pr.ndjson
	assert_equal "$stderr" ""
	plain
	assert_line -n 1 "🔴 **1 cell slower**, 0 faster, 12 unchanged in 2 re-executed lectures; **1 lecture newly failing**, 1 lecture still failing"
	assert_line '> - **1 lecture newly failing**: newly\_fails — `nbclient.exceptions.CellTimeoutError: A cell timed out while it was being executed, after 3 seconds.` (cell 3 sent to the kernel never finished).'
	# this diff flags fails_both changed on main: its reason is still in the warnings
	run -0 jq -c 'select(.kind == "notebook-diff" and .document == "fails_both") | [.verdict, .flags]' verdicts-pr.ndjson
	assert_output '["failed",["changed-on-main"]]'
	run -0 --separate-stderr qe-comment -s verdicts-pr.ndjson
	plain
	assert_line '> - 1 lecture still failing (failed in base too): fails\_both — `ValueError: broken on main and in the pull request` (also changed on main).'
	assert_line '> - **1 lecture changed on main** since the baseline, not in this pull request, left out of the counts above and of the check: main\_only (unchanged).'
	assert_line '- Lectures: 7 in total: 2 re-executed, 2 not re-executed, 2 failed (1 newly failing, 1 still failing), 1 changed on main. Cells: 16 compared (2 of them reported apart).'
	# the lecture with the x3 cell reads slower, as its cells do
	assert_line '| long | 🔴 slower | 1.83 s → 2.41 s | ×1.32 | +0.59 s | 1 slower, 8 unchanged | `▁▃▃▃▃▃█▁▁` |'
	assert_line '| fails\_both | ❌ still failing (changed on main) | — → — | — | — | — | — |'
	assert_line '| newly\_fails | ❌ newly failing | — → — | — | — | — | — |'
	assert_line '| main\_only | mo-value | unchanged | <1 ms | <1 ms | ×1.22 | 0 ms | 31% | source changed, changed on main |'
	# the top table has the one slower cell, nothing of main_only
	assert_line '| 🔴 slower | long | long-hot | 0.30 s → 0.90 s | ×2.99 | +0.60 s | 37% | source changed |'
}

@test "verdicts A/A: a quiet comment; a lecture without code cells gets a note that fits it" {
	run -0 --separate-stderr qe-comment -s verdicts-aa.ndjson
	plain
	assert_line -n 1 "🟡 0 cells slower, 0 faster, 21 unchanged in 6 re-executed lectures; 1 lecture still failing"
	assert_line '> - 1 lecture still failing (failed in base too): fails\_both — `ValueError: broken on main and in the pull request`.'
	assert_line "> - 1 re-executed lecture has no code cells (prose): only the kernel's start-up was timed."
	refute_output --partial "No per-cell timings"
	refute_output --partial "slower |"
	refute_output --partial "faster |"
}

@test "verdicts ignored: ignored rows are listed as ignored, out of the headline, and the lecture's cells say so" {
	run -0 --separate-stderr qe-comment -s verdicts-ignored.ndjson
	plain
	assert_line -n 1 "🟡 0 cells slower, 0 faster, 8 unchanged in 1 re-executed lecture; **1 lecture newly failing**, 1 lecture still failing"
	assert_line '> - Ignored (`-i`), left out of the counts above and of the check: 1 lecture (errors\_allowed (unchanged)), 1 cell (long, long-hot: slower).'
	assert_line '| long | unchanged | 1.83 s → 2.41 s | ×1.32 | +0.59 s | 8 unchanged, 1 ignored | `▁▃▃▃▃▃█▁▁` |'
	assert_line '| long | long-hot | 🔴 slower | 0.30 s | 0.90 s | ×2.99 | +0.60 s | 37% | source changed, ignored |'
	assert_line '| errors\_allowed | unchanged (ignored) | 0.33 s → 0.23 s | ×0.68 | -0.10 s | 4 unchanged, 1 new | `▁▁█▇▁` |'
}

@test "a section that does not fit at all still says how much was left out (small -l)" {
	big 10000 > "$T/big.ndjson"
	for l in 4096 5000 6000; do
		qe-comment -l $l "$T/big.ndjson" > "$T/c$l.md"
		[ "$(wc -c < "$T/c$l.md")" -le $l ]
		# each table is there (maybe truncated, with its note) or a line says it was left out
		for s in "Per-lecture totals" "All cells"; do
			grep -q "<summary>$s" "$T/c$l.md" || grep -q "^\*$s: [0-9,]* left out, to stay within the size limit.\*$" "$T/c$l.md" ||
				{ echo "$s: neither listed nor left out at -l $l"; cat "$T/c$l.md"; return 1; }
		done
	done
	run -0 grep -c "^\*All cells: 10,000 left out, to stay within the size limit.\*$" "$T/c4096.md"
	assert_output 1
}

@test "a package-only environment change: a prominent line with the versions and the lectures importing it; verdicts kept" {
	run -0 --separate-stderr qe-comment environment.ndjson
	plain
	assert_line -n 3 "🔴 **1 cell slower**, 0 faster, 22 unchanged in 6 re-executed lectures; 1 lecture still failing"
	assert_line -n 5 '> - **Environment changed**: `jax` `0.4.30` → `0.4.31`; `jaxlib` `0.4.30` → `0.4.31`; `numpy` `1.26.4` → `2.0.0` (imported by numba\_demo). Verdicts are kept: a package change is a likely cause of a change.'
	refute_output --partial "Machines differ"
	refute_output --partial "machines differ"
}

@test "--flagged-cells: the head index of each cell judged regression, improvement or inconclusive (what qe-replicate --profile profiles), one a line" {
	local F
	F=$(fixture qe-cell-diff)
	# replicate runs of one lecture: two cells the test cannot decide, three unchanged
	run -0 --separate-stderr bash -c 'qe-cell-diff "$1" "$1" | qe-comment --flagged-cells' _ "$F/replicate-warm.ndjson"
	assert_output $'2\n3'
	assert_equal "$(qe-cell-diff "$F/replicate-warm.ndjson" "$F/replicate-warm.ndjson" | jq -r 'select(.kind == "cell-diff") | .verdict' | sort | uniq -c | tr -s ' ' | tr '\n' ,)" " 2 inconclusive, 3 unchanged,"
	# two builds: the one slower cell; a new cell, an unchanged one or one without timing is not flagged
	run -0 --separate-stderr bash -c 'qe-cell-diff "$1" "$2" | qe-comment --flagged-cells' _ "$F/timed-base.ndjson" "$F/timed-head.ndjson"
	assert_output "2"
	# no diff records: nothing flagged, no trouble
	run -0 --separate-stderr qe-comment --flagged-cells /dev/null
	assert_output ""
}

@test "broad slowdown (issue 40): red, named first with how many cells and lectures, and its likely shared cause from provenance" {
	cd_="$(fixture qe-cell-diff)" v="$(fixture verdicts)"
	qe-cell-diff "$cd_/factor-broad-base.ndjson" "$cd_/factor-broad-head.ndjson" > "$T/diff"
	run -0 --separate-stderr qe-comment "$T/diff"
	plain
	assert_line -n 2 --regexp '^🔴 \*\*Broad slowdown\*\* ×[0-9.]+: 10 of 12 compute cells, in 2 of 2 lectures, on the same machine; \*\*7 cells slower\*\*, 0 faster, 9 unchanged in 2 re-executed lectures$'
	assert_line --regexp '^> - \*\*Broad slowdown\*\*: 10 of 12 compute cells, in 2 of 2 lectures, whose code did not change ran ×1\.25 as long or longer in head \(median ×[0-9.]+\), on the same runner class and CPU: not the machine but a cause they share \(this fails the check\)\. Provenance shows no package or kernel change: look for a module, data or setting the lectures share\.$'
	refute_output --partial "adj."
	# the same builds stamped with other package versions: the change is named
	for s in base head; do
		jq -c 'del(.provenance)' "$cd_/factor-broad-$s.ndjson" | qe-stamp -r debian-12-2cpu -p "$v/pip-$s.json" > "$T/$s"
	done
	run -0 --separate-stderr sh -c "qe-cell-diff '$T/base' '$T/head' | qe-comment"
	plain
	assert_line --partial 'on the same runner class and CPU: not the machine but a cause they share (this fails the check). Likely shared cause, from provenance: `jax` `0.4.30` → `0.4.31`; `jaxlib` `0.4.30` → `0.4.31`; `numpy` `1.26.4` → `2.0.0` (imported by compute\_a, compute\_b).'
}

@test "machine speed differs (issue 40): said once with what it means; a verdict it would change reads unclear with both ratios, the measured one in the ratio column" {
	cd_="$(fixture qe-cell-diff)"
	# the unstamped 3x book of qe-cell-diff.bats: a slower machine or a broad change
	book() {
		awk -v n="$1" -v k="$2" 'BEGIN { for (d = 0; d < n; d++) for (i = 0; i < 6; i++)
			printf "{\"kind\":\"cell\",\"schema_version\":1,\"document\":\"l%d\",\"input\":\"ipynb\",\"index\":%d,\"label\":null,\"source_sha256\":\"%032d%032d\",\"output_sha256\":\"%064d\",\"first_line\":\"step(%d)\",\"status\":\"ok\",\"duration_s\":%.3f,\"timing_source\":\"nbclient\"}\n", d, i, d, i, 0, i, (0.2 + 0.1 * i) * k }'
	}
	book 3 1 > "$T/base"
	book 3 3 > "$T/head"
	qe-cell-diff "$T/base" "$T/head" > "$T/diff"
	run -0 --separate-stderr qe-comment "$T/diff"
	plain
	assert_line -n 2 "🟡 0 cells slower, 0 faster, 15 unclear, 3 unchanged in 3 re-executed lectures"
	assert_line "> - **Machine speed differs**: 15 compute cells in 3 lectures whose code did not change ran ×3.00 as long in head, all within ×1.00 of that: the two builds ran at different machine speed (load, or another machine). Ratios are as measured; a cell or lecture whose verdict removing it would change is unclear (machine speed differs) and cannot fail the check. Stamp both builds (qe-stamp) to tell the machine from a broad change."
	assert_line "| 🟡 unclear | l0 | code cell 6 \`step(5)\` | 0.70 s → 2.10 s | ×3.00 | +1.40 s | 26% | machine speed differs (×1.00 adjusted) |"
	# a lecture's row: never a measured ratio beside an adjusted verdict without saying so
	assert_line "| l0 | 🟡 unclear; machine speed differs (×1.00 adjusted) | 2.70 s → 8.10 s | ×3.00 | +5.40 s | 5 unclear, 1 unchanged | \`▃▄▅▆▇█\` |"
	refute_output --partial "adj."
}

@test "real A/A pairs (issue 40), one at one load and one at different load, each first build cold: a green comment, no cell or lecture slower" {
	cd_="$(fixture qe-cell-diff)"
	for pair in "factor-same-run1 factor-same-run2" "factor-load-run1 factor-load-run2"; do
		set -- $pair
		run -0 --separate-stderr sh -c "qe-cell-diff -e '$cd_/$1.ndjson' '$cd_/$2.ndjson' | qe-comment"
		plain
		assert_line -n 2 --regexp '^🟢 No cell moved beyond the thresholds: [0-9]+ unchanged in 9 re-executed lectures'
		refute_output --partial "slower"
		refute_output --partial "unclear"
	done
}

@test "decision: 3 + 3 runs explain themselves (never p < 0.05, 4 + 4 can), without a sweep; use, keep and correctness by the rules" {
	local r
	r="$(fixture sweep/evidence-runs.ndjson)"
	# real K=3 runs (fid-base against fid-f32), the head's times made 3x, the values left out: speed alone decides
	jq -c 'del(.values) | if .version == "head" and .kind == "cell" then .duration_s *= 3 elif .version == "head" and .kind == "notebook" then .cells_seconds *= 3 else . end' "$r" > "$BATS_TEST_TMPDIR/k3.ndjson"
	qe-cell-diff "$BATS_TEST_TMPDIR/k3.ndjson" "$BATS_TEST_TMPDIR/k3.ndjson" > "$BATS_TEST_TMPDIR/k3.diff"
	run -0 --separate-stderr qe-comment -s "$BATS_TEST_TMPDIR/k3.diff"
	assert_line --index 1 --regexp '^\*\*Decision for fid: run more, 1 more run of each version\.\*\* The run count binds: 3 \+ 3 runs can never reach p < 0\.05 \(the least p of 3 \+ 3 runs is 0\.1\); 4 \+ 4 can \(0\.029\)\.'
	# a stricter alpha needs more runs: 5 + 5 reach 0.01 (0.0079), 4 + 4 do not
	qe-cell-diff --alpha 0.01 "$BATS_TEST_TMPDIR/k3.ndjson" "$BATS_TEST_TMPDIR/k3.ndjson" > "$BATS_TEST_TMPDIR/k3a.diff"
	run -0 --separate-stderr qe-comment -s "$BATS_TEST_TMPDIR/k3a.diff"
	assert_line --index 1 --partial 'run more, 2 more runs of each version.** The run count binds: 3 + 3 runs can never reach p < 0.01'
	# the values compared as recorded: float32, so precision binds before speed and the line says what to fix
	qe-cell-diff "$r" "$r" > "$BATS_TEST_TMPDIR/f32.diff"
	run -0 --separate-stderr qe-comment -s "$BATS_TEST_TMPDIR/f32.diff"
	assert_line --index 1 --regexp '^\*\*Decision for fid: keep the old version\.\*\* Precision binds: keep float64, float32 is not measurably faster here \(.*\)\. The new version computes `x` in `float32` \(max rel [0-9.e-]+: within rtol 1e-05, yet narrowed\)(; `s` moved by as much)?: make it compute in `float64`\.'
	refute_output --partial 'use the new version'
	# results that differ: never use the new version, whatever the speed
	jq -c 'if .kind == "notebook-diff" then .fidelity.answer = "differ" | .fidelity.values[0].verdict = "differ" | .verdict = "improvement" else . end' "$BATS_TEST_TMPDIR/f32.diff" > "$BATS_TEST_TMPDIR/bug.diff"
	run -0 --separate-stderr qe-comment -s "$BATS_TEST_TMPDIR/bug.diff"
	assert_line --index 1 --regexp '^\*\*Decision for fid: keep the old version\.\*\* Correctness binds: results differ \(`x` max abs diff [0-9.e-]+, beyond rtol 1e-05, atol 1e-08\): fix the new version until its values agree, then measure its speed\.'
	# 4 + 4 runs of a clear speedup: use the new version
	jq -c 'del(.values) | if .version == "head" and .kind == "cell" then .duration_s /= 3 elif .version == "head" and .kind == "notebook" then .cells_seconds /= 3 else . end' "$r" > "$BATS_TEST_TMPDIR/f.ndjson"
	jq -c 'select(.kind == "notebook" or .kind == "cell") | select(.replicate == 3) | .replicate = 4 | .run_order += 6' "$BATS_TEST_TMPDIR/f.ndjson" > "$BATS_TEST_TMPDIR/f4.ndjson"
	cat "$BATS_TEST_TMPDIR/f4.ndjson" >> "$BATS_TEST_TMPDIR/f.ndjson"
	qe-cell-diff "$BATS_TEST_TMPDIR/f.ndjson" "$BATS_TEST_TMPDIR/f.ndjson" > "$BATS_TEST_TMPDIR/f.diff"
	run -0 --separate-stderr qe-comment -s "$BATS_TEST_TMPDIR/f.diff"
	assert_line --index 1 --regexp '^\*\*Decision for fid: use the new version\.\*\* Speed as used binds: the new version is faster \(×[0-9.]+ faster as used, p = 0\.029, 4 \+ 4 runs\)\.'
}

@test "replicate runs where nothing moved still list every cell, as used and warm (issue 40: a K=3 comment had no cell table)" {
	qe-cell-diff "$(fixture sweep/evidence-runs.ndjson)" "$(fixture sweep/evidence-runs.ndjson)" > "$T/r.diff"
	run -0 --separate-stderr qe-comment "$T/r.diff"
	assert_line --partial '0 cells slower, 0 faster, 3 unchanged in 1 re-executed lecture (replicate runs: 3 + 3)'
	assert_line '<summary>All cells: 3</summary>'
	assert_line --regexp '^\| fid \| compute \| unchanged \| .* \| same as used: .* \(×[0-9.]+, p = 1, 3 \+ 3 runs, spread ×[0-9.]+–×[0-9.]+\); source changed \|$'
	# a build's comment where nothing moved stays short
	run -0 --separate-stderr qe-comment quiet.ndjson
	assert_line --partial 'No cell moved beyond the thresholds'
	refute_output --partial 'All cells'
}

@test "results differ in a cell whose own code changed (an intended parameter change, issue 40): said in the warning and the decision" {
	local r
	r="$(fixture sweep/evidence-runs.ndjson)"
	# real K=3 runs, the values left out; the changed cell (compute) prints something else in the new version
	jq -c 'del(.values) | if .kind == "cell" and .label == "compute" then .result_sha256 = null | .output_sha256 = (if .version == "head" then "b" else "a" end * 64) else . end' "$r" > "$T/p.ndjson"
	qe-cell-diff "$T/p.ndjson" "$T/p.ndjson" > "$T/p.diff"
	run -0 --separate-stderr qe-comment -s "$T/p.diff"
	assert_line --index 1 --regexp "^\*\*Decision for fid: keep the old version\.\*\* Correctness binds: results differ in 1 cell, whose own code changed: if the change meant to change what it computes, the versions compute different things and their times do not compare; else fix the new version until its values agree, then measure its speed\."
	assert_line --index 2 "⚠️ **Results differ** in compute (fid): the timings below compare different computations. The change is in this cell's own code: if it meant to change what the cell computes (a parameter, a model), its results are to differ; else it is a bug."
	# the cell after it, whose code is the same, differs too: the change explains one of the two, not the other
	jq -c 'if .kind == "cell" and .label == "report" then .result_sha256 = null | .output_sha256 = (if .version == "head" then "d" else "c" end * 64) else . end' "$T/p.ndjson" > "$T/q.ndjson"
	qe-cell-diff "$T/q.ndjson" "$T/q.ndjson" > "$T/q.diff"
	run -0 --separate-stderr qe-comment -s "$T/q.diff"
	assert_line --index 1 --regexp "^\*\*Decision for fid: keep the old version\.\*\* Correctness binds: results differ in 2 cells: fix the new version until its values agree"
	assert_line --index 2 "⚠️ **Results differ** in compute, report (fid): the timings below compare different computations. One of these cells changed its own code: there different results may be what the change meant; in the others they are not."
	# a cell whose code is the same: no word of a change
	jq -c 'if .kind == "cell" and .label == "compute" then .output_sha256 = "e" * 64 else . end' "$T/q.ndjson" > "$T/s.ndjson"
	run -0 --separate-stderr qe-comment -s <(qe-cell-diff "$T/s.ndjson" "$T/s.ndjson")
	assert_line --index 2 "⚠️ **Results differ** in report (fid): the timings below compare different computations."
}

@test "decision: compiling is the cost only of a measured slowdown, never of one within the noise" {
	local r
	r="$(fixture sweep/evidence-runs.ndjson)"
	# real runs made 4 + 4 (run 3 again as 4), the values left out
	jq -c 'del(.values)' "$r" > "$BATS_TEST_TMPDIR/a.ndjson"
	jq -c 'select(.kind == "notebook" or .kind == "cell") | select(.replicate == 3) | .replicate = 4 | .run_order += 6' "$BATS_TEST_TMPDIR/a.ndjson" > "$BATS_TEST_TMPDIR/a4.ndjson"
	cat "$BATS_TEST_TMPDIR/a4.ndjson" >> "$BATS_TEST_TMPDIR/a.ndjson"
	# the new version 1 s slower in each run, 0.9 s of it compiling: a regression, and compiling is most of it
	jq -c 'if .kind == "cell" and .label == "compute" then .jit_compiles = 1 | .jit_functions = {"step": 1} | .jit_compile_s = (if .version == "head" then 0.9 else 0 end) | (if .version == "head" then .duration_s += 1 else . end) elif .kind == "notebook" and .version == "head" then .cells_seconds += 1 else . end' "$BATS_TEST_TMPDIR/a.ndjson" > "$BATS_TEST_TMPDIR/slow.ndjson"
	qe-cell-diff "$BATS_TEST_TMPDIR/slow.ndjson" "$BATS_TEST_TMPDIR/slow.ndjson" > "$BATS_TEST_TMPDIR/slow.diff"
	run -0 --separate-stderr qe-comment -s "$BATS_TEST_TMPDIR/slow.diff"
	assert_line --index 1 --regexp '^\*\*Decision for fid: keep the old version\.\*\* Speed as used binds: the new version is slower \(×[0-9.]+ slower as used, p = 0\.029, 4 \+ 4 runs\)\. Compiling is the cost at this size: the new version compiles for 0\.90'"${NBSP}"'s more than the old one \(0\.90'"${NBSP}"'s of its [0-9.]+'"${NBSP}"'s as used\)\.'
	# ×1.06 slower, within the threshold, with 30 ms more compiling: "most" of nothing measured is no cost
	jq -c 'if .kind == "cell" and .label == "compute" then .jit_compiles = 1 | .jit_functions = {"step": 1} | .jit_compile_s = (if .version == "head" then 0.03 else 0 end) | (if .version == "head" then .duration_s += 0.05 else . end) elif .kind == "notebook" and .version == "head" then .cells_seconds *= 1.3 else . end' "$BATS_TEST_TMPDIR/a.ndjson" > "$BATS_TEST_TMPDIR/noise.ndjson"
	qe-cell-diff "$BATS_TEST_TMPDIR/noise.ndjson" "$BATS_TEST_TMPDIR/noise.ndjson" > "$BATS_TEST_TMPDIR/noise.diff"
	run -0 --separate-stderr qe-comment -s "$BATS_TEST_TMPDIR/noise.diff"
	assert_line --index 1 --regexp '^\*\*Decision for fid: keep the old version\.\*\* Speed is no reason to change: the new version is within the threshold \(×[0-9.]+ slower as used'
	refute_output --partial 'Compiling is the cost'
}

@test "decision: a sweep alone decides at the lecture's size, names a fixed cost, the one crossover, the machine once" {
	run -0 --separate-stderr qe-comment -s <(qe-sweep "$(fixture sweep/scale.ndjson)")
	assert_line --index 1 "**Decision for scale: keep the old version.** Speed at this lecture's size binds: the new version is ×2.81 slower at n = 3000 (the lecture total's sweep). Compiling, or another fixed cost, is the cost at this size: the new version's time barely grows with n (exponent 0.09 against the old one's 0.50). Sensitivity: the size; the new version wins above n ≈ 2.9e4 (the lecture total's crossover)."
	# the machine named once, in the footer; the table points there
	assert_equal "$(grep -c 'local/debian-12/2cpu' <<< "$output")" 1
	assert_line --regexp '^<sub>Machine: local/debian-12/2cpu \(Intel\\\(R\\\) Xeon\\\(R\\\) Processor, 2 CPUs, 25 GB\)\.</sub>$'
	assert_line --partial '2 + 2 runs a size on the machine the footer names;'
	# one crossover decides: the cells' code is the same in both versions
	assert_line --partial '| `work` | n^0.50 ± 0.00 | n^0.09 ± 0.03 | same code in both versions |'
	refute_line --partial '| Scaling | `scale` `'
}
