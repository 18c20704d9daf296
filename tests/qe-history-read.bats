#!/usr/bin/env bats
# qe-history add reads every line without a cJSON tree (lib/qe_recscan.c:
# the provenance byte-equal to the previous line's end is that line's tree;
# a repeated member reads as its first); a line it refuses is said in the
# words every NDJSON reader says it (qe_js_check).
# The report is a generated build (tests/tools/gen_history.py) of real records.

load helper

setup_file() {
	export H="$BATS_FILE_TMPDIR"
	qe-cache-extract "$(shared jupyter-cache-timed/base/.jupyter_cache)" > "$H/base.ndjson"
	qe-cache-extract "$(shared jupyter-cache-timed/head/.jupyter_cache)" > "$H/head.ndjson"
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" --builds 1 --prs 0 --lectures 40 --cells 60 --plain \
		"$H/base.ndjson" "$H/head.ndjson" "$H/r"
}

# rows DB: every row of the docs and notebooks tables (cells packed), and
# each build's counts
rows() {
	/usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for t in ("SELECT * FROM docs ORDER BY id", "SELECT * FROM notebooks ORDER BY doc, build",
          "SELECT build, series, commit_sha, notebooks, cells, provenance FROM builds ORDER BY id"):
    for r in c.execute(t):
        print(repr(r))' "$1" | sha256sum
}

@test "add: lines with CR, trailing blanks, blank lines between them, repeated members: the rows of the clean report, the digest of the lines as read" {
	T="$BATS_TEST_TMPDIR"
	clean="$H/r/main-01.ndjson"
	# every 3rd line ends in SP TAB, every 5th in CR, a blank line after every
	# 4th; every 7th repeats a member (the first is read, as cJSON's lookups
	# read it)
	/usr/bin/python3 -c 'import sys
out = []
for i, l in enumerate(open(sys.argv[1], "rb").read().split(b"\n")):
    if not l:
        continue
    if i % 7 == 6:
        l = l.replace(b"{", b"{\"timing_note\":null,\"timing_note\":1,", 1)
    if i % 3 == 2:
        l += b" \t"
    if i % 5 == 4:
        l += b"\r"
    out.append(l)
    if i % 4 == 3:
        out.append(b" ")
sys.stdout.buffer.write(b"\n".join(out) + b"\n")' "$clean" > "$T/messy.ndjson"
	run -0 grep -c 'timing_note":null,"timing_note' "$T/messy.ndjson"
	[ "$output" -ge 10 ]
	qe-history add -d "$T/clean.db" "$clean" > "$T/clean.out"
	run -0 --separate-stderr qe-history add -d "$T/messy.db" "$T/messy.ndjson"
	assert_equal "$stderr" ""
	# the digest: each line without CR and trailing blanks, blank lines left out
	want=$(sed -e 's/\r$//' -e 's/[ \t]*$//' -e '/^$/d' "$T/messy.ndjson" | sha256sum | cut -c1-64)
	run -0 jq -r '.content_sha256' <<< "$output"
	assert_output "$want"
	run -0 jq -c '[.notebooks, .cells]' "$T/clean.out"
	assert_output "$(qe-history add -d "$T/messy2.db" "$T/messy.ndjson" | jq -c '[.notebooks, .cells]')"
	assert_equal "$(rows "$T/messy.db")" "$(rows "$T/clean.db")"
}

@test "add: a bad line among lines read without a tree is said in every reader's words, the report not added" {
	T="$BATS_TEST_TMPDIR"
	# the 3rd and the 6th cell record: a number beyond a double, a line cut short
	/usr/bin/python3 -c 'import sys
ls = open(sys.argv[1], "rb").read().split(b"\n")
c = [i for i, l in enumerate(ls) if l.startswith(b"{\"kind\":\"cell\"")]
ls[c[2]] = ls[c[2]].replace(b"\"index\":", b"\"index\":1e999,\"i\":", 1)
ls[c[5]] = ls[c[5]][:-3]
print(c[2] + 1, c[5] + 1, file=sys.stderr)
sys.stdout.buffer.write(b"\n".join(ls))' "$H/r/main-01.ndjson" > "$T/bad.ndjson" 2> "$T/at"
	read -r a b < "$T/at"
	[ "$a" -gt 3 ] && [ "$b" -gt "$a" ]
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/bad.ndjson"
	assert_equal "$output" ""
	assert_equal "${stderr_lines[0]}" "qe-history: $T/bad.ndjson:$a: number out of range (beyond a double's 1.8e308)"
	assert_equal "${stderr_lines[1]}" "qe-history: $T/bad.ndjson:$b: $(qe-stamp -r x - < <(sed -n "${b}p" "$T/bad.ndjson") 2>&1 >/dev/null | head -1 | sed 's/^[^:]*: [^:]*:[0-9]*: //')"
	[[ "${stderr_lines[1]}" == "qe-history: $T/bad.ndjson:$b: invalid JSON at column "[0-9]* ]]
	assert_equal "${stderr_lines[2]}" "qe-history: 2 lines rejected"
	assert_equal "${stderr_lines[3]}" "qe-history: $T/bad.ndjson: not added: lines were rejected"
	assert_equal "${#stderr_lines[@]}" 4
}
