#!/usr/bin/env bats
# qe-cache-extract -j N: notebooks read by N worker processes, with stdout,
# stderr and the exit status of -j 1 (tests/tools/jobs-same.sh compares the three
# runs -j 1, -j 2, -j 8; `make jobs-check` runs whole suites through it).

load helper

cache() { shared "$1/.jupyter_cache"; }

setup() {
	T="$BATS_TEST_TMPDIR"
	export QE_REAL_EXTRACT
	QE_REAL_EXTRACT=$(command -v qe-cache-extract)
}

# same EXPECTED_STATUS RECORDS ERRLINES ARGS...: -j 1, 2 and 8 agree, and
# the -j 1 run gives that status, that many records and message lines.
same() {
	local st=$1 n=$2 e=$3 rc=0
	shift 3
	"$TESTS_DIR/tools/jobs-same.sh" "$@" < /dev/null > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" -ne 99 ] || fail "$(cat "$T/err")"
	assert_equal "$rc" "$st"
	assert_equal "$(wc -l < "$T/out")" "$n"
	assert_equal "$(wc -l < "$T/err")" "$e"
}

@test "-j 1, 2 and 8: the same stdout, stderr and status on every shared cache, archive and notebook folder" {
	S=$(shared .)
	same 0 31 0 "$(cache jupyter-cache/base)"
	same 0 44 0 --all "$(cache jupyter-cache/head-incremental)"
	same 0 63 0 "$(cache jupyter-cache-timed/base)" "$(cache jupyter-cache-timed/head)"
	same 0 32 0 --since 2026-11-29T14:32:10Z "$(cache jupyter-cache/head-incremental)"
	same 0 32 0 --baseline "$S/archives/base-artifact.zip" "$(cache jupyter-cache/head-incremental)"
	same 0 56 0 "$(fixture verdicts/aa1)" "$(fixture verdicts/aa2)"
	same 0 126 0 "$S"/archives/base-artifact.zip "$S"/archives/head-artifact.zip \
	    "$S"/archives/base.tar.gz "$S"/archives/head.zip
	same 0 126 0 "$S"/archives/base-workspace.tar.gz "$S"/archives/head-workspace.tar.gz \
	    "$S"/archives/base.zip "$S"/archives/head.tar.gz
	same 0 69 0 "$S/nbclient/base" "$S/nbclient/head"
	same 0 32 0 "$S/papermill/papermill-2.6.0" "$S/papermill/papermill-main-83512185"
	same 0 73 0 "$S/notebooks/base" "$S/mystnb-build/head"
	same 0 14 0 "$(fixture hostile/span-10000-years.ipynb)" "$(fixture qe-cache-extract/timestamps.ipynb)"
	# a root, a notebook named on its own beside folders, one missing
	same 2 43 1 -r "$S/nbclient" "$S/nbclient/base/lectures/intro.ipynb" "$S/nbclient/head" /nonexistent.ipynb
}

@test "-j 1, 2 and 8: hook logs join the same runs; unmatched runs are reported the same" {
	same 0 41 0 -t "$(fixture hook/cache/hook.log)" "$(fixture hook/cache/.jupyter_cache)"
	same 0 41 0 -t "$(fixture hook/parallel/hook.log)" "$(fixture hook/parallel/.jupyter_cache)"
	same 0 26 0 -t "$(fixture verdicts/head/hook.log)" "$(fixture verdicts/head/.jupyter_cache)"
	# another book's log: its 8 runs match nothing, said after the records
	same 0 26 8 -t "$(fixture hook/cache/hook.log)" "$(fixture verdicts/head/.jupyter_cache)"
	run -0 grep -c "matches no notebook$" "$T/err"
	assert_output 8
}

# The notebook file nf.ipynb holds the three cells the killed kernel of
# verdicts/head's newly_fails was sent: its run matches the file too.
make_nf() {
	/usr/bin/python3 - "$T/nf.ipynb" <<-'PY'
	import json, sys
	src = ["import time", "time.sleep(0.1)",
	       "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(30)  # past the timeout"]
	cells = [{"cell_type": "code", "id": "c%d" % i, "execution_count": i + 1, "metadata": {},
	          "outputs": [], "source": s} for i, s in enumerate(src)]
	json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, open(sys.argv[1], "w"))
	PY
}

@test "-j N: a run a worker matched is marked in operand order, before a later failed record looks for it" {
	make_nf
	V=$(fixture verdicts/head)
	for j in 1 2 8; do
		# the file first: its worker matched the run, so the failed record finds none
		run -0 --separate-stderr qe-cache-extract -j "$j" -t "$V/hook.log" "$T/nf.ipynb" "$V/.jupyter_cache"
		run -0 jq -c 'select(.kind == "notebook" and (.status == "failed" or .input == "ipynb")) | [.document, .timeout_cell.seq]' <<< "$output"
		assert_output - <<-'EOF'
		["nf",null]
		["fails_both",null]
		["newly_fails",null]
		EOF
		# the cache first: the run was not matched yet, the timeout cell is found
		run -0 --separate-stderr qe-cache-extract -j "$j" -t "$V/hook.log" "$V/.jupyter_cache" "$T/nf.ipynb"
		run -0 jq -c 'select(.kind == "notebook" and (.status == "failed" or .input == "ipynb")) | [.document, .timeout_cell.seq]' <<< "$output"
		assert_output - <<-'EOF'
		["fails_both",null]
		["newly_fails",3]
		["nf",null]
		EOF
	done
}

@test "-j 1, 2 and 8: bad notebooks, a FIFO and missing operands give the same messages in the same order" {
	mkdir -p "$T/nb/sub"
	cp "$(shared nbclient/base/lectures)"/*.ipynb "$T/nb/"
	printf '{"cells": [' > "$T/nb/truncated.ipynb"
	echo 'not json' > "$T/nb/sub/notanotebook.ipynb"
	printf '{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5,"x":"\xff"}' > "$T/nb/sub/latin1.ipynb"
	mkfifo "$T/fifo.ipynb"
	same 2 62 6 "$T/nb" "$(shared archives/head.zip)" "$T/nb/sub/latin1.ipynb" "$T/fifo.ipynb" /nonexistent
	assert_equal "$(cat "$T/err")" "qe-cache-extract: $T/nb/sub/latin1.ipynb: not a notebook: invalid UTF-8 at byte 64
qe-cache-extract: $T/nb/sub/notanotebook.ipynb:1: invalid JSON at column 1
qe-cache-extract: $T/nb/truncated.ipynb:1: invalid JSON at column 11
qe-cache-extract: $T/nb/sub/latin1.ipynb: not a notebook: invalid UTF-8 at byte 64
qe-cache-extract: $T/fifo.ipynb: not a regular file
qe-cache-extract: /nonexistent: No such file or directory"
}

@test "-j 0, a negative, a word or more than 1024 is a usage error (exit 2)" {
	for v in 0 -1 abc 1025 '' 2x; do
		run -2 --separate-stderr qe-cache-extract -j "$v" "$(cache jupyter-cache/base)"
		assert_equal "${stderr%%$'\n'*}" "qe-cache-extract: -j: invalid value '$v'"
		assert_equal "$output" ""
	done
	run -2 --separate-stderr qe-cache-extract --jobs 0 "$(cache jupyter-cache/base)"
	assert_equal "${stderr%%$'\n'*}" "qe-cache-extract: -j: invalid value '0'"
	run -0 qe-cache-extract --jobs 3 "$(cache jupyter-cache/base)"
	assert_equal "$(wc -l <<< "$output")" 31
}

@test "-j 2: at most 2 workers at once, memory bounded by them, not by the number of notebooks" {
	[ -z "${QE_VALGRIND:-}${QE_SANITIZED:-}" ] || skip "peak RSS means nothing under valgrind or ASan"
	make_big_cache "$T/c10" 10
	make_big_cache "$T/c60" 60
	(cd "$T/c60" && zip -q -r "$T/c60.zip" global.db executed)
	local -A sum kids one
	read -r sum1 kids1 one1 < <("$TESTS_DIR/tools/treerss.py" qe-cache-extract -j 1 "$T/c60")
	(( kids1 == 0 )) || fail "-j 1 forked $kids1 workers"
	for c in c10 c60 c60.zip; do
		read -r "sum[$c]" "kids[$c]" "one[$c]" < <("$TESTS_DIR/tools/treerss.py" qe-cache-extract -j 2 "$T/$c")
		echo "$c: -j 2: tree peak ${sum[$c]} KiB, ${kids[$c]} workers at most, largest process ${one[$c]} KiB (-j 1: $one1 KiB)"
		(( kids[$c] <= 2 )) || fail "$c: ${kids[$c]} workers at once with -j 2"
	done
	# no process grows with the number of notebooks (the parent keeps records only)
	(( one[c60] - one[c10] < 1024 )) || fail "60 notebooks: largest process $((one[c60] - one[c10])) KiB above 10"
	(( one[c60.zip] - one[c10] < 6 * 1024 )) || fail "the archive: largest process $((one[c60.zip] - one[c10])) KiB above the folder"
	# the parent and two workers, each at most a -j 1 run (shared pages counted in each)
	(( sum[c60] < 3 * one1 )) || fail "tree peak ${sum[c60]} KiB for 3 processes of at most $one1 KiB"
	(( sum[c60.zip] < 3 * one1 + 6 * 1024 )) || fail "archive: tree peak ${sum[c60.zip]} KiB"
	run -0 bash -c 'qe-cache-extract -j 2 "$1" | wc -l' _ "$T/c60.zip"
	assert_output 120
}

# workers_seen CMD...: run CMD (stdout discarded), sampling its children
# every 2 ms; prints the number of distinct child processes seen.
workers_seen() {
	/usr/bin/python3 - "$@" <<-'PY'
	import subprocess, sys, time
	p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
	seen = set()
	while p.poll() is None:
	    try:
	        with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
	            seen.update(f.read().split())
	    except OSError:
	        pass
	    time.sleep(0.002)
	print(len(seen))
	sys.exit(p.returncode)
	PY
}

@test "-j 2: the two workers are kept from batch to batch (forked once per operand), in a folder and a zip" {
	[ -z "${QE_VALGRIND:-}${QE_SANITIZED:-}" ] || skip "valgrind and ASan builds have helper processes"
	# 60 notebooks of 2 MB: batches of 4 MiB at the end, about 25 of them
	make_big_cache "$T/c60" 60
	(cd "$T/c60" && zip -q -r "$T/c60.zip" global.db executed)
	run -0 workers_seen qe-cache-extract -j 2 "$T/c60"
	assert_output 2
	run -0 workers_seen qe-cache-extract -j 2 "$T/c60.zip"
	assert_output 2
	# two operands: two workers each
	run -0 workers_seen qe-cache-extract -j 2 "$T/c60" "$T/c60.zip"
	assert_output 4
}

@test "-j defaults to the CPUs the process may use: on one CPU (taskset) no worker is forked" {
	# (LeakSanitizer forks a tracer at exit: a child that is no worker)
	[ -z "${QE_VALGRIND:-}${QE_SANITIZED:-}" ] || skip "valgrind and ASan builds have helper processes"
	command -v taskset > /dev/null || skip "no taskset"
	make_big_cache "$T/c" 6
	read -r sum kids one < <(taskset -c 0 "$TESTS_DIR/tools/treerss.py" qe-cache-extract "$T/c")
	assert_equal "$kids" 0
	run -0 bash -c 'taskset -c 0 qe-cache-extract "$1" | wc -l' _ "$T/c"
	assert_output 12
}

# make_mixed_cache DIR SPEC...: a jupyter-cache whose notebook k (1..) has
# SPEC[k] = CELLSxBYTES: that many code cells, each printing BYTES bytes;
# the notebooks' sizes vary as the bench's do (20 KB to MBs), in cache order.
make_mixed_cache() {
	local dir=$1
	shift
	/usr/bin/python3 - "$dir" "$@" <<-'PY'
	import json, os, sqlite3, sys
	d = sys.argv[1]
	os.makedirs(d + "/executed", exist_ok=True)
	db = sqlite3.connect(d + "/global.db")
	db.execute("CREATE TABLE nbcache (pk INTEGER PRIMARY KEY, hashkey VARCHAR(255) UNIQUE, uri VARCHAR(255), "
	           "description VARCHAR(255), data JSON, created DATETIME, accessed DATETIME)")
	db.execute("CREATE TABLE nbproject (pk INTEGER PRIMARY KEY, uri VARCHAR(255) UNIQUE, read_data JSON, "
	           "assets JSON, exec_data JSON, created DATETIME, traceback TEXT)")
	for k, spec in enumerate(sys.argv[2:], 1):
	    ncell, nbytes = map(int, spec.split("x"))
	    hk = "%032x" % k
	    cells = [{"cell_type": "code", "id": "c%d" % i, "execution_count": i + 1, "metadata": {},
	              "outputs": [{"output_type": "stream", "name": "stdout", "text": "%d:%d " % (k, i) + "x" * nbytes}],
	              "source": "print(%d)" % i} for i in range(ncell)]
	    os.makedirs("%s/executed/%s" % (d, hk))
	    json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
	              open("%s/executed/%s/base.ipynb" % (d, hk), "w"))
	    db.execute("INSERT INTO nbcache VALUES (?, ?, ?, '', '{\"execution_seconds\": 2.0}', "
	               "'2026-11-29 10:00:00.000000', '2026-11-29 10:00:00.000000')",
	               (k, hk, "/book/lectures/nb%02d.md" % k))
	db.commit()
	PY
}

@test "-j 1, 2 and 8: notebooks of mixed sizes (batches cut by bytes), in a folder, a zip, a tar and a tar.gz" {
	# one large notebook among small ones, as in a real build; and a run of tiny ones at the end
	make_mixed_cache "$T/m" 3x20000 1x100 40x2000 1x3000000 2x500 5x50000 1x200000 1x10 1x10 1x10 1x10
	(cd "$T/m" && zip -q -r "$T/m.zip" global.db executed && tar -cf "$T/m.tar" global.db executed &&
	    tar -czf "$T/m.tar.gz" global.db executed)
	for op in "$T/m" "$T/m.zip" "$T/m.tar" "$T/m.tar.gz"; do
		same 0 68 0 "$op"
		# the notebooks in cache order (newest first: pk order here), each whole
		run -0 jq -r 'select(.kind == "cell") | .document' "$T/out"
		assert_equal "$(uniq <<< "$output" | tr '\n' ' ')" "nb01 nb02 nb03 nb04 nb05 nb06 nb07 nb08 nb09 nb10 nb11 "
	done
	# the same bytes from all four, and as -j 1 of a folder of notebook files
	qe-cache-extract -j 2 "$T/m" > "$T/dir.out"
	for op in "$T/m.zip" "$T/m.tar" "$T/m.tar.gz"; do
		run -0 bash -c 'qe-cache-extract -j 2 "$1" | cmp - "$2"' _ "$op" "$T/dir.out"
	done
}

@test "-j 2 on a zip: a member that cannot be inflated is reported by its worker, in its place" {
	make_mixed_cache "$T/m" 3x20000 2x300000 1x100 2x300000 1x100
	(cd "$T/m" && zip -q -r "$T/m.zip" global.db executed)
	# spoil the deflated data of notebook 4 (not its header): its CRC no longer matches
	/usr/bin/python3 - "$T/m.zip" <<-'PY'
	import sys, zipfile
	p = sys.argv[1]
	info = zipfile.ZipFile(p).getinfo("executed/%032x/base.ipynb" % 4)
	data = bytearray(open(p, "rb").read())
	at = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2
	data[at:at + 64] = bytes(64)
	open(p, "wb").write(data)
	PY
	same 2 11 1 "$T/m.zip"
	run -0 jq -r 'select(.kind == "notebook") | .document' "$T/out"
	assert_equal "$(tr '\n' ' ' <<< "$output")" "nb01 nb02 nb03 nb05 "
	run -0 grep -c "^qe-cache-extract: $T/m.zip:executed/00000000000000000000000000000004/base.ipynb: " "$T/err"
}

@test "-j 2: a worker killed in the middle of its batch: the notebooks before it kept, a message, the rest of its batch lost, later batches kept, exit 2" {
	[ -z "${QE_VALGRIND:-}" ] || skip "valgrind's own files are limited too"
	# 2.3 MB of notebooks: the first batch is the first quarter of the bytes
	# or more (qe_par_batch_full): notebooks 1 to 3. Notebook 2 has 2000
	# small cells, whose 1.2 MB of records pass the worker's file size limit
	# (ulimit -f, which memory files obey): SIGXFSZ kills it after notebook
	# 1's records were written, before notebook 3 was begun.
	make_mixed_cache "$T/m" 1x100000 2000x1 1x300000 1x300000 1x300000 1x300000 1x300000 1x300000
	qe-cache-extract -j 1 "$T/m" > "$T/all"
	[ "$(jq -c 'select(.document == "nb02")' "$T/all" | wc -c)" -gt $((1024 * 1024)) ] ||
	    fail "notebook 2's records are too small"
	run -2 --separate-stderr bash -c 'ulimit -f 1024; exec qe-cache-extract -j 2 "$1"' _ "$T/m"
	[[ "$stderr" =~ ^qe-cache-extract:\ worker\ [0-9]+\ killed\ by\ signal\ 25$ ]] || fail "stderr: $stderr"
	# exactly notebook 2's and 3's records are missing, the others in order
	assert_equal "$output" "$(jq -c 'select(.document != "nb02" and .document != "nb03")' "$T/all")"
	run -0 jq -r 'select(.kind == "notebook") | .document' <<< "$output"
	assert_equal "$(tr '\n' ' ' <<< "$output")" "nb01 nb04 nb05 nb06 nb07 nb08 "
}
