#!/usr/bin/env bats
# qe-history keeps qe-sweep's scaling curves: qe-sweep on the real sweep
# fixture (tests/fixtures/sweep/scale.ndjson: qe-replicate --sweep runs of a
# numba-style notebook at n = 1e3..1e6, base and head), stamped with
# qe-stamp as a CI job stamps it; a second machine's runs are the same
# fixture with another fingerprint and runner class and the head twice as
# fast there. Then `add`, `sweeps`, the store's migration and the page's
# Scaling section (Chromium renders it).

load helper

setup_file() {
	H="$BATS_FILE_TMPDIR"
	local f
	f=$(fixture sweep/scale.ndjson)
	qe-sweep "$f" > "$H/sweep.ndjson"
	jq -c '.provenance.fingerprint = "00ff00ff00ff00ff" | .provenance.runner.class = "owned/workstation"
		| .provenance.hardware.cpu_model = "AMD EPYC"
		| if .version == "head" then (if .duration_s then .duration_s *= 0.5 else . end)
			| (if .cells_seconds then .cells_seconds *= 0.5 else . end) else . end' "$f" > "$H/m2.ndjson"
	cat "$f" "$H/m2.ndjson" | qe-sweep - > "$H/two.ndjson"
	# stamped as the sweep job of run 15000001000 (and, the next week, 15000002000) stamps it
	GITHUB_REPOSITORY=QuantEcon/lecture-demo GITHUB_RUN_ID=15000001000 GITHUB_RUN_ATTEMPT=1 \
		qe-stamp -r ci/sweep -t 2026-11-02T06:00:00Z "$H/sweep.ndjson" > "$H/stamped.ndjson"
	GITHUB_REPOSITORY=QuantEcon/lecture-demo GITHUB_RUN_ID=15000002000 GITHUB_RUN_ATTEMPT=1 \
		qe-stamp -r ci/sweep -t 2026-11-09T06:00:00Z "$H/two.ndjson" > "$H/stamped-two.ndjson"
	# a lecture build's report (real cache records), for the queries over builds
	qe-cache-extract "$(shared jupyter-cache-timed/head/.jupyter_cache)" > "$H/head.ndjson"
	GITHUB_REPOSITORY=QuantEcon/lecture-demo GITHUB_RUN_ID=15000000500 GITHUB_RUN_ATTEMPT=1 \
		qe-stamp -r ci/build -t 2026-11-01T06:00:00Z "$H/head.ndjson" > "$H/build.ndjson"
}

setup() {
	H="$BATS_FILE_TMPDIR"
	T="$BATS_TEST_TMPDIR"
}

# the stored rows of every table of DB, as one digest ("exactly as before")
dump() {
	/usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("PRAGMA user_version").fetchone()[0])
for line in c.iterdump():
    print(line)' "$1" | sha256sum
}

@test "add: a stamped qe-sweep report is its curves, one sweeps row each, apart from the builds; again: present" {
	run -0 --separate-stderr qe-history add -d "$T/db" "$H/stamped.ndjson"
	validate <<< "$output"
	run -0 jq -c '[.result, .build, .series, .notebooks, .cells, .sweeps]' <<< "$output"
	assert_output '["added","QuantEcon/lecture-demo/15000001000/1#'"$(jq -r 'select(.kind == "sweep") | .provenance.fingerprint' "$H/stamped.ndjson" | head -1 | cut -c1-16)"'","main",0,0,6]'
	run -0 sqlite3 "$T/db" 'pragma user_version; select count(*) from builds; select count(*) from sweeps'
	assert_output $'3\n0\n6'
	# the record is kept whole, less its provenance
	run -0 sqlite3 "$T/db" "select record from sweeps where cell = 'work'"
	assert_equal "$(jq -cS . <<< "$output")" "$(jq -cS 'select(.cell == "work") | del(.provenance)' "$H/stamped.ndjson")"
	before=$(dump "$T/db")
	run -0 --separate-stderr qe-history add -d "$T/db" "$H/stamped.ndjson"
	assert_equal "$(jq -r .result <<< "$output")" present
	assert_equal "$(dump "$T/db")" "$before"
}

@test "add: sweep records without provenance are refused, file:line and why; one unstamped among stamped too; nothing stored" {
	run -2 --separate-stderr qe-history add -d "$T/db" "$H/sweep.ndjson"
	assert_equal "$stderr" "qe-history: $H/sweep.ndjson:1: not added: no provenance (pass the report through qe-stamp): without one a build has no place in a series"
	{ head -n 2 "$H/stamped.ndjson"; sed -n 3p "$H/sweep.ndjson"; } > "$T/mixed.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/mixed.ndjson"
	assert_equal "$stderr" "qe-history: $T/mixed.ndjson:3: not added: a record without provenance among stamped ones (pass the whole report through qe-stamp)"
	jq -c 'if .cell == "work" then del(.machine) else . end' "$H/stamped.ndjson" > "$T/nomachine.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/nomachine.ndjson"
	assert_equal "$stderr" "qe-history: $T/nomachine.ndjson:5: not added: a sweep record without document, parameter, machine.fingerprint or points"
	run -0 sqlite3 "$T/db" 'select count(*) from sweeps'
	assert_output 0
}

@test "add: a curve stored with another record is a conflict unless --replace; one curve twice in a report is refused" {
	qe-history add -d "$T/db" "$H/stamped.ndjson" > /dev/null
	before=$(dump "$T/db")
	jq -c 'if .cell == "work" then .points[0].base.median_s = 0.5 else . end' "$H/stamped.ndjson" > "$T/re.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/re.ndjson"
	fp=$(jq -r 'select(.cell == "work") | .machine.fingerprint' "$H/stamped.ndjson")
	b=$(jq -r 'select(.cell == "work") | .provenance.fingerprint' "$H/stamped.ndjson" | cut -c1-16)
	assert_equal "$stderr" "qe-history: $T/re.ndjson:5: not added: the sweep of scale, cell work over n on machine $fp of build QuantEcon/lecture-demo/15000001000/1#$b is already stored from $H/stamped.ndjson with another record: not replaced (qe-history add --replace stores this report's instead)"
	assert_equal "$(dump "$T/db")" "$before"
	run -0 --separate-stderr qe-history add -d "$T/db" --replace "$T/re.ndjson"
	assert_equal "$(jq -r .result <<< "$output")" replaced
	run -0 sqlite3 "$T/db" "select count(*), json_extract(record, '$.points[0].base.median_s') from sweeps where cell = 'work'"
	assert_output '1|0.5'
	{ cat "$H/stamped.ndjson"; grep '"cell":"work"' "$H/stamped.ndjson"; } > "$T/twice.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/fresh.db" "$T/twice.ndjson"
	assert_equal "$stderr" "qe-history: $T/twice.ndjson:7: not added: a sweep curve (document, cell, parameter, machine) appears twice in one report"
	run -0 sqlite3 "$T/fresh.db" 'select count(*) from sweeps'
	assert_output 0
}

@test "sweeps are no builds: the queries over builds print the same with or without them" {
	qe-history add -d "$T/a.db" "$H/build.ndjson" > /dev/null
	qe-history add -d "$T/b.db" "$H/build.ndjson" "$H/stamped.ndjson" "$H/stamped-two.ndjson" > /dev/null
	for q in slowest cost; do
		run -0 qe-history "$q" -d "$T/a.db"
		local a=$output
		run -0 qe-history "$q" -d "$T/b.db"
		assert_equal "$output" "$a"
	done
	run -0 qe-history sweeps -d "$T/b.db"
	assert_equal "${#lines[@]}" 18
}

@test "sweeps: every curve, document and cell order, each machine its own row (never pooled); DOC CELL picks; records validate" {
	qe-history add -d "$T/db" "$H/stamped.ndjson" "$H/stamped-two.ndjson" > /dev/null
	run -0 qe-history sweeps -d "$T/db"
	validate <<< "$output"
	run -0 jq -c '[.cell, .machine.fingerprint[0:4], (.build | split("/")[2])]' <<< "$output"
	assert_line --index 0 '[null,"00ff","15000002000"]'
	assert_line --index 1 '[null,"7446","15000001000"]'
	assert_line --index 2 '[null,"7446","15000002000"]'
	assert_line --index 3 '["define","00ff","15000002000"]'
	run -0 qe-history sweeps -d "$T/db" scale work
	assert_equal "${#lines[@]}" 3
	# the second machine's curve is its own runs: its points are qe-sweep's for that machine alone
	assert_equal "$(jq -c 'select(.machine.fingerprint == "00ff00ff00ff00ff") | [.points, .fit, .crossover]' <<< "$output")" \
		"$(jq -c 'select(.cell == "work" and .machine.fingerprint == "00ff00ff00ff00ff") | [.points, .fit, .crossover]' "$H/two.ndjson")"
	run -0 qe-history sweeps -d "$T/db" nosuch
	assert_output ''
	run -0 qe-history sweeps -d "$T/db" scale work --format md
	# the two machines' crossovers differ: the head is twice as fast on the workstation
	assert_line --index 0 "| document | cell | parameter | machine | built | sizes | base exponent | head exponent | crossover | lecture's size | speedup there |"
	assert_line --index 2 --regexp '^\| `scale` \| work \| `n` \| owned/workstation `00ff00ff00ff00ff` \| 2026-11-09 \| 1000 … 1e6 \(4\) \| 0\.5 \| 0\.09 \| head-wins-above at 6288 \(clear at 1000 and 1e4\) \| 3000 \| ×0\.7[0-9] \|$'
	assert_line --index 3 --regexp '^\| `scale` \| work \| `n` \| local/debian-12/2cpu `7446ae58b9ca0027` \| 2026-11-02 \| 1000 … 1e6 \(4\) \| 0\.5 \| 0\.09 \| head-wins-above at 2\.9e4 \(clear at 1e4 and 1e5\) \| 3000 \| ×0\.3[0-9] \|$'
	assert_line --index 5 "These curves come from 2 different machines: owned/workstation (AMD EPYC, 2 CPUs, 25 GB) \`00ff00ff00ff00ff\`; local/debian-12/2cpu (Intel\\(R\\) Xeon\\(R\\) Processor, 2 CPUs, 25 GB) \`7446ae58b9ca0027\`. Each row is one machine's runs, never pooled with another's: compare the versions on each machine, and the machines only knowing they differ."
	# one machine: no such sentence; a negligible curve says so
	qe-history add -d "$T/one.db" "$H/stamped.ndjson" > /dev/null
	run -0 qe-history sweeps -d "$T/one.db" --format md
	assert_equal "${#lines[@]}" 8
	refute_output --partial 'different machines'
	run -0 qe-history sweeps -d "$T/db" scale define --format md
	assert_line --index 2 --partial '| negligible: noise (no run reached qe-sweep'"'"'s --min-seconds) |'
	run -2 --separate-stderr qe-history sweeps -d "$T/db" a b c
	assert_equal "${stderr_lines[0]}" "qe-history: sweeps: too many operands"
}

@test "store version 3: a version 2 store is migrated by add (its builds kept, sweeps added); the queries refuse it until then; version 3 is refused by a version 2 reader" {
	qe-history add -d "$T/v2.db" "$H/build.ndjson" > /dev/null
	run -0 qe-history slowest -d "$T/v2.db"
	local slowest=$output
	# a version 2 store: version 3's schema without the sweeps table
	sqlite3 "$T/v2.db" 'drop table sweeps; pragma user_version = 2'
	run -2 --separate-stderr qe-history slowest -d "$T/v2.db"
	run -2 --separate-stderr qe-history sweeps -d "$T/v2.db"
	assert_equal "$stderr" "qe-history: $T/v2.db: an older qe-history database (schema version 2): run qe-history add to create or migrate it"
	run -0 qe-history add -d "$T/v2.db" "$H/stamped.ndjson"
	run -0 sqlite3 "$T/v2.db" 'pragma user_version; select count(*) from builds; select count(*) from sweeps'
	assert_output $'3\n1\n6'
	run -0 qe-history slowest -d "$T/v2.db"
	assert_equal "$output" "$slowest"
	sqlite3 "$T/v2.db" 'pragma user_version = 4'
	run -2 --separate-stderr qe-history sweeps -d "$T/v2.db"
	assert_equal "$stderr" "qe-history: $T/v2.db: database schema version 4 is newer than this qe-history's (3)"
}

@test "report -o: a Scaling section, a log-log chart per curve with the crossover and the lecture's size where they are; hostile names escaped" {
	jq -c 'if .cell == "work" then .document = "<script>alert(1)</script>" | .cell = "<b>x</b>" | .machine.runner_class = "<img src=x>" | .recommendation = "</td><i>y</i>" else . end' \
		"$H/stamped.ndjson" > "$T/hostile.ndjson"
	qe-history add -d "$T/db" "$H/build.ndjson" "$T/hostile.ndjson" "$H/stamped-two.ndjson" > /dev/null
	run -0 --separate-stderr qe-history report -d "$T/db" -o "$T/site"
	local page="$T/site/index.html"
	run -1 grep -E '<script|<b>x|<img|<i>y' "$page"
	run -0 grep -c '&lt;script&gt;alert(1)&lt;/script&gt;' "$page"
	sed -n "/<h2 id='scaling'>/,/<h2 id='cost'>/p" "$page" > "$T/scaling.html"
	grep -q "These curves come from 2 different machines" "$T/scaling.html"
	# the newest curve per document, cell, parameter and machine, negligible ones left out:
	# the lecture and work on each machine, and build 1's work under its hostile name
	run -0 grep -o "<svg class='chart'" "$T/scaling.html"
	assert_equal "${#lines[@]}" 5
	# imports, params, define and report on each machine: noise, counted
	grep -q "<p class='note'>8 negligible curves not drawn" "$T/scaling.html"
	# on the log axis the crossover (2.9e4 on the CI machine) lies between the 1e4 and 1e5 ticks,
	# the lecture's n = 3000 between 1000 and 1e4: the x of each, read from the chart
	/usr/bin/python3 - "$T/scaling.html" <<'PY'
import re, sys
svgs = re.findall(r"<svg class='chart'.*?</svg>", open(sys.argv[1]).read(), re.S)
checked = 0
for s in svgs:
    if "7446ae58b9ca0027" not in s:
        continue
    ticks = {t: float(x) for x, t in re.findall(r"<text x='([0-9.]+)' y='[0-9]+' font-size='11' text-anchor='middle'>([0-9e]+)</text>", s)}
    cross = float(re.search(r"<line x1='([0-9.]+)'[^>]*stroke='#cf222e'[^>]*stroke-dasharray", s).group(1))
    lect = float(re.search(r"<line x1='([0-9.]+)'[^>]*stroke='#1a7f37'", s).group(1))
    assert ticks["1e4"] < cross < ticks["1e5"], (ticks, cross)
    assert ticks["1000"] < lect < ticks["1e4"], (ticks, lect)
    # log scale: 3000 is log10(3) = 0.48 of the way from 1000 to 1e4
    f = (lect - ticks["1000"]) / (ticks["1e4"] - ticks["1000"])
    assert abs(f - 0.477) < 0.02, f
    checked += 1
assert checked == 3, checked
PY
}

@test "report -o without sweeps: the Scaling section says none is stored" {
	qe-history add -d "$T/db" "$H/build.ndjson" > /dev/null
	run -0 --separate-stderr qe-history report -d "$T/db" -o "$T/site"
	run -0 grep -c "<h2 id='scaling'>Scaling: time against problem size (qe-sweep)</h2>" "$T/site/index.html"
	run -0 grep -c "<p class='note'>No scaling sweep stored.</p>" "$T/site/index.html"
}

@test "report on a store of sweeps only: the page with its Scaling charts and no main build said, status 0, nothing on stderr; --format md prints nothing, status 0" {
	# before, slowest's "no main builds" made both exit 2
	qe-history add -d "$T/db" "$H/stamped.ndjson" > /dev/null
	run -0 --separate-stderr qe-history report -d "$T/db" -o "$T/site"
	assert_equal "$stderr" ""
	local page="$T/site/index.html"
	grep -q "No main build is stored yet: only qe-sweep's scaling curves (below)." "$page"
	grep -q "<p class='note'>No main build in the history yet.</p>" "$page"
	sed -n "/<h2 id='scaling'>/,/<h2 id='cost'>/p" "$page" > "$T/scaling.html"
	run -0 grep -o "<svg class='chart'" "$T/scaling.html"
	assert_equal "${#lines[@]}" 2
	run -0 --separate-stderr qe-history report -d "$T/db" --format md
	assert_equal "$stderr" ""
	assert_output ""
}

@test "Chromium at 1280 px: the Scaling charts draw both versions' lines and the marks; no console message" {
	browser_or_skip
	qe-history add -d "$T/db" "$H/build.ndjson" "$H/stamped-two.ndjson" > /dev/null
	qe-history report -d "$T/db" -o "$T/site"
	screenshot "$T/site/index.html" "$T/page.png" 1280x2000 "$T/console.log"
	run -1 grep ':CONSOLE' "$T/console.log"
	# four charts: each draws its base (blue) and head (orange) line, points and run bars,
	# the crossover (red, dashed, and its label) and the lecture's size (green: a thin rule
	# 180 px tall, its label)
	for c in 0969da:1500 bc4c00:800 cf222e:800 1a7f37:250; do
		run -0 /usr/bin/python3 "$TESTS_DIR/tools/png_ink.py" "$T/page.png" --pixels "${c%:*}"
		[[ $output =~ pixels=([0-9]+)$ ]]
		echo "${c%:*} ${BASH_REMATCH[1]}"
		[ "${BASH_REMATCH[1]}" -ge "${c#*:}" ]
	done
	# the detector is not blind: without the head's lines and points the orange is nearly gone
	sed "s/stroke='#bc4c00'/stroke='none'/g; s/fill='#bc4c00'/fill='none'/g" "$T/site/index.html" > "$T/nohead.html"
	screenshot "$T/nohead.html" "$T/nohead.png" 1280x2000 "$T/console.log"
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/png_ink.py" "$T/nohead.png" --pixels bc4c00
	[[ $output =~ pixels=([0-9]+)$ ]]
	[ "${BASH_REMATCH[1]}" -lt 300 ]
}
