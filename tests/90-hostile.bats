#!/usr/bin/env bats
# The catalogue of hostile and broken input (issue 8): for each case, every
# tool that reads that kind of input, the exact message and exit status, and
# the good records before and after the bad one still delivered.
# Cases already covered elsewhere are named, not repeated:
#  - qe-cache-extract.bats "bad inputs": truncated notebook, JSON that is not
#    a notebook, a directory named .ipynb, random bytes and text as global.db,
#    SQLite without nbcache, an archive without a cache, a missing operand;
#    "archives": two caches, absolute and '..' member names, a symlink member;
#    "--max-notebook"; "unreadable"; "a cached notebook missing".
#  - qe-cell-diff.bats "bad lines", qe-comment.bats "hostile", qe-stamp.bats.
# Limits (each on its tool's man page): a line longer than 64 MiB is rejected
# (--max-line); cJSON nests at most 1000 levels; numbers must be finite
# doubles; qe-cache-extract reads at most 256 MiB of a notebook or global.db
# (--max-notebook), 200,000 archive members (--max-archive-entries) and
# 16 GiB of declared member sizes (--max-archive-bytes).
# Output: a full disk or a closed stdout is 'prog: stdout: <errno text>' and
# status 2; a pipe whose reader left kills the tool with SIGPIPE (141), as
# style-by-example section 6 asks (SIGPIPE is never ignored).

load helper

S0=$(printf '%064d' 0)

setup_file() {
	F="$BATS_FILE_TMPDIR"
	export F
	# two documents, "a" before and "z" after the bad line
	{
		echo '{"kind":"notebook","schema_version":1,"document":"a","input":"cache","status":"ok","execution_seconds":2,"cells_seconds":1}'
		echo "{\"kind\":\"cell\",\"schema_version\":1,\"document\":\"a\",\"index\":0,\"source_sha256\":\"$S0\",\"status\":\"ok\",\"duration_s\":1,\"timing_source\":\"nbclient\"}"
	} > "$F/before.ndjson"
	sed 's/"document":"a"/"document":"z"/' "$F/before.ndjson" > "$F/after.ndjson"
	cat "$F/before.ndjson" "$F/after.ndjson" > "$F/clean.ndjson"
	qe-cell-diff "$F/clean.ndjson" "$F/clean.ndjson" > "$F/diff.ndjson"
	head -3 "$F/diff.ndjson" > "$F/diff-before.ndjson"
	tail -n +4 "$F/diff.ndjson" > "$F/diff-after.ndjson"
	H="$(fixture hook/cache)"
	head -31 "$H/hook.log" > "$F/log-before"
	tail -n +32 "$H/hook.log" > "$F/log-after"
	qe-cache-extract -t "$H/hook.log" "$H/.jupyter_cache" > "$F/hooked.ndjson"
	# a stamped report of one build: its first two records, then its last two
	qe-stamp -r test "$F/clean.ndjson" | jq -c '.provenance.run.build_id = "b1"' > "$F/report.ndjson"
	head -2 "$F/report.ndjson" > "$F/report-before.ndjson"
	tail -n +3 "$F/report.ndjson" > "$F/report-after.ndjson"
}

setup() {
	T="$BATS_TEST_TMPDIR"
}

# ndjson_case NAME REASON: the bad line in $T/bad (no newline needed) goes
# between good records in front of every NDJSON reader; REASON is the message
# after "file:line: ".
ndjson_case() {
	local name=$1 reason=$2 s
	# qe-stamp: line 3 of 5
	cat "$F/before.ndjson" "$T/bad" <(echo) "$F/after.ndjson" > "$T/$name.ndjson"
	run -2 --separate-stderr qe-stamp -r test "$T/$name.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-stamp: $T/$name.ndjson:3: $reason qe-stamp: 1 line rejected"
	assert_equal "$(jq -r .document <<< "$output" | tr '\n' ' ')" "a a z z "
	# qe-cell-diff: the bad line in HEAD; both documents compared
	run -2 --separate-stderr qe-cell-diff "$F/clean.ndjson" "$T/$name.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-cell-diff: $T/$name.ndjson:3: $reason qe-cell-diff: 1 line rejected"
	assert_equal "$output" "$(sed "s|\"head\":\"$F/clean.ndjson\"|\"head\":\"$T/$name.ndjson\"|" "$F/diff.ndjson")"
	# ... and in BASE
	run -2 --separate-stderr qe-cell-diff "$T/$name.ndjson" "$F/clean.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-cell-diff: $T/$name.ndjson:3: $reason qe-cell-diff: 1 line rejected"
	# qe-comment: line 4 of the diff; the comment shows both lectures
	cat "$F/diff-before.ndjson" "$T/bad" <(echo) "$F/diff-after.ndjson" > "$T/$name.diff"
	run -2 --separate-stderr qe-comment -s "$T/$name.diff"
	assert_equal "${stderr_lines[*]}" "qe-comment: $T/$name.diff:4: $reason qe-comment: 1 line rejected"
	assert_output --partial "2 lectures"
	# qe-cache-extract -t: line 32 of the hook log; every cell still timed
	cat "$F/log-before" "$T/bad" <(echo) "$F/log-after" > "$T/$name.log"
	H="$(fixture hook/cache)"
	run -2 --separate-stderr qe-cache-extract -t "$T/$name.log" "$H/.jupyter_cache"
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: $T/$name.log:32: $reason qe-cache-extract: 1 line rejected"
	assert_output "$(cat "$F/hooked.ndjson")"
	# qe-history add: line 3 of 5 of a report; the report is not added
	cat "$F/report-before.ndjson" "$T/bad" <(echo) "$F/report-after.ndjson" > "$T/$name.report"
	run -2 --separate-stderr qe-history add -d "$T/$name.db" "$T/$name.report"
	assert_equal "${stderr_lines[*]}" "qe-history: $T/$name.report:3: $reason qe-history: 1 line rejected qe-history: $T/$name.report: not added: lines were rejected"
	assert_output ""
}

@test "NDJSON: a truncated record" {
	printf '{"kind":"cell","document":"a","ind' > "$T/bad"
	ndjson_case truncated "invalid JSON at column 32"
}

@test "NDJSON: malformed JSON, trailing data, not an object" {
	printf '{"kind":"cell",,}' > "$T/bad"
	ndjson_case malformed "invalid JSON at column 17"
	printf '{"kind":"cell"} {"x":1}' > "$T/bad"
	ndjson_case trailing "trailing data after JSON value at column 17"
	printf '[1,2]' > "$T/bad"
	ndjson_case array "not a JSON object"
}

@test "NDJSON: a NUL byte (cJSON would read it as whitespace)" {
	printf '{"kind":"cell",\0"document":"a"}' > "$T/bad"
	ndjson_case nul "NUL byte at column 16"
}

@test "NDJSON: invalid UTF-8 (a lone byte, an overlong, a surrogate)" {
	printf '{"document":"\xff"}' > "$T/bad"
	ndjson_case latin1 "invalid UTF-8 at column 14"
	printf '{"document":"\xc0\xaf"}' > "$T/bad"
	ndjson_case overlong "invalid UTF-8 at column 14"
	printf '{"document":"\xed\xa0\x80"}' > "$T/bad"
	ndjson_case surrogate "invalid UTF-8 at column 14"
}

@test "NDJSON: nesting deeper than cJSON's 1000 levels" {
	{ printf '{"a":'; printf '[%.0s' $(seq 1000); printf ']%.0s' $(seq 1000); printf '}'; } > "$T/bad"
	ndjson_case deep "nesting deeper than 1000 levels at column 1005"
}

@test "NDJSON: numbers that overflow a double, NaN and Infinity" {
	printf '{"kind":"cell","duration_s":1e999}' > "$T/bad"
	ndjson_case overflow "number out of range (beyond a double's 1.8e308)"
	printf '{"x":{"y":[-1e400]}}' > "$T/bad"
	ndjson_case negoverflow "number out of range (beyond a double's 1.8e308)"
	printf '{"duration_s":NaN}' > "$T/bad"
	ndjson_case nan "invalid JSON at column 15"
	printf '{"duration_s":Infinity}' > "$T/bad"
	ndjson_case inf "invalid JSON at column 15"
}

@test "NDJSON: a 100 MB line is rejected, the next record read, memory bounded" {
	# streamed from a generator, never stored; 64 MiB is the default --max-line
	gen() {
		cat "$F/${1}before.ndjson"
		/usr/bin/python3 -c 'import sys; w = sys.stdout.buffer.write; w(b"{\"x\":\""); [w(b"y" * (1 << 20)) for _ in range(100)]; w(b"\"}\n")'
		cat "$F/${1}after.ndjson"
	}
	export -f gen
	run -2 --separate-stderr bash -c "gen | qe-stamp -r test"
	assert_equal "${stderr_lines[*]}" "qe-stamp: <stdin>:3: line longer than 67108864 bytes qe-stamp: 1 line rejected"
	assert_equal "$(jq -r .document <<< "$output" | tr '\n' ' ')" "a a z z "
	# the line is dropped as it streams past: about one 64 MiB buffer at most
	# peak RSS means nothing under valgrind or ASan (their own memory)
	if [ -z "${QE_VALGRIND:-}${QE_SANITIZED:-}" ]; then
		rss=$(gen | "$TESTS_DIR/tools/maxrss.py" qe-stamp -r test 2>/dev/null) || true
		[ "$rss" -lt 250000 ] || fail "peak RSS $rss KiB"
	fi
	run -2 --separate-stderr bash -c "gen | qe-cell-diff '$F/clean.ndjson' -"
	assert_equal "${stderr_lines[*]}" "qe-cell-diff: <stdin>:3: line longer than 67108864 bytes qe-cell-diff: 1 line rejected"
	assert_equal "$output" "$(sed 's|"head":"[^"]*"|"head":"<stdin>"|' "$F/diff.ndjson")"
	run -2 --separate-stderr bash -c "gen diff- | qe-comment -s"
	assert_equal "${stderr_lines[*]}" "qe-comment: <stdin>:4: line longer than 67108864 bytes qe-comment: 1 line rejected"
	assert_output --partial "2 lectures"
}

@test "--max-line: every NDJSON reader takes the limit; bad values are usage errors" {
	cat "$F/before.ndjson" > "$T/t.ndjson"
	printf '{"x":"%0600d"}\n' 0 >> "$T/t.ndjson"
	cat "$F/after.ndjson" >> "$T/t.ndjson"
	run -2 --separate-stderr qe-stamp --max-line 400 -r test "$T/t.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-stamp: $T/t.ndjson:3: line longer than 400 bytes qe-stamp: 1 line rejected"
	assert_equal "$(jq -r .document <<< "$output" | tr '\n' ' ')" "a a z z "
	run -2 --separate-stderr qe-cell-diff --max-line=400 "$F/clean.ndjson" "$T/t.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-cell-diff: $T/t.ndjson:3: line longer than 400 bytes qe-cell-diff: 1 line rejected"
	run -2 --separate-stderr qe-comment --max-line 400 "$T/t.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-comment: $T/t.ndjson:3: line longer than 400 bytes"
	run -2 --separate-stderr qe-cache-extract --max-line 100 -t "$(fixture hook/cache/hook.log)" "$(fixture hook/cache/.jupyter_cache)"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $(fixture hook/cache/hook.log):1: line longer than 100 bytes"
	for t in qe-stamp qe-cell-diff qe-comment qe-cache-extract; do
		run -2 --separate-stderr $t --max-line 0 x y
		assert_equal "${stderr_lines[0]}" "$t: --max-line: invalid value '0'"
		run -2 --separate-stderr $t --max-line 1.5 x y
		assert_equal "${stderr_lines[0]}" "$t: --max-line: invalid value '1.5'"
		assert_output ""
	done
}

# ---- wrong types -------------------------------------------------------------

@test "wrong types: qe-cell-diff names the field, skips the record, compares the rest" {
	for f in '"duration_s":"fast"' '"document":5' '"index":"0"' '"source_sha256":7' '"kind":5' \
		'"execution_seconds":"slow"' '"cells_seconds":[]' '"status":1' '"cache_key":{}' \
		'"origin":true' '"input":0' '"current":"no"' '"label":3' '"first_line":[]' \
		'"timing_source":2' '"output_sha256":1' '"provenance":"x"'; do
		k=${f%%:*}
		kind=cell
		case $k in '"execution_seconds"'|'"cells_seconds"'|'"cache_key"'|'"input"') kind=notebook ;; esac
		base='{"kind":"'$kind'","schema_version":1,"document":"m","index":1,"source_sha256":"'$S0'","status":"ok","duration_s":1}'
		jq -c ". + {$f}" <<< "$base" > "$T/bad"
		cat "$F/before.ndjson" "$T/bad" "$F/after.ndjson" > "$T/t.ndjson"
		run -2 --separate-stderr qe-cell-diff "$F/clean.ndjson" "$T/t.ndjson"
		case $k in
		'"kind"') want="record without 'kind'" ;;
		'"document"') want="$kind record without 'document'" ;;
		'"index"') want="cell record without a valid 'index'" ;;
		'"source_sha256"') want="cell record without a valid 'source_sha256'" ;;
		'"duration_s"') want="cell record with an invalid 'duration_s'" ;;
		'"execution_seconds"'|'"cells_seconds"') want="$kind record with an invalid ${k//\"/\'} (not a number)" ;;
		'"current"') want="$kind record with an invalid ${k//\"/\'} (not true or false)" ;;
		'"provenance"') want="$kind record with an invalid ${k//\"/\'} (not an object)" ;;
		*) want="$kind record with an invalid ${k//\"/\'} (not a string)" ;;
		esac
		assert_equal "${stderr_lines[*]}" "qe-cell-diff: $T/t.ndjson:3: $want qe-cell-diff: 1 line rejected"
		run -0 jq -sc '[.[] | select(.kind == "notebook-diff") | .document]' <<< "$output"
		assert_output '["a","z"]'
	done
}

@test "qe-stamp and qe-comment: the fields they read, with wrong types" {
	# qe-stamp reads one field of a record: 'provenance' of any type means stamped
	printf '{"kind":"cell","provenance":7}\n' > "$T/bad"
	cat "$F/before.ndjson" "$T/bad" "$F/after.ndjson" > "$T/t.ndjson"
	run -2 --separate-stderr qe-stamp -r test "$T/t.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-stamp: $T/t.ndjson:3: record already stamped qe-stamp: 1 line rejected"
	assert_equal "$(jq -r .document <<< "$output" | tr '\n' ' ')" "a a z z "
	# qe-comment: kind, document and verdict decide; other fields render as absent
	for f in '"kind":5' '"document":5' '"verdict":"fast"' '"verdict":1'; do
		jq -c ". + {$f}" <<< "$(sed -n 3p "$F/diff.ndjson")" > "$T/bad"
		cat "$F/diff-before.ndjson" "$T/bad" "$F/diff-after.ndjson" > "$T/t.diff"
		run -2 --separate-stderr qe-comment -s "$T/t.diff"
		case $f in
		'"kind"'*) want="record without 'kind'" ;;
		'"document"'*) want="notebook-diff record without 'document'" ;;
		*) want="notebook-diff record without a known 'verdict'" ;;
		esac
		assert_equal "${stderr_lines[*]}" "qe-comment: $T/t.diff:4: $want qe-comment: 1 line rejected"
		assert_output --partial "2 lectures"
	done
}

@test "empty inputs: an empty stream is no records; where records are required, status 2" {
	: > "$T/empty"
	run -0 --separate-stderr qe-stamp -r test "$T/empty"
	assert_equal "$stderr$output" ""
	run -2 --separate-stderr qe-cell-diff "$T/empty" "$F/clean.ndjson"
	assert_equal "$stderr" "qe-cell-diff: $T/empty: no baseline records"
	run -0 jq -sc '[.[] | select(.kind == "notebook-diff") | [.document, .verdict]]' <<< "$output"
	assert_output '[["a","new"],["z","new"]]'
	run -2 --separate-stderr qe-comment "$T/empty"
	assert_equal "$stderr" "qe-comment: no qe-cell-diff records in the input"
	assert_output --partial "No timing comparison available"
	mkdir "$T/db"
	: > "$T/db/global.db"
	run -2 --separate-stderr qe-cache-extract "$T/db"
	assert_equal "$stderr" "qe-cache-extract: $T/db/global.db: not a jupyter-cache database (no table 'nbcache')"
	assert_output ""
	# (an empty notebook: see "notebooks" below)
}

# ---- notebooks ---------------------------------------------------------------

@test "notebooks: empty, not UTF-8, too deep, a number out of range, trailing data, wrong types" {
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	: > "$T/empty.ipynb"
	printf '{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"outputs":[],"execution_count":1,"source":"x = \xff"}]}' > "$T/latin1.ipynb"
	{ printf '{"nbformat":4,"cells":[],"metadata":'; printf '[%.0s' $(seq 1001); printf ']%.0s' $(seq 1001); printf '}'; } > "$T/deep.ipynb"
	printf '{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"outputs":[],"execution_count":1e999,"source":"x"}]}' > "$T/inf.ipynb"
	printf '{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[]}\n{"nbformat":4}' > "$T/two.ipynb"
	printf '{"nbformat":4,"cells":{}}' > "$T/cellsobj.ipynb"
	printf '[]' > "$T/array.ipynb"
	printf '{"nbformat":"4","cells":[]}' > "$T/nbformat.ipynb"
	printf '{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"outputs":[],"execution_count":1,"source":7}]}' > "$T/source.ipynb"
	run -2 --separate-stderr qe-cache-extract "$good" "$T/empty.ipynb" "$T/latin1.ipynb" "$T/deep.ipynb" \
		"$T/inf.ipynb" "$T/two.ipynb" "$T/cellsobj.ipynb" "$T/array.ipynb" "$T/nbformat.ipynb" "$T/source.ipynb" "$good"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $T/empty.ipynb: not a notebook: empty file"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: $T/latin1.ipynb: not a notebook: invalid UTF-8 at byte 138"
	assert_equal "${stderr_lines[2]}" "qe-cache-extract: $T/deep.ipynb:1: nesting deeper than 1000 levels at column 1036"
	assert_equal "${stderr_lines[3]}" "qe-cache-extract: $T/inf.ipynb: not a notebook: number out of range (beyond a double's 1.8e308)"
	assert_equal "${stderr_lines[4]}" "qe-cache-extract: $T/two.ipynb:2: trailing data after the notebook at column 1"
	assert_equal "${stderr_lines[5]}" "qe-cache-extract: $T/cellsobj.ipynb: not a notebook: 'cells' is not a list"
	assert_equal "${stderr_lines[6]}" "qe-cache-extract: $T/array.ipynb: not a notebook: not a JSON object"
	assert_equal "${stderr_lines[7]}" "qe-cache-extract: $T/nbformat.ipynb: not a notebook: 'nbformat' is not a number"
	assert_equal "${stderr_lines[8]}" "qe-cache-extract: $T/source.ipynb: code cell 0: 'source' is not a string or a list of strings"
	assert_equal "${#stderr_lines[@]}" 9
	# the good notebook before and after, and the cell with a bad source still counted
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document | split("/") | last]' <<< "$output"
	assert_output '["intro","source","intro"]'
}

@test "notebooks: one strict reader: a leading zero, '1.', a control byte between tokens and a bad \\u escape are invalid JSON; a BOM is passed" {
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	nb='{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"outputs":[],"execution_count":%s,"source":"x"}]%s}'
	printf "$nb" 01 '' > "$T/zero.ipynb"
	printf "$nb" 1. '' > "$T/point.ipynb"
	printf "$nb" 1 $',\v"x":1' > "$T/vt.ipynb"
	{ printf '\xef\xbb\xbf'; printf "$nb" 1 ''; } > "$T/bom.ipynb"
	# an invalid \u escape: cJSON read it as a NUL, so the source was cut there ("x = 1 #"), silently
	printf '{"nbformat":4,"cells":[{"cell_type":"code","metadata":{},"outputs":[],"source":"x = 1 # \\u00zz tail"}]}' > "$T/esc.ipynb"
	run -2 --separate-stderr qe-cache-extract "$good" "$T/zero.ipynb" "$T/point.ipynb" "$T/vt.ipynb" "$T/bom.ipynb" "$T/esc.ipynb" "$good"
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: $T/zero.ipynb:1: invalid JSON at column 123 qe-cache-extract: $T/point.ipynb:1: invalid JSON at column 124 qe-cache-extract: $T/vt.ipynb:1: invalid JSON at column 140 qe-cache-extract: $T/esc.ipynb:1: invalid JSON at column 89"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document | split("/") | last]' <<< "$output"
	assert_output '["intro","bom","intro"]'
}

# ---- archives ----------------------------------------------------------------

@test "archives: a zip bomb costs --max-notebook at most, or --max-archive-bytes before any of it" {
	/usr/bin/python3 - "$T/bomb.zip" "$(shared jupyter-cache/base/.jupyter_cache/global.db)" <<-'PY'
	import sys, zipfile
	with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
	    z.write(sys.argv[2], ".jupyter_cache/global.db")
	    with z.open(".jupyter_cache/executed/c290f15f509d592015f141782d681772/base.ipynb", "w", force_zip64=True) as f:
	        for _ in range(64):
	            f.write(b" " * (1 << 20))
	PY
	[ "$(stat -c %s "$T/bomb.zip")" -lt 200000 ]
	run -2 --separate-stderr qe-cache-extract --max-notebook 1048576 "$T/bomb.zip"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $T/bomb.zip:.jupyter_cache/executed/c290f15f509d592015f141782d681772/base.ipynb: member larger than 1048576 bytes (see --max-notebook)"
	# the other five notebooks are not in this archive: each is named
	assert_equal "${#stderr_lines[@]}" 6
	run -0 jq -sc '[.[] | select(.kind == "notebook") | [.document, .status]]' <<< "$output"
	assert_output '[["broken","failed"]]'
	# peak RSS means nothing under valgrind or ASan (their own memory)
	if [ -z "${QE_VALGRIND:-}${QE_SANITIZED:-}" ]; then
		rss=$("$TESTS_DIR/tools/maxrss.py" qe-cache-extract --max-notebook 1048576 "$T/bomb.zip" 2>/dev/null) || true
		[ "$rss" -lt 150000 ] || fail "peak RSS $rss KiB"
	fi
	run -2 --separate-stderr qe-cache-extract --max-archive-bytes 10000000 "$T/bomb.zip"
	assert_equal "$stderr" "qe-cache-extract: $T/bomb.zip: members of more than 10000000 bytes in all (see --max-archive-bytes)"
	assert_output ""
}

@test "archives: 250,000 members stop at --max-archive-entries, in bounded time and memory" {
	/usr/bin/python3 "$(fixture hostile/manyzip.py)" "$T/many.zip" "$(shared jupyter-cache/base/.jupyter_cache/global.db)" 250000
	run -2 --separate-stderr qe-cache-extract "$T/many.zip"
	assert_equal "$stderr" "qe-cache-extract: $T/many.zip: more than 200000 members (see --max-archive-entries)"
	assert_output ""
	# peak RSS means nothing under valgrind or ASan (their own memory)
	if [ -z "${QE_VALGRIND:-}${QE_SANITIZED:-}" ]; then
		rss=$("$TESTS_DIR/tools/maxrss.py" qe-cache-extract "$T/many.zip" 2>/dev/null) || true
		[ "$rss" -lt 200000 ] || fail "peak RSS $rss KiB"
	fi
	# allowed more, it reads them all: the cache's notebooks are simply absent
	run -2 --separate-stderr qe-cache-extract --max-archive-entries 300000 "$T/many.zip"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $T/many.zip: member '.jupyter_cache/executed/7825996c0c6de3e8ef14fe96abe156a1/base.ipynb' missing"
	assert_equal "${#stderr_lines[@]}" 6
}

@test "archives: absolute, '..', symlinked and hard-linked members: nothing written, nothing followed" {
	mkdir "$T/a"
	/usr/bin/python3 - "$T/a" "$(shared jupyter-cache/base/.jupyter_cache)" <<-'PY'
	import os, sys, tarfile, zipfile
	T, B = sys.argv[1], sys.argv[2]
	hk = "c290f15f509d592015f141782d681772"
	with tarfile.open(T + "/links.tar", "w") as t:
	    t.add(B + "/global.db", arcname=".jupyter_cache/global.db")
	    l = tarfile.TarInfo(".jupyter_cache/executed/%s/base.ipynb" % hk)
	    l.type = tarfile.SYMTYPE; l.linkname = "/etc/passwd"; t.addfile(l)
	    for d in sorted(os.listdir(B + "/executed")):
	        if d != hk:
	            t.add(B + "/executed/" + d, arcname=".jupyter_cache/executed/" + d)
	    h = tarfile.TarInfo("x/hard"); h.type = tarfile.LNKTYPE; h.linkname = "/etc/shadow"; t.addfile(h)
	    h = tarfile.TarInfo("../../escape"); h.type = tarfile.LNKTYPE; h.linkname = ".jupyter_cache/global.db"; t.addfile(h)
	with zipfile.ZipFile(T + "/names.zip", "w") as z:
	    z.write(B + "/global.db", ".jupyter_cache/global.db")
	    for d in sorted(os.listdir(B + "/executed")):
	        z.write(B + "/executed/%s/base.ipynb" % d, ".jupyter_cache/executed/%s/base.ipynb" % d)
	    for name in ("/etc/evil", "../evil", "a/../../evil", "./../evil2"):
	        z.writestr(name, "x")
	PY
	cd "$T/a"
	run -2 --separate-stderr qe-cache-extract links.tar
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: links.tar: member '../../escape': absolute or '..' name, skipped"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: links.tar: member '.jupyter_cache/executed/c290f15f509d592015f141782d681772/base.ipynb' missing"
	assert_equal "${#stderr_lines[@]}" 2
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' <<< "$output"
	assert_output '["broken","dynamics/markov","errors_allowed","images","numba_demo","stale_timing"]'
	run -2 --separate-stderr qe-cache-extract names.zip
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: names.zip: member '/etc/evil': absolute or '..' name, skipped qe-cache-extract: names.zip: member '../evil': absolute or '..' name, skipped qe-cache-extract: names.zip: member 'a/../../evil': absolute or '..' name, skipped qe-cache-extract: names.zip: member './../evil2': absolute or '..' name, skipped"
	assert_equal "$(jq -s 'length' <<< "$output")" 31
	# never extracted: nothing new beside the archives
	assert_equal "$(find "$T/a" -newer "$T/a/names.zip")" ""
	[ ! -e /etc/evil ] && [ ! -e "$T/evil" ] && [ ! -e "$T/../escape" ]
}

# ---- SQLite ------------------------------------------------------------------

@test "global.db: encrypted-looking, missing columns, data not JSON, created not a date" {
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	mkdir -p "$T/enc" "$T/cols"
	{ printf 'SQLite format 3\0'; head -c 8176 /dev/urandom; } > "$T/enc/global.db"
	sqlite3 "$T/cols/global.db" "CREATE TABLE nbcache (pk INTEGER PRIMARY KEY, uri VARCHAR(255)); INSERT INTO nbcache VALUES (1, '/b/x.md');"
	for v in data created; do cp -r "$B" "$T/$v"; chmod -R u+w "$T/$v"; done
	sqlite3 "$T/data/global.db" "UPDATE nbcache SET data = 'not json {' WHERE pk = 4; UPDATE nbcache SET data = '{\"execution_seconds\": \"slow\"}' WHERE pk = 5"
	sqlite3 "$T/created/global.db" "UPDATE nbcache SET created = 'yesterday' WHERE pk = 4"
	run -2 --separate-stderr qe-cache-extract "$T/enc" "$T/cols" "$T/data" "$T/created"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $T/enc/global.db: file is not a database"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: $T/cols/global.db: unrecognised 'nbcache' table: no such column: hashkey"
	assert_equal "${stderr_lines[2]}" "qe-cache-extract: $T/data/global.db: nbcache row 4: 'data' is not a JSON object"
	assert_equal "${stderr_lines[3]}" "qe-cache-extract: $T/data/global.db: nbcache row 5: bad 'execution_seconds' in 'data'"
	assert_equal "${stderr_lines[4]}" "qe-cache-extract: $T/created/global.db: nbcache row 4: bad 'created' 'yesterday'"
	assert_equal "${#stderr_lines[@]}" 5
	# every other notebook of both caches; the bad rows' records with nulls
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -sc '[.[] | select(.kind == "notebook" and .document == "intro") | [.execution_seconds, .created]]' <<< "$output"
	assert_output '[[null,"2026-11-29T14:31:59.859127Z"],[1.8161358629999995,null]]'
	run -0 jq -s '[.[] | select(.kind == "notebook")] | length' "$T/out"
	assert_output 14
}

# ---- the capture hook's log --------------------------------------------------

@test "hook log: two writers' lines interleaved mid-line: that line rejected, the rest joined" {
	H="$(fixture hook/cache)"
	# a writer's line cut in two by another writer's whole line
	line=$(sed -n 20p "$H/hook.log")
	{ head -19 "$H/hook.log"; printf '%s' "${line:0:40}"; sed -n 21p "$H/hook.log"; printf '%s\n' "${line:40}"; tail -n +22 "$H/hook.log"; } > "$T/inter.log"
	run -2 --separate-stderr qe-cache-extract -t "$T/inter.log" "$H/.jupyter_cache"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $T/inter.log:20: invalid JSON at column 43"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: $T/inter.log:21: trailing data after JSON value at column 17"
	assert_equal "${stderr_lines[2]}" "qe-cache-extract: 2 lines rejected"
	# lost: the 'end' of cell 2 and the 'start' of cell 3 of one run: cell 2
	# has no hook timing, cell 3 still has its 'end'; every other cell keeps its own
	run -0 jq -s '[.[] | select(.kind == "cell" and .timing_source == "hook")] | length' <<< "$output"
	assert_output "$(( $(jq -s '[.[] | select(.kind == "cell" and .timing_source == "hook")] | length' "$F/hooked.ndjson") - 1 ))"
}

# ---- files that cannot be read, output that cannot be written ---------------

@test "unreadable files and folders: every NDJSON tool reports them and reads the rest" {
	d=$(mktemp -d /tmp/qe-hostile.XXXXXX)
	chmod 755 "$d"
	cp "$F/before.ndjson" "$d/good.ndjson"
	cp "$F/after.ndjson" "$d/secret.ndjson"
	cp "$F/diff.ndjson" "$d/diff.ndjson"
	cp "$F/diff.ndjson" "$d/secret.diff"
	mkdir "$d/locked" "$d/bin"
	chmod 000 "$d/secret.ndjson" "$d/secret.diff" "$d/locked"
	as_user=()
	if [ "$(id -u)" = 0 ]; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	for t in qe-stamp qe-cell-diff qe-comment; do cp "$(command -v $t)" "$d/bin/"; done
	run -2 --separate-stderr "${as_user[@]}" "$d/bin/qe-stamp" -r test "$d/secret.ndjson" "$d/locked" "$d/good.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-stamp: $d/secret.ndjson: Permission denied qe-stamp: $d/locked: Permission denied"
	assert_equal "$(jq -r .document <<< "$output" | tr '\n' ' ')" "a a "
	run -2 --separate-stderr "${as_user[@]}" "$d/bin/qe-cell-diff" "$d/secret.ndjson" "$d/good.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-cell-diff: $d/secret.ndjson: Permission denied qe-cell-diff: $d/secret.ndjson: no baseline records"
	run -0 jq -sc '[.[] | select(.kind == "notebook-diff") | [.document, .verdict]]' <<< "$output"
	assert_output '[["a","new"]]'
	run -2 --separate-stderr "${as_user[@]}" "$d/bin/qe-comment" -s "$d/secret.diff" "$d/locked" "$d/diff.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-comment: $d/secret.diff: Permission denied qe-comment: $d/locked: Permission denied"
	assert_output --partial "2 lectures"
	# a folder that can be opened is not a stream
	run -2 --separate-stderr qe-stamp -r test "$T" "$F/before.ndjson"
	assert_equal "${stderr_lines[*]}" "qe-stamp: $T: Is a directory"
	chmod -R u+rwX "$d"
	rm -rf "$d"
}

# run_all CMD: the four tools, each given input it reads
run_all() {
	local B
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	"$@" "qe-cache-extract '$B'"
	"$@" "qe-stamp -r test '$F/clean.ndjson'"
	"$@" "qe-cell-diff '$F/clean.ndjson' '$F/clean.ndjson'"
	"$@" "qe-comment '$F/diff.ndjson'"
}

full_disk() {
	run -2 --separate-stderr bash -c "$1 > /dev/full"
	assert_equal "$stderr" "${1%% *}: stdout: No space left on device"
}

closed_stdout() {
	run -2 --separate-stderr bash -c "exec 1>&-; $1"
	assert_equal "$stderr" "${1%% *}: stdout: Bad file descriptor"
}

# the reader leaves before the tool writes: death by SIGPIPE (141), silently,
# as for any filter; a pipeline's status then says so
gone_reader() {
	run -0 --separate-stderr bash -c "(sleep 0.3; exec $1) | true; echo \${PIPESTATUS[0]}"
	assert_output 141
	assert_equal "$stderr" ""
}

@test "a full disk (/dev/full): every tool says so and exits 2" {
	run_all full_disk
}

@test "a closed stdout: every tool says so and exits 2" {
	run_all closed_stdout
}

@test "a pipe whose reader left: every tool dies by SIGPIPE, as documented" {
	run_all gone_reader
}

# ---- round two (issue 15) ----------------------------------------------------
# No hang, no silent change of data, every output line valid UTF-8 JSON.

@test "hangs: a FIFO as a notebook, as global.db, as an archive is refused at once; the rest is read" {
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	cd "$T"
	cp "$good" a.ipynb
	cp "$good" z.ipynb
	mkfifo f.ipynb f.zip
	mkdir c
	mkfifo c/global.db
	# no writer ever opens them: a blocking open would wait forever
	run -2 --separate-stderr timeout 10 qe-cache-extract a.ipynb f.ipynb c f.zip z.ipynb
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: f.ipynb: not a regular file qe-cache-extract: c/global.db: not a jupyter-cache database (not a regular file) qe-cache-extract: f.zip: not a regular file"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' <<< "$output"
	assert_output '["a","z"]'
	# a folder named global.db was "disk I/O error"
	mkdir -p d/global.db
	run -2 --separate-stderr qe-cache-extract d
	assert_equal "$stderr" "qe-cache-extract: d/global.db: not a jupyter-cache database (not a regular file)"
}

@test "hangs: symbolic link loops in a folder of notebooks: one message per loop, each notebook once" {
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	mkdir -p "$T/book/a/b"
	cp "$good" "$T/book/a/x.ipynb"
	cp "$good" "$T/book/a/b/y.ipynb"
	ln -s . "$T/book/loop"
	ln -s .. "$T/book/a/b/up"
	ln -s "$T/book" "$T/book/a/top"
	run -2 --separate-stderr timeout 10 qe-cache-extract "$T/book"
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: $T/book/a/b/up: symbolic link loop (a folder that holds it), not followed qe-cache-extract: $T/book/a/top: symbolic link loop (a folder that holds it), not followed qe-cache-extract: $T/book/loop: symbolic link loop (a folder that holds it), not followed"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' <<< "$output"
	assert_output '["b/y","x"]'
}

@test "hangs: a 12 GiB member of a tar.gz: sparse, skipped cheaply; stored, the reading stops at its header" {
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	mkdir "$T/w"
	cp -r "$B" "$T/w/.jupyter_cache"
	truncate -s 12G "$T/w/big.bin"
	tar -C "$T/w" -czSf "$T/sparse.tar.gz" .jupyter_cache big.bin
	rm "$T/w/big.bin"
	[ "$(stat -c %s "$T/sparse.tar.gz")" -lt 200000 ]
	# skipped, not expanded: expanding the member's 12 GiB of zeros takes about
	# 15 s here (tar -xzO at 0.8 GB/s), skipping it 0.1 s; 5 s keeps a margin
	# both ways under ASan and a loaded machine
	t0=$(date +%s%N)
	run -0 --separate-stderr qe-cache-extract "$T/sparse.tar.gz"
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 5000 ]
	assert_equal "$(jq -s length <<< "$output")" 31
	# a member stored whole (8 GiB declared; only its header and 1 MiB follow):
	# passing it means decompressing it, so the reading stops at once
	/usr/bin/python3 - "$T/stored.tar.gz" "$B/global.db" <<-'PY'
	import gzip, sys, tarfile
	db = open(sys.argv[2], "rb").read()
	t = tarfile.TarInfo(".jupyter_cache/global.db"); t.size = len(db)
	big = tarfile.TarInfo("big.bin"); big.size = 8 << 30
	raw = t.tobuf(format=tarfile.GNU_FORMAT) + db + b"\0" * (-len(db) % 512)
	raw += big.tobuf(format=tarfile.GNU_FORMAT) + b"\0" * (1 << 20)
	open(sys.argv[1], "wb").write(gzip.compress(raw))
	PY
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	t0=$(date +%s%N)
	run -2 --separate-stderr qe-cache-extract "$B" "$T/stored.tar.gz" "$good"
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 5000 ]
	assert_equal "$stderr" "qe-cache-extract: $T/stored.tar.gz: member 'big.bin' of 8589934592 bytes: larger than 268435456 bytes (see --max-notebook), and passing it would mean decompressing it; the archive's reading stops here"
	# the cache before it, the archive's own global.db read before the stop
	# (its failed lecture; its notebooks, past the stop, are not said missing)
	# and the notebook after it
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' <<< "$output"
	assert_output '["broken","dynamics/markov","errors_allowed","images","intro","numba_demo","stale_timing","broken","intro"]'
}

@test "archives: a reading stopped at an oversized member still gives the records read before it, -j 1 as -j 2" {
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	# global.db, two notebooks, a 2 MiB member, the other four notebooks
	/usr/bin/python3 - "$T/cut" "$B" <<-'PY'
	import io, os, sys, tarfile
	out, B = sys.argv[1], sys.argv[2]
	before = ["7825996c0c6de3e8ef14fe96abe156a1", "1ee7b022e8ce0ce95147b4e508d78600"]
	after = sorted(set(os.listdir(B + "/executed")) - set(before))
	for mode, ext in (("w:gz", ".tar.gz"), ("w", ".tar")):
	    with tarfile.open(out + ext, mode) as t:
	        t.add(B + "/global.db", arcname=".jupyter_cache/global.db")
	        for hk in before:
	            t.add("%s/executed/%s/base.ipynb" % (B, hk), arcname=".jupyter_cache/executed/%s/base.ipynb" % hk)
	        big = tarfile.TarInfo("_build/big.bin"); big.size = 2 << 20
	        t.addfile(big, io.BytesIO(b"\0" * big.size))
	        for hk in after:
	            t.add("%s/executed/%s/base.ipynb" % (B, hk), arcname=".jupyter_cache/executed/%s/base.ipynb" % hk)
	PY
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	# today's records were none: the two notebooks and the failure read before the stop were dropped
	run -2 --separate-stderr qe-cache-extract --max-notebook 1048576 "$T/cut.tar.gz" "$good"
	assert_equal "$stderr" "qe-cache-extract: $T/cut.tar.gz: member '_build/big.bin' of 2097152 bytes: larger than 1048576 bytes (see --max-notebook), and passing it would mean decompressing it; the archive's reading stops here"
	printf '%s\n' "$output" > "$T/j1"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | [.document, .status, .code_cells]]' "$T/j1"
	assert_output '[["broken","failed",null],["dynamics/markov","ok",3],["errors_allowed","ok",3],["intro","ok",7]]'
	# the cells of the notebooks read are all there, as from the whole cache
	assert_equal "$(jq -c 'select(.kind == "cell" and (.document == "dynamics/markov" or .document == "errors_allowed")) | del(.input)' "$T/j1")" \
		"$(qe-cache-extract "$B" | jq -c 'select(.kind == "cell" and (.document == "dynamics/markov" or .document == "errors_allowed")) | del(.input)')"
	run -2 --separate-stderr qe-cache-extract -j 2 --max-notebook 1048576 "$T/cut.tar.gz" "$good"
	assert_equal "$output" "$(cat "$T/j1")"
	# plain tar: passing the member is a seek, so every notebook is read
	run -0 --separate-stderr qe-cache-extract --max-notebook 1048576 "$T/cut.tar"
	assert_equal "$stderr" ""
	assert_equal "$(jq -s '[.[] | select(.kind == "notebook")] | length' <<< "$output")" 7
}

@test "NUL: \\u0000 in a record's string (kind, label, document) is rejected by every NDJSON reader (qe(7))" {
	printf '{"kind":"notebook\\u0000","document":"a"}' > "$T/bad"
	ndjson_case nulkind 'NUL (\u0000) in a string at column 18'
	printf '{"kind":"cell","document":"a","label":"a\\u0000b"}' > "$T/bad"
	ndjson_case nullabel 'NUL (\u0000) in a string at column 41'
}

@test "BOM: a byte order mark opening a stream is skipped by every NDJSON reader, never copied through (qe(7))" {
	local bom=$'\xef\xbb\xbf'
	# qe-stamp: the records as without it, no BOM in front
	{ printf '%s' "$bom"; cat "$F/clean.ndjson"; } > "$T/bom.ndjson"
	run -0 --separate-stderr qe-stamp -r test -t 2026-01-01T00:00:00Z "$T/bom.ndjson"
	assert_equal "$stderr" ""
	[ "${output:0:1}" = "{" ]
	assert_equal "$(sed 's/"stamped_at":"[^"]*"//' <<< "$output")" \
	    "$(qe-stamp -r test -t 2026-01-01T00:00:00Z "$F/clean.ndjson" | sed 's/"stamped_at":"[^"]*"//')"
	# columns count the line's bytes as read, the BOM too
	printf '%s{"kind":01}\n' "$bom" > "$T/bom-bad.ndjson"
	run -2 --separate-stderr qe-stamp -r test "$T/bom-bad.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-stamp: $T/bom-bad.ndjson:1: invalid JSON at column 13"
	# qe-cell-diff: in BASE and in HEAD, what the clean streams give
	run -0 --separate-stderr qe-cell-diff "$T/bom.ndjson" "$T/bom.ndjson"
	assert_equal "$stderr" ""
	assert_equal "$output" "$(qe-cell-diff "$F/clean.ndjson" "$F/clean.ndjson" | sed "s|$F/clean.ndjson|$T/bom.ndjson|g")"
	# ... and with a jq expression (records read through their trees)
	run -0 --separate-stderr qe-cell-diff -f true "$T/bom.ndjson" "$F/clean.ndjson"
	assert_equal "$stderr" ""
	# qe-comment: a diff stream with a BOM
	{ printf '%s' "$bom"; cat "$F/diff.ndjson"; } > "$T/bom.diff"
	run -0 --separate-stderr qe-comment -s "$T/bom.diff"
	assert_equal "$stderr" ""
	assert_output "$(qe-comment -s "$F/diff.ndjson")"
	# qe-cache-extract -t: a hook log with a BOM, every cell still timed
	{ printf '%s' "$bom"; cat "$F/log-before" "$F/log-after"; } > "$T/bom.log"
	run -0 --separate-stderr qe-cache-extract -t "$T/bom.log" "$(fixture hook/cache)/.jupyter_cache"
	assert_equal "$stderr" ""
	assert_output "$(cat "$F/hooked.ndjson")"
	# qe-history add: the report added, its content digest that of the lines without the BOM
	{ printf '%s' "$bom"; cat "$F/report.ndjson"; } > "$T/bom.report"
	run -0 --separate-stderr qe-history add -d "$T/h.db" "$T/bom.report"
	assert_equal "$stderr" ""
	run -0 jq -r '.result + " " + .content_sha256' <<< "$output"
	assert_output "added $(sha256sum < "$F/report.ndjson" | cut -c1-64)"
	run -0 qe-history add -d "$T/h.db" "$F/report.ndjson"
	run -0 jq -r .result <<< "$output"
	assert_output "present"
}

@test "BOM: one at the start of a later line is refused by every NDJSON reader" {
	printf '\xef\xbb\xbf{"kind":"cell","document":"a"}' > "$T/bad"
	ndjson_case bomlater 'byte order mark (U+FEFF) after the first line at column 1'
}

@test "accepted no more: raw TAB, CR and ESC inside JSON strings are rejected by every NDJSON reader" {
	printf '{"kind":"cell","label":"a\tb"}' > "$T/bad"
	ndjson_case tab "control character U+0009 in a string at column 26"
	printf '{"kind":"cell","label":"a\rb"}' > "$T/bad"
	ndjson_case cr "control character U+000D in a string at column 26"
	printf '{"kind":"cell","label":"a\033[31mb"}' > "$T/bad"
	ndjson_case esc "control character U+001B in a string at column 26"
	# between members a TAB is blank space, as JSON says
	printf '{"kind":"cell",\t"document":"a"}\n' > "$T/ok.ndjson"
	run -0 --separate-stderr qe-stamp -r test "$T/ok.ndjson"
	assert_equal "$stderr" ""
}

@test "NUL in SQLite text: a hashkey, a created and a data value holding NUL are reported, never cut" {
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	cp -r "$B" "$T/n"
	chmod -R u+w "$T/n"
	# 'KEY\0/../x' was read as KEY: another row's notebook printed
	sqlite3 "$T/n/global.db" "UPDATE nbcache SET hashkey = CAST(hashkey || X'00' || '/../x' AS TEXT) WHERE pk = 4;
		UPDATE nbcache SET created = CAST(created || X'00' || 'junk' AS TEXT) WHERE pk = 5;
		UPDATE nbcache SET data = CAST('{\"execution_seconds\": 1' || X'00' || '}' AS TEXT) WHERE pk = 3"
	run -2 --separate-stderr qe-cache-extract "$T/n"
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: $T/n/global.db: nbcache row 3: 'data' holds a NUL byte qe-cache-extract: $T/n/global.db: nbcache row 4: 'hashkey' holds a NUL byte qe-cache-extract: $T/n/global.db: nbcache row 5: 'created' holds a NUL byte"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | [.document, .cache_pk, .created != null, .execution_seconds != null]]' <<< "$output"
	assert_output '[["broken",null,false,false],["dynamics/markov",1,true,true],["errors_allowed",2,true,true],["images",3,true,false],["numba_demo",5,false,true],["stale_timing",6,true,true]]'
}

@test "NUL in SQLite text: a uri or a traceback holding NUL keeps its record, each NUL written as U+FFFD, and said" {
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	cp -r "$B" "$T/n"
	chmod -R u+w "$T/n"
	# the failing lecture vanished from the comment: its whole row was refused
	# (the uri's 'md\ufffdx' is its extension: still "broken")
	sqlite3 "$T/n/global.db" "UPDATE nbproject SET traceback = CAST(traceback || X'00' || 'tail' AS TEXT) WHERE pk = 1;
		UPDATE nbproject SET uri = CAST(uri || X'00' || 'x' AS TEXT) WHERE pk = 1;
		UPDATE nbcache SET uri = CAST('/tmp/lecture-demo/lectures/int' || X'00' || 'ro.md' AS TEXT) WHERE pk = 4"
	run -2 --separate-stderr qe-cache-extract "$T/n"
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: $T/n/global.db: nbcache row 4: 'uri' holds a NUL byte: each written as U+FFFD qe-cache-extract: $T/n/global.db: project row 1: 'uri' holds a NUL byte: each written as U+FFFD qe-cache-extract: $T/n/global.db: project row 1: 'traceback' holds a NUL byte: each written as U+FFFD"
	printf '%s\n' "$output" > "$T/out"
	run -0 "$TESTS_DIR/tools/jsonlines.py" "$T/out"
	run -0 jq -sac '[.[] | select(.kind == "notebook") | [.document, .status, .error]]' "$T/out"
	assert_output '[["broken","failed","ValueError: deliberate failure for the fixture"],["dynamics/markov","ok",null],["errors_allowed","ok",null],["images","ok",null],["int\ufffdro","ok",null],["numba_demo","ok",null],["stale_timing","ok",null]]'
	# every cell record of the renamed lecture is there, as in the clean cache
	assert_equal "$(jq -s '[.[] | select(.kind == "cell" and .document == "int\ufffdro")] | length' "$T/out")" \
		"$(qe-cache-extract "$B" | jq -s '[.[] | select(.kind == "cell" and .document == "intro")] | length')"
	# a NUL in the traceback's last line: the error is that line, NUL written as U+FFFD
	cp -r "$B" "$T/t"
	chmod -R u+w "$T/t"
	sqlite3 "$T/t/global.db" "UPDATE nbproject SET traceback = CAST('Traceback:' || X'0a' || 'KeyError: a' || X'00' || 'b' || X'0a' AS TEXT) WHERE pk = 1"
	run -2 --separate-stderr qe-cache-extract "$T/t"
	assert_equal "$stderr" "qe-cache-extract: $T/t/global.db: project row 1: 'traceback' holds a NUL byte: each written as U+FFFD"
	run -0 jq -ac 'select(.kind == "notebook" and .status == "failed") | [.document, .error]' <<< "$output"
	assert_output '["broken","KeyError: a\ufffdb"]'
}

@test "NUL and control characters in a notebook: \\u0000 read as U+FFFD and said; a raw TAB refused" {
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	printf '{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{"name":"a\\u0000b"},"outputs":[],"execution_count":1,"source":"x = 1\\u0000y = 2"}]}' > "$T/nul.ipynb"
	printf '{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"outputs":[],"execution_count":1,"source":"x = 1\ty"}]}' > "$T/tab.ipynb"
	run -2 --separate-stderr qe-cache-extract "$good" "$T/nul.ipynb" "$T/tab.ipynb" "$good"
	printf '%s\n' "$output" > "$T/out"
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: $T/nul.ipynb: \\u0000 in 2 strings: read as U+FFFD qe-cache-extract: $T/tab.ipynb: not a notebook: control character U+0009 in a string at byte 139"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document | split("/") | last]' <<< "$output"
	assert_output '["intro","nul","intro"]'
	# the label and the source whole, not cut at the NUL (was "a" and "x = 1")
	run -0 jq -ac 'select(.kind == "cell" and (.document | endswith("nul"))) | [.label, .first_line]' "$T/out"
	assert_output '["a\ufffdb","x = 1\ufffdy = 2"]'
}

@test "UTF-8: file names and stored tracebacks that are not UTF-8 are written with U+FFFD, and said" {
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	mkdir "$T/u"
	cp "$good" "$T/u/a.ipynb"
	cp "$good" "$T/u/bad"$'\xff'".ipynb"
	cp "$good" "$T/u/over"$'\xc0\xaf'".ipynb"
	cp "$good" "$T/u/z.ipynb"
	run -2 --separate-stderr qe-cache-extract "$T/u"
	assert_equal "${stderr_lines[*]}" "qe-cache-extract: $T/u/bad"$'\xff'".ipynb: text not UTF-8 (a file name or stored text): each bad byte written as U+FFFD qe-cache-extract: $T/u/over"$'\xc0\xaf'".ipynb: text not UTF-8 (a file name or stored text): each bad byte written as U+FFFD"
	printf '%s\n' "$output" > "$T/out"
	run -0 "$TESTS_DIR/tools/jsonlines.py" "$T/out"
	run -0 jq -sac '[.[] | select(.kind == "notebook") | .document]' "$T/out"
	assert_output '["a","bad\ufffd","over\ufffd\ufffd","z"]'
	# traceback bytes ff fe c0 af from the database
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	cp -r "$B" "$T/tb"
	chmod -R u+w "$T/tb"
	sqlite3 "$T/tb/global.db" "UPDATE nbproject SET traceback = CAST(X'547970654572726f723a20fffec0af0a' AS TEXT) WHERE pk = 1"
	run -2 --separate-stderr qe-cache-extract "$T/tb"
	assert_equal "$stderr" "qe-cache-extract: /tmp/lecture-demo/lectures/broken.md: text not UTF-8 (a file name or stored text): each bad byte written as U+FFFD"
	printf '%s\n' "$output" > "$T/out"
	run -0 "$TESTS_DIR/tools/jsonlines.py" "$T/out"
	run -0 jq -ac 'select(.status == "failed") | .error' "$T/out"
	assert_output '"TypeError: \ufffd\ufffd\ufffd\ufffd"'
	assert_equal "$(jq -s length "$T/out")" 31
}

@test "symlinks: a cached notebook linking out of its cache is not read; operands are named as given" {
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	cp -r "$B" "$T/c"
	chmod -R u+w "$T/c"
	hk=1b5e455930b73919ddbf5ab9a46f3f26
	mkdir "$T/outside"
	mv "$T/c/executed/$hk" "$T/outside/"
	ln -s "../../outside/$hk" "$T/c/executed/$hk"
	run -2 --separate-stderr qe-cache-extract "$T/c"
	assert_equal "$stderr" "qe-cache-extract: $T/c/executed/$hk/base.ipynb: a symbolic link out of the cache (to $T/outside/$hk/base.ipynb): not read"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' <<< "$output"
	assert_output '["broken","dynamics/markov","errors_allowed","images","intro","numba_demo"]'
	# a link inside the cache is followed
	rm "$T/c/executed/$hk"
	mv "$T/outside/$hk" "$T/c/executed/real"
	ln -s real "$T/c/executed/$hk"
	run -0 --separate-stderr qe-cache-extract "$T/c"
	assert_equal "$(jq -s '[.[] | select(.kind == "notebook")] | length' <<< "$output")" 7
	# operands: one symlinked notebook and one missing no longer rename the others
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	mkdir -p "$T/book/lec" "$T/elsewhere"
	cp "$good" "$T/book/lec/a.ipynb"
	cp "$good" "$T/elsewhere/real.ipynb"
	ln -s ../../elsewhere/real.ipynb "$T/book/lec/b.ipynb"
	cd "$T/book"
	run -2 --separate-stderr qe-cache-extract lec/a.ipynb lec/b.ipynb /nonexistent/x.ipynb
	assert_equal "$stderr" "qe-cache-extract: /nonexistent/x.ipynb: No such file or directory"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | [.document, .path]]' <<< "$output"
	assert_output '[["a","lec/a.ipynb"],["b","lec/b.ipynb"]]'
	# a root reached through a symbolic link still names what is below it
	ln -s book "$T/via"
	run -0 --separate-stderr qe-cache-extract -r "$T/via" "$T/via/lec/a.ipynb"
	run -0 jq -c 'select(.kind == "notebook") | .document' <<< "$output"
	assert_output '"lec/a"'
}

@test "accepted no more: null source, outputs not a list, 10,000 years of papermill, 43,200 s busy for 0.26 s" {
	/usr/bin/python3 - "$T" <<-'PY'
	import json, sys
	T = sys.argv[1]
	def nb(name, cells):
	    json.dump({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}, open(T + "/" + name, "w"))
	def code(source="x = 1", outputs=[], md={}):
	    return {"cell_type": "code", "metadata": md, "execution_count": 1, "source": source, "outputs": outputs}
	nb("a.ipynb", [code()])
	nb("null.ipynb", [code(source=None), code(outputs={}), code(outputs="text"), code(outputs=None)])
	nb("years.ipynb", [code(md={"papermill": {"duration": 3.2e11, "status": "completed"}}), code(md={"papermill": {"duration": 1e300}})])
	ex = {"iopub.status.busy": "2026-11-29T00:00:00.000000Z", "iopub.execute_input": "2026-11-29T00:00:00.001000Z",
	      "shell.execute_reply": "2026-11-29T00:00:00.261000Z", "iopub.status.idle": "2026-11-29T12:00:00.000000Z"}
	nb("busy.ipynb", [code(md={"execution": ex})])
	nb("z.ipynb", [code()])
	PY
	cd "$T"
	run -2 --separate-stderr qe-cache-extract a.ipynb null.ipynb years.ipynb busy.ipynb z.ipynb
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: null.ipynb: code cell 0: 'source' is not a string or a list of strings"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: null.ipynb: code cell 1: 'outputs' is not a list (read as no outputs)"
	assert_equal "${stderr_lines[2]}" "qe-cache-extract: null.ipynb: code cell 2: 'outputs' is not a list (read as no outputs)"
	assert_equal "${stderr_lines[3]}" "qe-cache-extract: null.ipynb: code cell 3: 'outputs' is not a list (read as no outputs)"
	assert_equal "${stderr_lines[4]}" "qe-cache-extract: busy.ipynb: code cell 0: busy period of 43200 s not believable for a duration of 0.26 s: busy_s left out"
	assert_equal "${#stderr_lines[@]}" 5
	run -0 jq -sc '[.[] | select(.kind == "cell") | [.document, .index, .duration_s, .timing_note, .busy_s]]' <<< "$output"
	assert_output '[["a",0,null,"no-timing",null],["null",0,null,"not-executed",null],["null",1,null,"no-timing",null],["null",2,null,"no-timing",null],["null",3,null,"no-timing",null],["years",0,null,"invalid",null],["years",1,null,"invalid",null],["busy",0,0.26,null,null],["z",0,null,"no-timing",null]]'
}

@test "numbers: DBL_MAX reads back (was 1.79769313486232e+308, infinity); qe-comment says 'out of range'" {
	sed 's/"duration_s":1,/"duration_s":1.7976931348623157e308,/' "$F/clean.ndjson" > "$T/max.ndjson"
	run -0 --separate-stderr qe-cell-diff "$F/clean.ndjson" "$T/max.ndjson"
	printf '%s\n' "$output" > "$T/diff"
	run -0 "$TESTS_DIR/tools/jsonlines.py" "$T/diff"
	run -0 /usr/bin/python3 -c 'import json, sys; print(sorted({r["head_s"] for r in map(json.loads, open(sys.argv[1])) if r["kind"] == "cell-diff"}) == [sys.float_info.max])' "$T/diff"
	assert_output True
	run -0 --separate-stderr qe-stamp -r test "$T/max.ndjson"
	run -0 grep -c '"duration_s":1.7976931348623157e308,' <<< "$output"
	assert_output 2
	# the comment keeps both cells, their numbers clamped
	run -0 --separate-stderr qe-comment "$T/diff"
	assert_equal "$stderr" ""
	# (the units follow a no-break space)
	assert_equal "$(grep -c '| [az] | code cell 1 | 1\.00[^|]*→ out of range | out of range | out of range | 100% |' <<< "$output")" 2
}

@test "numbers: qe-stamp passes the bytes of numbers through (-0.0, 2^64, 1E+2 keep their form)" {
	printf '{"kind":"cell","a":-0.0,"b":18446744073709551616,"c":1E+2,"d":0.1000}\n' > "$T/n.ndjson"
	run -0 --separate-stderr qe-stamp -r test "$T/n.ndjson"
	assert_equal "${output%%,\"provenance\":*}" '{"kind":"cell","a":-0.0,"b":18446744073709551616,"c":1E+2,"d":0.1000'
	# --replace must re-print the record: numbers then read back exactly
	printf '{"kind":"cell","a":1.7976931348623157e308,"provenance":{}}\n' > "$T/r.ndjson"
	run -0 --separate-stderr qe-stamp -R -r test "$T/r.ndjson"
	assert_equal "${output%%,\"provenance\":*}" '{"kind":"cell","a":1.7976931348623157e+308'
}

@test "global.db with 200,000 rows: every row read, the cache's 31 records out (the row array grows geometrically: tests/unit/mem.test counts its 13 reallocations)" {
	mkdir "$T/big"
	sqlite3 "$T/big/global.db" "CREATE TABLE nbcache (pk INTEGER PRIMARY KEY, hashkey VARCHAR(255), uri VARCHAR(255), description VARCHAR(255), data JSON, created DATETIME, accessed DATETIME);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
		INSERT INTO nbcache SELECT i, printf('%032x', i), printf('/b/n%d.md', i), '', '{}', '2026-11-29 00:00:00', NULL FROM n"
	run -0 --separate-stderr qe-cache-extract -b "$T/big" "$(shared jupyter-cache/base/.jupyter_cache)"
	assert_equal "$stderr" ""
	assert_equal "$(jq -s length <<< "$output")" 31
}

@test "messages: an archive holding only an archive names it" {
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	mkdir "$T/in"
	(cd "$(dirname "$B")" && zip -qr "$T/in/cache.zip" .jupyter_cache)
	(cd "$T/in" && zip -q "$T/outer.zip" cache.zip)
	run -2 --separate-stderr qe-cache-extract "$T/outer.zip"
	assert_equal "$stderr" "qe-cache-extract: $T/outer.zip: no jupyter-cache (no global.db) in the archive; it holds the archive 'cache.zip': archives inside archives are not opened (unpack it first)"
	assert_output ""
}

@test "messages: libarchive's message that ends in a newline leaves no stray empty line" {
	/usr/bin/python3 - "$T/ws.zip" "$(shared jupyter-cache/base/.jupyter_cache/global.db)" <<-'PY'
	import struct, sys, zipfile
	with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
	    z.write(sys.argv[2], ".jupyter_cache/global.db")
	d = bytearray(open(sys.argv[1], "rb").read())
	size = struct.unpack_from("<I", d, 22)[0]	# claim 100 bytes more than there are
	struct.pack_into("<I", d, 22, size + 100)
	struct.pack_into("<I", d, d.find(b"PK\x01\x02") + 24, size + 100)
	open(sys.argv[1], "wb").write(d)
	PY
	run -2 --separate-stderr qe-cache-extract "$T/ws.zip"
	assert_equal "$stderr" "qe-cache-extract: $T/ws.zip:.jupyter_cache/global.db: ZIP uncompressed data is wrong size (read 28672, expected 28772)"
	# bats drops trailing empty lines: count the bytes' lines
	qe-cache-extract "$T/ws.zip" 2> "$T/err" || true
	assert_equal "$(wc -l < "$T/err")" 1
}

@test "property: every line of every tool, over every fixture and hostile input, is UTF-8 JSON whose numbers read back" {
	# every fixture through every tool (the snapshot of tests/tools/snapshot.sh)
	"$TESTS_DIR/tools/snapshot.sh" "$T/snap" > /dev/null 2>&1
	run -0 "$TESTS_DIR/tools/jsonlines.py" "$T/snap"/*.out
	[ "${output% records}" -gt 2000 ] || fail "only $output"
	# hostile inputs through the pipeline: names and tracebacks not UTF-8, DBL_MAX, -0.0
	good="$(shared nbclient/base/lectures/intro.ipynb)"
	B="$(shared jupyter-cache/base/.jupyter_cache)"
	mkdir "$T/u"
	cp "$good" "$T/u/bad"$'\xff\xfe'".ipynb"
	cp "$good" "$T/u/over"$'\xc0\xaf\xed\xa0\x80'".ipynb"
	cp -r "$B" "$T/tb"
	chmod -R u+w "$T/tb"
	sqlite3 "$T/tb/global.db" "UPDATE nbproject SET traceback = CAST(X'fffec0af0a' AS TEXT)"
	cd "$T"
	qe-cache-extract u tb > e.ndjson 2> /dev/null || true
	sed 's/"duration_s":[0-9][0-9.e+-]*/"duration_s":1.7976931348623157e308/; s/"execution_seconds":[0-9][0-9.e+-]*/"execution_seconds":-0.0/' e.ndjson > max.ndjson
	qe-stamp -r test e.ndjson > s.ndjson
	qe-stamp -R -r test s.ndjson > s2.ndjson
	qe-stamp -r test max.ndjson > smax.ndjson
	qe-cell-diff e.ndjson max.ndjson > d1.ndjson || true
	qe-cell-diff max.ndjson e.ndjson > d2.ndjson || true
	qe-cell-diff smax.ndjson s.ndjson > d3.ndjson || true
	qe-stamp -r test d1.ndjson > sd1.ndjson
	for f in e max s s2 smax d1 d2 d3 sd1; do
		[ -s "$f.ndjson" ] || fail "$f.ndjson is empty"
	done
	run -0 "$TESTS_DIR/tools/jsonlines.py" e.ndjson max.ndjson s.ndjson s2.ndjson smax.ndjson d1.ndjson d2.ndjson d3.ndjson sd1.ndjson
	[ "${output% records}" -gt 200 ] || fail "only $output"
	# and qe-comment takes every one of those lines (none rejected as out of range)
	run -0 --separate-stderr qe-comment d1.ndjson d2.ndjson
	assert_equal "$stderr" ""
}
