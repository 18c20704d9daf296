#!/usr/bin/env bats
# The action's third review (issue 41), run the way a runner runs it
# (tests/action/run-action.py over action.yml's own steps, the simulated jobs
# of tests/action/jobs.bash): no program restored from the tools cache ever
# runs (the history job, which holds the write token, restores and installs
# nothing; elsewhere the cached release archive is checked against the
# committed digest before anything of it runs); the zipped fork artifact's
# members are counted as they are written; matrix jobs keep a comment each;
# the Sphinx extension's path is exported with the action off; a bundle of
# another version than the scripts is refused for a source build; the
# history's names carry the weekly build's own run.

load helper
load action/jobs

A="$TESTS_DIR/action"
REPO="$(cd "$TESTS_DIR/.." && pwd)"
PR_EVENT="$A/events/pull_request.json"
PLAT=linux-$(uname -m)

setup_file() {
	W="$BATS_FILE_TMPDIR"
	export W
	runner_and_weekly_build
}

setup() {
	W="$BATS_FILE_TMPDIR"
	gh_state
}


# planted DIR MARK: what a compromised weekly job could leave in the cache:
# every tool a program that touches MARK (and says it is version 0.1.0)
planted() {
	local t
	mkdir -p "$1/bin"
	for t in qe-cache-extract qe-stamp qe-cell-diff qe-comment qe-hook qe-history qe-exec-status qe-sweep; do
		printf '#!/bin/sh\ntouch "%s"\necho "%s 0.1.0"\n' "$2" "$t" > "$1/bin/$t"
		chmod +x "$1/bin/$t"
	done
}

# fake_bundle DIR: a release bundle of the tools (the seed's programs in the
# bundle's one folder), DIR/qe-telemetry-0.1.0-PLAT.tar.gz; sets BUNDLE
fake_bundle() {
	local top=$BATS_TEST_TMPDIR/bundle-src/qe-telemetry-0.1.0-$PLAT
	mkdir -p "$top" "$1"
	cp -a "$W/seed/bin" "$W/seed/share" "$top/"
	tar -C "$BATS_TEST_TMPDIR/bundle-src" -czf "$1/qe-telemetry-0.1.0-$PLAT.tar.gz" "qe-telemetry-0.1.0-$PLAT"
	BUNDLE=$1/qe-telemetry-0.1.0-$PLAT.tar.gz
}

@test "history job (workflow_run, contents: write): a planted tools-cache entry is never restored or run; nothing installed; the report stored under the weekly build's own run id and commit" {
	local mark="$BATS_TEST_TMPDIR/pwned" bare="$BATS_TEST_TMPDIR/remote.git" weekly_sha=abcdefabcdefabcdefabcdefabcdefabcdefabcd
	planted "$BATS_TEST_TMPDIR/planted" "$mark"
	git init -q --bare "$bare"
	mkdir -p "$BATS_TEST_TMPDIR/artifact"
	cp "$W/build-cache/qe-telemetry/report.ndjson" "$BATS_TEST_TMPDIR/artifact/"
	# workflow-run.yml's history job: the event names the weekly run (id, attempt, commit)
	job history workflow_run 70
	jq --arg sha "$weekly_sha" '.workflow_run |= (.id = 17000000555 | .run_attempt = 2 | .event = "schedule" | .head_sha = $sha)' \
		"$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	rm -rf "$WS"
	git clone -q "$bare" "$WS" 2> /dev/null
	# the cache service hands the planted entry to any restore, under any key;
	# the default install (release) would look there first
	run -0 --separate-stderr "$A/run-action.py" "$JOB/state" action "$REPO" --with mode=history \
		--with artifact-dir="$BATS_TEST_TMPDIR/artifact" --seed-cache "$BATS_TEST_TMPDIR/planted"
	refute_output --partial '::warning::'
	assert_output --partial "::notice::qe-telemetry: report stored as reports/"
	[ ! -e "$mark" ]
	run -0 step_outcomes 'restore the release archive|install the tools|save the release archive'
	assert_output $'skipped\nskipped\nskipped'
	[ ! -e "$RUNNER_TEMP/qe-telemetry/tools" ] && [ ! -e "$RUNNER_TEMP/qe-telemetry/tools-archive" ]
	# the name and the commit message carry the weekly run (17000000555, attempt
	# 2, its commit), not this workflow_run run's (17000000070)
	run -0 git --git-dir="$bare" ls-tree -r --name-only qe-telemetry-data
	assert_output --regexp '^reports/[0-9]{4}/[0-9]{2}/[0-9]{8}T[0-9]{6}Z-17000000555\.2\.ndjson\.gz$'
	git --git-dir="$bare" cat-file blob "qe-telemetry-data:$output" | gzip -dc | cmp - "$BATS_TEST_TMPDIR/artifact/report.ndjson"
	run -0 git --git-dir="$bare" log -1 --format=%s qe-telemetry-data
	assert_output "qe-telemetry: report of run 17000000555.2 ($weekly_sha)"
	# history.yml's form (needs: the weekly build, in its own run): that run's own id
	job history-needs schedule 71
	export GITHUB_SHA=$weekly_sha
	rm -rf "$WS"
	git clone -q "$bare" "$WS" 2> /dev/null
	run -0 --separate-stderr "$A/run-action.py" "$JOB/state" action "$REPO" --with mode=history \
		--with artifact-dir="$BATS_TEST_TMPDIR/artifact" --seed-cache "$BATS_TEST_TMPDIR/planted"
	assert_output --partial "::notice::qe-telemetry: report stored as reports/"
	run -0 git --git-dir="$bare" ls-tree -r --name-only qe-telemetry-data
	assert_line --regexp -- '-17000000071\.1\.ndjson\.gz$'
	[ ! -e "$mark" ]
}

@test "the tools cache holds only the release archive: a good one is used after its digest is checked; a tampered one, or a planted folder of programs, is refused before anything of it runs and the bundle downloaded afresh" {
	local mark="$BATS_TEST_TMPDIR/pwned" key t evil good
	fake_bundle "$BATS_TEST_TMPDIR/release"
	action_copy "$BATS_TEST_TMPDIR/action" "$(sha256sum "$BUNDLE" | cut -d' ' -f1)"
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service"
	# first job: downloaded, checked, the archive (only) saved to the cache
	job first schedule 80
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="file://$BATS_TEST_TMPDIR/release"
	refute_output --partial '::warning::'
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=release'
	run -0 ls "$SIM_CACHE"
	assert_output --regexp '^qe-telemetry-tools-Linux-X64-[a-z]+-[0-9.]*-release-archive-v1-[0-9a-f]{16}$'
	key=$output
	run -0 ls -A "$SIM_CACHE/$key"
	assert_output "qe-telemetry-0.1.0-$PLAT.tar.gz"
	cmp "$SIM_CACHE/$key/qe-telemetry-0.1.0-$PLAT.tar.gz" "$BUNDLE"
	# second job: the restored archive, checked, used
	job second schedule 81
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="file://$BATS_TEST_TMPDIR/nowhere"
	refute_output --partial '::warning::'
	run -0 install_outputs
	assert_output $'available=true\nbuilt=false\nmethod=cache'
	# a compromised default-branch job replaces the entry: an archive of the
	# same name whose tools touch the mark, and a folder of programs beside it
	planted "$BATS_TEST_TMPDIR/evil/qe-telemetry-0.1.0-$PLAT" "$mark"
	tar -C "$BATS_TEST_TMPDIR/evil" -czf "$SIM_CACHE/$key/qe-telemetry-0.1.0-$PLAT.tar.gz" "qe-telemetry-0.1.0-$PLAT"
	evil=$(sha256sum "$SIM_CACHE/$key/qe-telemetry-0.1.0-$PLAT.tar.gz" | cut -d' ' -f1)
	good=$(sha256sum "$BUNDLE" | cut -d' ' -f1)
	planted "$SIM_CACHE/$key" "$mark"
	job third schedule 82
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="file://$BATS_TEST_TMPDIR/release"
	assert_line "::warning::qe-telemetry: refused the cached qe-telemetry-0.1.0-$PLAT.tar.gz: its SHA-256 is $evil, action/release.txt says $good (or its tools do not run here); downloading it afresh"
	[ ! -e "$mark" ]
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=release'
	# the tools are the bundle's, nothing of the restore stayed
	for t in qe-cache-extract qe-stamp qe-cell-diff qe-comment qe-hook; do
		[ "$(readlink "$RUNNER_TEMP/qe-telemetry/tools/bin/$t")" = "$(readlink "$W/seed/bin/$t")" ]
	done
	run -0 ls -A "$RUNNER_TEMP/qe-telemetry/tools-archive"
	assert_output "qe-telemetry-0.1.0-$PLAT.tar.gz"
	# only the folder of programs restored (no archive): not run either
	rm -f "$SIM_CACHE/$key/qe-telemetry-0.1.0-$PLAT.tar.gz"
	job fourth schedule 83
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="file://$BATS_TEST_TMPDIR/release"
	assert_line "::notice::qe-telemetry: the restored tools cache holds no qe-telemetry-0.1.0-$PLAT.tar.gz; downloading it"
	[ ! -e "$mark" ]
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=release'
}

@test "a release bundle of another version than the action's scripts (a commit between releases) is a warning and a source build; the tools then match the scripts" {
	fake_bundle "$BATS_TEST_TMPDIR/release"
	action_copy "$BATS_TEST_TMPDIR/action" "$(sha256sum "$BUNDLE" | cut -d' ' -f1)"
	# the scripts moved on to 0.2.0; action/release.txt still names 0.1.0's bundle
	sed -i 's/^#define QE_VERSION ".*"$/#define QE_VERSION "0.2.0"/' "$BATS_TEST_TMPDIR/action/lib/qe.h"
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service"
	job mismatch schedule 90
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="file://$BATS_TEST_TMPDIR/release"
	assert_line "::warning::qe-telemetry: action/release.txt names the bundle of version 0.1.0, but these scripts are version 0.2.0 (a commit between releases?): building the tools from source, so that tools and scripts match"
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=source'
	run -0 "$RUNNER_TEMP/qe-telemetry/tools/bin/qe-comment" --version
	assert_output "qe-comment 0.2.0"
	# install: path:DIR with tools of another version: a warning, used
	job mismatch-path schedule 91
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with install="path:$W/seed"
	assert_line "::warning::qe-telemetry: install: path:$W/seed: the tools there are version '0.1.0', these scripts 0.2.0: an option they lack is a warning later"
	run -0 install_outputs
	assert_output $'available=true\nbuilt=false\nmethod=path'
}

# render_zip ZIP: the render job (no write token) over the zipped artifact
render_zip() {
	local sha=6666666666666666666666666666666666666666
	job "render-$RANDOM" workflow_run 36
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	mkdir -p "$BATS_TEST_TMPDIR/zipped"
	rm -f "$BATS_TEST_TMPDIR"/zipped/*
	cp "$1" "$BATS_TEST_TMPDIR/zipped/qe-telemetry-report.zip"
	run -0 --separate-stderr act render --with artifact-dir="$BATS_TEST_TMPDIR/zipped" --with github-token=
}

@test "the zipped fork artifact: a member listed twice, and one whose size header lies (300 MiB of zeros declared as 100 bytes), are refused within the byte cap" {
	command -v unzip > /dev/null || skip "unzip is not installed"
	local sha=6666666666666666666666666666666666666666 z="$BATS_TEST_TMPDIR/zips"
	mkdir -p "$z"
	cp "$(fixture qe-comment)/environment.ndjson" "$BATS_TEST_TMPDIR/diff.ndjson"
	/usr/bin/python3 - "$z" "$sha" "$BATS_TEST_TMPDIR/diff.ndjson" <<-'EOF'
	import struct, sys, warnings, zipfile
	z, sha, diff = sys.argv[1:]
	pr = '{"pr":46,"head_sha":"%s"}\n' % sha
	warnings.simplefilter("ignore")
	# a member twice: the second pr.json names another pull request
	with zipfile.ZipFile(z + "/dup.zip", "w", zipfile.ZIP_DEFLATED) as f:
	    f.writestr("pr.json", pr)
	    f.writestr("diff.ndjson", open(diff).read())
	    f.writestr("pr.json", pr.replace("46", "47"))
	# 300 MiB of zeros deflated (about 300 KB), both size headers saying 100 bytes
	with zipfile.ZipFile(z + "/liar.zip", "w", zipfile.ZIP_DEFLATED) as f:
	    f.writestr("pr.json", pr)
	    with f.open("diff.ndjson", "w") as m:
	        block = b"\0" * (1 << 20)
	        for _ in range(300):
	            m.write(block)
	data = bytearray(open(z + "/liar.zip", "rb").read())
	patched = 0
	for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
	    i = data.find(sig)
	    while i >= 0:
	        name_at = i + (30 if sig == b"PK\x03\x04" else 46)
	        if data[name_at:name_at + 11] == b"diff.ndjson":
	            data[i + off:i + off + 4] = struct.pack("<I", 100)
	            patched += 1
	        i = data.find(sig, i + 4)
	assert patched == 2, patched
	open(z + "/liar.zip", "wb").write(data)
	EOF
	run -0 unzip -Z1 "$z/dup.zip"
	assert_output $'pr.json\ndiff.ndjson\npr.json'
	# the central directory says 100 bytes: a check of the declared size passes it
	run -0 bash -c "unzip -Zl '$z/liar.zip' diff.ndjson | awk 'NR == 1 { print \$4 }'"
	assert_output 100
	[ "$(stat -c %s "$z/liar.zip")" -lt $((1024 * 1024)) ]

	render_zip "$z/dup.zip"
	assert_output --partial "::warning::qe-telemetry: the artifact holds pr.json 2 times: not posting"
	[ ! -e "$JOB/state/artifacts/qe-telemetry-rendered" ]
	render_zip "$z/liar.zip"
	assert_output --partial "::warning::qe-telemetry: the artifact's diff.ndjson unpacks to over 32 MiB: not posting"
	[ ! -e "$JOB/state/artifacts/qe-telemetry-rendered" ]
	# nothing past the cap was written, and nothing of it stays
	run -0 find "$RUNNER_TEMP" -type f -size +33M
	assert_output ""
	[ ! -e "$RUNNER_TEMP/qe-telemetry/artifact-in/diff.ndjson" ]
	run -0 conclusion
	assert_output success
	# the same artifact unzipped honestly is rendered (the check refuses only the lies)
	(cd "$BATS_TEST_TMPDIR" && printf '{"pr":46,"head_sha":"%s"}\n' "$sha" > pr.json && zip -q "$z/good.zip" pr.json diff.ndjson)
	jq -n --arg sha "$sha" '{number: 46, user: {login: "someone"}, head: {sha: $sha, repo: {full_name: "someone/lecture-demo"}}}' > "$GH_STATE/pulls/46.json"
	render_zip "$z/good.zip"
	refute_output --partial '::warning::'
	[ -s "$JOB/state/artifacts/qe-telemetry-rendered/comment.md" ]
}

@test "a matrix of two jobs without comment-key: two comments and two artifacts (the default key names the matrix values); each edited in place" {
	pr_job matrix 55 40 QuantEcon/lecture-demo 0.6
	local a='{"python": "3.11"}' b='{"python": "3.12"}' ka kb
	ka=$(printf 'ci/preview/%s' "$(jq '.' <<< "$a")" | sha256sum | cut -c1-12)
	kb=$(printf 'ci/preview/%s' "$(jq '.' <<< "$b")" | sha256sum | cut -c1-12)
	[ "$ka" != "$kb" ]
	SIM_MATRIX=$a run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment created on #55"
	SIM_MATRIX=$b run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment created on #55"
	run -0 jq length "$GH_STATE/comments.json"
	assert_output 2
	run -0 jq -r '.[].body | split("\n")[0] | capture("\"key\":\"(?<k>[0-9a-f]{12})\"").k' "$GH_STATE/comments.json"
	assert_output "$ka"$'\n'"$kb"
	# each leg's own report artifact (overwrite: true would have replaced one by the other)
	[ -s "$JOB/state/artifacts/qe-telemetry-report-$ka/report.ndjson" ]
	[ -s "$JOB/state/artifacts/qe-telemetry-report-$kb/report.ndjson" ]
	# leg a again: its own comment updated, two in all
	SIM_MATRIX=$a run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment updated on #55"
	run -0 jq length "$GH_STATE/comments.json"
	assert_output 2
	# outside a matrix: the key and artifact name of before (workflow and job)
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment created on #55"
	run -0 marker 2
	assert_output --partial "\"key\":\"$(printf '%s' ci/preview | sha256sum | cut -c1-12)\""
	[ -s "$JOB/state/artifacts/qe-telemetry-report/report.ndjson" ]
}

@test "the action off (not a Linux runner, or a wrong mode): the build with the Sphinx extension and -W still passes (QE_TELEMETRY_PYTHON is exported)" {
	/usr/bin/python3 -c 'import sphinx' 2> /dev/null || skip "python3-sphinx is not installed"
	local book="$BATS_TEST_TMPDIR/book" why
	mkdir -p "$book"
	printf 'extensions = ["qe_telemetry.sphinx"]\nproject = "demo"\n' > "$book/conf.py"
	printf 'Demo\n====\n\nA lecture.\n' > "$book/index.rst"
	# the documented build step: the extension's package from the action
	local cmd='PYTHONPATH="$QE_TELEMETRY_PYTHON" /usr/bin/python3 -m sphinx -q -W -b html '"$book $BATS_TEST_TMPDIR/html"
	for why in macos mode; do
		job "off-$why" schedule 95
		rm -rf "$BATS_TEST_TMPDIR/html"
		if [ "$why" = macos ]; then
			RUNNER_OS=macOS run -0 --separate-stderr act_build "$cmd"
			assert_output --partial "::notice::qe-telemetry: runs on Linux runners only (this one is macOS): the action does nothing here; the build is not affected"
		else
			run -0 --separate-stderr act_build "$cmd" --with mode=during
			assert_output --partial "::warning::qe-telemetry: input mode: expected build (or none, with run)"
		fi
		run -0 jq -r 'select(.step == "qe-telemetry - the build (run)") | .outcome' "$JOB/state/steps.ndjson"
		assert_output success
		[ -s "$BATS_TEST_TMPDIR/html/index.html" ]
		run -0 conclusion
		assert_output success
	done
}
