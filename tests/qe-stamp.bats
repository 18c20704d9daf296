#!/usr/bin/env bats
# qe-stamp in a simulated GitHub Actions job (variables, event payload, a git
# workspace whose HEAD is not GITHUB_SHA, a fake nvidia-smi, conda and pip
# lists) and outside GitHub. Every run starts from `env -i`, so nothing of the
# machine's own environment leaks in; machine facts are read here
# independently of qe-stamp and compared.

load helper

setup() {
	T="$BATS_TEST_TMPDIR"
	F="$(fixture qe-stamp)"
	HEAD_SHA=c2cbd05e5edca6d878c0db961d49ad38e3bdaa2d
	BASE_SHA=fccf6e2d100eb614d831fe7c54b8a5e8843da6f5
	MERGE_SHA=9d4f6e0b5a3c2e1f0a9b8c7d6e5f4a3b2c1d0e9f
	RUNSON='runs-on=17012345678/family=g4dn.2xlarge/image=quantecon_ubuntu2404/volume=80gb/spot=false'
	RUNSON_CLASS='family=g4dn.2xlarge/image=quantecon_ubuntu2404/volume=80gb/spot=false'

	# the machine, as this test sees it
	DISTRO=$(. /etc/os-release && printf '%s%s' "$ID" "${VERSION_ID:+-$VERSION_ID}")
	NCPU=$(getconf _NPROCESSORS_ONLN)
	USABLE=$(/usr/bin/python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
	CPU=$(sed -n 's/^model name[[:blank:]]*:[[:blank:]]*//p' /proc/cpuinfo | head -n 1 | tr -s '\t ' '  ' | sed 's/ *$//')
	MEM=$(( $(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' /proc/meminfo) * 1024 ))
	TOOLPATH=$PATH

	# A pull-request job on a RunsOn GPU runner: what the runner sets, plus
	# two secrets and an unrelated variable that must never be copied.
	GH=(
		PATH="$F/bin:$TOOLPATH" HOME="$HOME" GIT_CEILING_DIRECTORIES="$T"
		CI=true GITHUB_ACTIONS=true
		GITHUB_REPOSITORY=QuantEcon/lecture-python.myst
		GITHUB_SHA=$MERGE_SHA GITHUB_REF=refs/pull/42/merge
		GITHUB_HEAD_REF=fix-jax GITHUB_BASE_REF=main
		GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$F/event-pull_request.json"
		GITHUB_WORKSPACE="$T/ws"
		GITHUB_WORKFLOW='Build Project [using jupyter-book]'
		GITHUB_WORKFLOW_REF='QuantEcon/lecture-python.myst/.github/workflows/ci.yml@refs/pull/42/merge'
		GITHUB_RUN_ID=17012345678 GITHUB_RUN_NUMBER=1234 GITHUB_RUN_ATTEMPT=2 GITHUB_JOB=preview
		RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_ENVIRONMENT=self-hosted
		RUNNER_NAME=runs-on--i-0a1b2c3d4e5f67890--AbCdEf1234
		GITHUB_TOKEN=ghs_SECRETtokenSECRETtokenSECRET
		AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiSECRETKEY
		UNRELATED=do-not-copy
		JAX_ENABLE_X64=1
	)
	# The same options a lecture workflow would pass.
	OPTS=(-r "$RUNSON" -f environment.yml -c "$F/conda-list.json" -p "$F/pip-list.json"
		-m "$F/quantecon-container" -v JAX_ENABLE_X64 -v XLA_PYTHON_CLIENT_PREALLOCATE)
}

workspace() {
	"$F/make-workspace.sh" "$T/ws" >/dev/null
	cd "$T/ws"
}

# gh_stamp ARGS...: qe-stamp in the simulated PR job; output in $T/out
gh_stamp() {
	env -i "${GH[@]}" qe-stamp "$@" > "$T/out"
}

# field [JQ-OPTION...] FILTER: compact jq over the first output record
field() {
	jq -c "$@" < <(head -n 1 "$T/out")
}

@test "PR build: source has the commit built (HEAD), GITHUB_SHA apart, PR from the payload" {
	workspace
	run -0 git rev-parse HEAD
	assert_output "$HEAD_SHA"
	run -0 --separate-stderr gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	assert_equal "$stderr" ""
	run -0 field .provenance.source
	assert_output "{\"repository\":\"QuantEcon/lecture-python.myst\",\"commit\":\"$HEAD_SHA\",\"github_sha\":\"$MERGE_SHA\",\"event\":\"pull_request\",\"ref\":\"refs/pull/42/merge\",\"pr\":42,\"head_ref\":\"fix-jax\",\"head_sha\":\"$HEAD_SHA\",\"base_ref\":\"main\",\"base_sha\":\"$BASE_SHA\"}"
	run -0 field .provenance.tool
	assert_output '"qe-stamp 0.1.0"'
}

@test "PR build: run ids, and stamped_at is now" {
	workspace
	before=$(date -u +%Y-%m-%dT%H:%M:%S)
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	after=$(date -u +%Y-%m-%dT%H:%M:%S.999999Z)
	run -0 field '.provenance.run | del(.stamped_at)'
	assert_output '{"workflow":"Build Project [using jupyter-book]","workflow_ref":"QuantEcon/lecture-python.myst/.github/workflows/ci.yml@refs/pull/42/merge","run_id":"17012345678","run_number":1234,"run_attempt":2,"job":"preview","build_id":"QuantEcon/lecture-python.myst/17012345678/2"}'
	stamped=$(field -r .provenance.run.stamped_at)
	[[ $stamped =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$ ]]
	[[ ! $stamped < $before && ! $stamped > $after ]]
	run -0 field '.provenance.run | keys_unsorted | last'
	assert_output '"stamped_at"'
}

@test "PR build: runner (RunsOn label without its run id) and hardware with the GPU" {
	workspace
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	run -0 field .provenance.runner
	assert_output "$(jq -nc --arg d "$DISTRO" --arg k "$(uname -r)" --arg a "$(uname -m)" --arg l "$RUNSON" --arg c "$RUNSON_CLASS" \
		'{os:"Linux", distro:$d, kernel:$k, arch:$a, name:"runs-on--i-0a1b2c3d4e5f67890--AbCdEf1234", hosted:"self-hosted", class:$c, label:$l}')"
	run -0 field .provenance.hardware
	assert_output "$(jq -nc --arg cpu "$CPU" --argjson n "$NCPU" --argjson u "$USABLE" --argjson m "$MEM" \
		'(if $cpu == "" then {} else {cpu_model:$cpu} end) + {logical_cpus:$n}
		 + (if $u == $n then {} else {usable_cpus:$u} end)
		 + {memory_bytes:$m, gpus:[{name:"Tesla T4", memory_bytes:16106127360, driver_version:"580.13.03"}]}')"
}

@test "PR build: environment files and the hashFiles() digest, computed here independently" {
	workspace
	gh_stamp "${OPTS[@]}" -f requirements.txt "$F/records.ndjson"
	run -0 field .provenance.environment.files
	assert_output "[{\"path\":\"environment.yml\",\"sha256\":\"$(sha256sum environment.yml | cut -c1-64)\"},{\"path\":\"requirements.txt\",\"sha256\":\"$(sha256sum requirements.txt | cut -c1-64)\"}]"
	# hashFiles(): SHA-256 over the files' raw 32-byte digests, in order
	expected=$(/usr/bin/python3 -c 'import hashlib, sys
print(hashlib.sha256(b"".join(hashlib.sha256(open(f, "rb").read()).digest() for f in sys.argv[1:])).hexdigest())' environment.yml requirements.txt)
	run -0 field -r .provenance.environment.hash_files
	assert_output "$expected"
	run -0 bash -c '{ sha256sum environment.yml requirements.txt | cut -c1-64 | xxd -r -p; } | sha256sum | cut -c1-64'
	assert_output "$expected"

	# one file: hashFiles('environment.yml') is not its sha256sum
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	run -0 bash -c 'sha256sum environment.yml | cut -c1-64 | xxd -r -p | sha256sum | cut -c1-64'
	assert_equal "$(field -r .provenance.environment.hash_files)" "$output"
	refute_output "$(sha256sum environment.yml | cut -c1-64)"
	# the same shell method gives GitHub's value for lecture-python.myst's
	# environment.yml at 40e15dc (shared/docs/lecture-builds.md section 7)
	run -0 bash -c 'echo 5a443aa0dc442b8bc8bdb63c2c35fc82337e10301335af797b5f825ddb002e9e | xxd -r -p | sha256sum | cut -c1-64'
	assert_output 425906a0608fa4c3f66a59a2b83c68f9b7de1070ba0c2db3bcd8ca784f6ba499
}

@test "PR build: packages merged from the conda and pip lists, pip winning, key ones kept" {
	workspace
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	# conda list says jax 0.7.0 (before `pip install -U jax`), pip list 0.7.2
	run -0 field .provenance.environment.packages
	assert_output '{"ipykernel":"6.29.5","jax":"0.7.2","jaxlib":"0.7.2","jupyter-book":"1.0.4.post1","jupyter-cache":"1.0.1","myst-nb":"1.3.0","nbclient":"0.10.2","numba":"0.61.2","numpy":"2.3.1","numpyro":"0.19.0","python":"3.13.5","quantecon":"0.8.2","scipy":"1.16.0"}'
	# count and digest of every package, merged here independently
	run -0 /usr/bin/python3 -c 'import hashlib, json, re, sys
m = {}
for f in sys.argv[1:]:
    for e in json.load(open(f)):
        m[re.sub(r"[-_.]+", "-", e["name"]).lower()] = e["version"]
print(len(m), hashlib.sha256("".join(k + "==" + m[k] + "\n" for k in sorted(m)).encode()).hexdigest())' "$F/conda-list.json" "$F/pip-list.json"
	assert_output "24 $(field -r .provenance.environment.packages_sha256)"
	run -0 field .provenance.environment.package_count
	assert_output 24
}

@test "PR build: marker and the named variables only; secrets and other variables never copied" {
	workspace
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	run -0 field .provenance.environment.marker
	assert_output '{"image":"quantecon_ubuntu2404","variant":"gpu","build_date":"2026-02-09T12:00:00+00:00","nvidia_driver":"580.13.03"}'
	# XLA_PYTHON_CLIENT_PREALLOCATE was named but is not set: left out
	run -0 field .provenance.environment.variables
	assert_output '{"JAX_ENABLE_X64":"1"}'
	run -0 field '.provenance.environment | keys_unsorted'
	assert_output '["files","hash_files","packages","package_count","packages_sha256","marker","variables"]'
	run -1 grep -c -e SECRET -e do-not-copy -e ghp_ -e GITHUB_TOKEN "$T/out"
}

@test "fingerprint: recomputed from its facts; the descriptor digest ignores only stamped_at" {
	workspace
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	run -0 field .provenance.fingerprint_facts
	assert_output "$(jq -nc --arg c "$RUNSON_CLASS" --arg cpu "$CPU" \
		'{runner_class:$c} + (if $cpu == "" then {} else {cpu_model:$cpu} end)
		 + {gpus:["Tesla T4"], packages:{jax:"0.7", jaxlib:"0.7", numba:"0.61", numpy:"2.3", numpyro:"0.19", python:"3.13", quantecon:"0.8", scipy:"1.16"}}')"
	fp=$(head -n 1 "$T/out" | jq -cj .provenance.fingerprint_facts | sha256sum | cut -c1-16)
	run -0 field -r .provenance.fingerprint
	assert_output "$fp"
	digest=$(head -n 1 "$T/out" | jq -cj '.provenance | del(.run.stamped_at, .descriptor_sha256)' | sha256sum | cut -c1-64)
	run -0 field -r .provenance.descriptor_sha256
	assert_output "$digest"
	run -0 field '.provenance | keys_unsorted'
	assert_output '["tool","source","run","runner","hardware","environment","fingerprint","fingerprint_facts","descriptor_sha256"]'

	# stamped again: same digest and fingerprint, a later stamped_at
	cp "$T/out" "$T/first"
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	assert_equal "$(field -r .provenance.descriptor_sha256)" "$digest"
	assert_equal "$(field -r .provenance.fingerprint)" "$fp"
	[[ $(field -r .provenance.run.stamped_at) > $(head -n 1 "$T/first" | jq -r .provenance.run.stamped_at) ]]
}

@test "records keep their bytes and key order; provenance last and the same on every line; valid" {
	workspace
	run -0 --separate-stderr gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	assert_equal "$stderr" ""
	run -0 diff "$F/records.ndjson" <(sed 's/,"provenance":{.*}$/}/' "$T/out")
	run -0 jq -r '.provenance | tojson' "$T/out"
	assert_equal "$(sort -u <<< "$output" | wc -l)" 1
	assert_equal "${#lines[@]}" 8
	run -0 jq -r 'keys_unsorted | last' "$T/out"
	assert_equal "$(sort -u <<< "$output")" provenance
	run -0 validate "$T/out"
}

@test "a GPU whose name is not UTF-8 is left out of the hardware and the fingerprint (was: out of memory, exit 2)" {
	mkdir "$T/plain" && cd "$T/plain"
	printf 'Tesla T4\377, 15360, 580.13.03\nNVIDIA A100-SXM4-40GB, 40960, 580.13.03\n' > gpus.csv
	run -0 --separate-stderr env -i PATH="$F/bin:$TOOLPATH" HOME="$HOME" FAKE_GPUS="$T/plain/gpus.csv" \
		qe-stamp "$F/records.ndjson"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 field -c '[.provenance.hardware.gpus, .provenance.fingerprint_facts.gpus]'
	assert_output '[[{"name":"NVIDIA A100-SXM4-40GB","memory_bytes":42949672960,"driver_version":"580.13.03"}],["NVIDIA A100-SXM4-40GB"]]'
	run -0 validate "$T/out"
}

@test "weekly build on main: HEAD is GITHUB_SHA, so no github_sha; no PR fields" {
	workspace
	GH+=(GITHUB_SHA=$HEAD_SHA GITHUB_REF=refs/heads/main GITHUB_HEAD_REF= GITHUB_BASE_REF=
		GITHUB_EVENT_NAME=schedule GITHUB_EVENT_PATH="$F/event-schedule.json" GITHUB_JOB=cache)
	run -0 --separate-stderr gh_stamp -r "$RUNSON" "$F/records.ndjson"
	run -0 field .provenance.source
	assert_output "{\"repository\":\"QuantEcon/lecture-python.myst\",\"commit\":\"$HEAD_SHA\",\"event\":\"schedule\",\"ref\":\"refs/heads/main\"}"
	run -0 validate "$T/out"
}

@test "GitHub-hosted runner: derived class, image facts; no GPU when nvidia-smi fails" {
	workspace
	GH+=(RUNNER_ENVIRONMENT=github-hosted RUNNER_NAME='GitHub Actions 1000000123'
		ImageOS=ubuntu24 ImageVersion=20261123.1.0 FAKE_NVIDIA_SMI_EXIT=6)
	run -0 --separate-stderr gh_stamp "$F/records.ndjson"
	assert_equal "$stderr" ""
	run -0 field .provenance.runner
	assert_output "$(jq -nc --arg d "$DISTRO" --arg k "$(uname -r)" --arg a "$(uname -m)" --arg c "github-hosted/$DISTRO/${NCPU}cpu" \
		'{os:"Linux", distro:$d, kernel:$k, arch:$a, name:"GitHub Actions 1000000123", hosted:"github-hosted", image:"ubuntu24", image_version:"20261123.1.0", class:$c}')"
	run -0 field '.provenance.hardware | has("gpus")'
	assert_output false
	run -0 field '.provenance.fingerprint_facts | keys_unsorted'
	if [[ -n $CPU ]]; then assert_output '["runner_class","cpu_model"]'; else assert_output '["runner_class"]'; fi
	run -0 field '.provenance | has("environment")'
	assert_output false
	run -0 validate "$T/out"
}

@test "two GPUs, one reporting [N/A] memory and driver" {
	workspace
	GH+=(FAKE_GPUS="$F/gpus-a100x2.csv")
	gh_stamp -r "$RUNSON" "$F/records.ndjson"
	run -0 field .provenance.hardware.gpus
	assert_output '[{"name":"NVIDIA A100-SXM4-40GB","memory_bytes":42949672960,"driver_version":"550.54.15"},{"name":"NVIDIA A100-SXM4-40GB"}]'
	run -0 field .provenance.fingerprint_facts.gpus
	assert_output '["NVIDIA A100-SXM4-40GB","NVIDIA A100-SXM4-40GB"]'
	run -0 validate "$T/out"
}

@test "outside GitHub, in a plain directory: machine facts only, nothing guessed; valid" {
	mkdir "$T/plain" && cd "$T/plain"
	run -0 --separate-stderr env -i PATH="$TOOLPATH" HOME="$HOME" GIT_CEILING_DIRECTORIES="$T" \
		qe-stamp "$F/records.ndjson"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 field '.provenance | keys_unsorted'
	if [[ -r /etc/quantecon-container ]]; then
		assert_output '["tool","run","runner","hardware","environment","fingerprint","fingerprint_facts","descriptor_sha256"]'
	else
		assert_output '["tool","run","runner","hardware","fingerprint","fingerprint_facts","descriptor_sha256"]'
	fi
	run -0 field '.provenance.run | keys_unsorted'
	assert_output '["stamped_at"]'
	run -0 field .provenance.runner
	assert_output "$(jq -nc --arg d "$DISTRO" --arg k "$(uname -r)" --arg a "$(uname -m)" --arg c "local/$DISTRO/${NCPU}cpu" \
		'{os:"Linux", distro:$d, kernel:$k, arch:$a, class:$c}')"
	run -0 field '.provenance.hardware | del(.gpus)'
	assert_output "$(jq -nc --arg cpu "$CPU" --argjson n "$NCPU" --argjson u "$USABLE" --argjson m "$MEM" \
		'(if $cpu == "" then {} else {cpu_model:$cpu} end) + {logical_cpus:$n}
		 + (if $u == $n then {} else {usable_cpus:$u} end) + {memory_bytes:$m}')"
	if ! command -v nvidia-smi >/dev/null; then
		run -0 field '.provenance.hardware | has("gpus")'
		assert_output false
	fi
	run -0 validate "$T/out"
}

@test "outside GitHub: commit of the current checkout; --workspace overrides GITHUB_WORKSPACE" {
	workspace
	run -0 --separate-stderr env -i PATH="$TOOLPATH" HOME="$HOME" qe-stamp "$F/records.ndjson"
	printf '%s\n' "$output" > "$T/out"
	run -0 field .provenance.source
	assert_output "{\"commit\":\"$HEAD_SHA\"}"

	mkdir "$T/elsewhere" && cd "$T/elsewhere"
	GH+=(GITHUB_WORKSPACE="$T/elsewhere")
	gh_stamp -w "$T/ws" "$F/records.ndjson"
	run -0 field -r .provenance.source.commit
	assert_output "$HEAD_SHA"
	# without it the workspace is no repository: commit unknown, GITHUB_SHA kept
	gh_stamp "$F/records.ndjson"
	run -0 field -c '.provenance.source | [has("commit"), .github_sha]'
	assert_output "[false,\"$MERGE_SHA\"]"
}

@test "build identity: --started gives run.started_at, build_id is repository/run_id/attempt; in the descriptor digest" {
	workspace
	gh_stamp "${OPTS[@]}" -t 2026-11-30T06:01:02.5+01:00 "$F/records.ndjson"
	run -0 field -c '.provenance.run | [.build_id, .started_at]'
	assert_output '["QuantEcon/lecture-python.myst/17012345678/2","2026-11-30T05:01:02.500000Z"]'
	run -0 validate "$T/out"
	local d1 d2
	d1=$(field -r .provenance.descriptor_sha256)
	gh_stamp "${OPTS[@]}" -t 2026-11-30T06:01:03Z "$F/records.ndjson"
	d2=$(field -r .provenance.descriptor_sha256)
	[ "$d1" != "$d2" ]
	# another attempt of the same run is another build
	GH=("${GH[@]/#GITHUB_RUN_ATTEMPT=*/GITHUB_RUN_ATTEMPT=3}")
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	run -0 field -r '.provenance.run | [.build_id, has("started_at")] | @tsv'
	assert_output "QuantEcon/lecture-python.myst/17012345678/3	false"
	# without a repository there is no build id
	run -0 bash -c 'env -i GITHUB_RUN_ID=5 GITHUB_RUN_ATTEMPT=1 PATH="$PATH" qe-stamp -d -m /dev/null | jq -c .run.build_id'
	assert_output null
	run -2 --separate-stderr qe-stamp -t yesterday -d
	assert_equal "${stderr_lines[0]}" "qe-stamp: 'yesterday': not a time"
}

@test "--python-version records python (pip never lists it); a conda list's python wins" {
	workspace
	gh_stamp -P 3.12.7 -p "$F/pip-list.json" "$F/records.ndjson"
	run -0 field -c '[.provenance.environment.packages.python, .provenance.fingerprint_facts.packages.python]'
	assert_output '["3.12.7","3.12"]'
	gh_stamp -P 3.12.7 -c "$F/conda-list.json" -p "$F/pip-list.json" "$F/records.ndjson"
	run -0 field -c '[.provenance.environment.packages.python, .provenance.fingerprint_facts.packages.python]'
	assert_output '["3.13.5","3.13"]'
	# the version alone is an environment too
	gh_stamp -P 3.11.2 "$F/records.ndjson"
	run -0 field -c '[.provenance.environment.packages, .provenance.environment.package_count]'
	assert_output '[{"python":"3.11.2"},1]'
	run -0 validate "$T/out"
	run -2 --separate-stderr qe-stamp -P '' -d
	assert_equal "${stderr_lines[0]}" "qe-stamp: empty Python version"
}

@test "-k names the key packages (comma lists too); -a keeps every package" {
	workspace
	gh_stamp -c "$F/conda-list.json" -p "$F/pip-list.json" -k NumPy -k jax,Typing_Extensions "$F/records.ndjson"
	run -0 field .provenance.environment.packages
	assert_output '{"ipykernel":"6.29.5","jax":"0.7.2","jupyter-book":"1.0.4.post1","jupyter-cache":"1.0.1","myst-nb":"1.3.0","nbclient":"0.10.2","numpy":"2.3.1","typing-extensions":"4.14.1"}'
	run -0 field .provenance.fingerprint_facts.packages
	assert_output '{"jax":"0.7","numpy":"2.3","typing-extensions":"4.14"}'

	gh_stamp -a -p "$F/pip-list.json" "$F/records.ndjson"
	run -0 field '.provenance.environment.packages | keys | join(" ")'
	assert_output '"anaconda-client ipykernel jax jax-cuda13-pjrt jax-cuda13-plugin jaxlib jupyter-book jupyter-cache matplotlib myst-nb nbclient numba numpy numpyro pandas pip pyyaml quantecon quantecon-book-theme scipy typing-extensions"'
	run -0 field .provenance.environment.package_count
	assert_output 21
	# only pip's list: no python version, so none in the fingerprint
	run -0 field '.provenance.fingerprint_facts.packages | has("python")'
	assert_output false
}

@test "an already stamped record is an error: line skipped, the others flow, exit 2" {
	run -2 --separate-stderr env -i PATH="$TOOLPATH" HOME="$HOME" qe-stamp "$F/stamped.ndjson"
	assert_equal "$stderr" "qe-stamp: $F/stamped.ndjson:2: record already stamped
qe-stamp: 1 line rejected"
	assert_equal "${#lines[@]}" 2
	run -0 jq -c '[.kind, .index, (.provenance.runner.class | startswith("local/"))]' <<< "$output"
	assert_output $'["notebook",null,true]\n["cell",1,true]'
}

@test "--replace: the old provenance goes, the new one comes last" {
	run -0 --separate-stderr env -i PATH="$TOOLPATH" HOME="$HOME" qe-stamp -R "$F/stamped.ndjson"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -r '[keys_unsorted[-3:][], .provenance.runner.class] | join(" ")' "$T/out"
	assert_equal "${lines[1]}" "start end provenance local/$DISTRO/${NCPU}cpu"
	run -0 jq -r .provenance.descriptor_sha256 "$T/out"
	assert_equal "$(sort -u <<< "$output" | wc -l)" 1
	run -0 validate "$T/out"
}

@test "--describe prints the descriptor alone as one provenance record" {
	workspace
	run -0 --separate-stderr env -i "${GH[@]}" qe-stamp --describe "${OPTS[@]}"
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 1
	printf '%s\n' "$output" > "$T/describe"
	run -0 jq -c '[.kind, .schema_version, (keys_unsorted | .[2])]' "$T/describe"
	assert_output '["provenance",1,"tool"]'
	run -0 validate "$T/describe"
	gh_stamp "${OPTS[@]}" "$F/records.ndjson"
	assert_equal "$(jq -c 'del(.kind, .schema_version, .run.stamped_at)' "$T/describe")" \
		"$(field '.provenance | del(.run.stamped_at)')"

	run -2 --separate-stderr qe-stamp -d "$F/records.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-stamp: --describe reads no input"
	assert_equal "${stderr_lines[1]}" "usage: qe-stamp [-adhR] [-c conda-list] [-f env-file] [-k package] [-m marker]"
	assert_output ""
}

@test "the descriptor is collected once: one nvidia-smi call for 20000 records" {
	workspace
	GH+=(FAKE_NVIDIA_SMI_LOG="$T/calls")
	for i in $(seq 2500); do cat "$F/records.ndjson"; done > "$T/many.ndjson"
	run -0 --separate-stderr gh_stamp "${OPTS[@]}" "$T/many.ndjson"
	run -0 wc -l < "$T/calls"
	assert_output 1
	run -0 wc -l < "$T/out"
	assert_output 20000
	run -0 bash -c "jq -c .provenance '$T/out' | sort -u | wc -l"
	assert_output 1
}

@test "reads stdin, '-' and several files as one stream; an empty object gets provenance too" {
	run -0 --separate-stderr env -i PATH="$TOOLPATH" HOME="$HOME" qe-stamp <<< '{}'
	run -0 jq -c 'keys_unsorted' <<< "$output"
	assert_output '["provenance"]'
	run -0 --separate-stderr bash -c "printf '{\"a\":1}\n' | qe-stamp '$F/records.ndjson' - '$F/records.ndjson' | jq -c '.a // .kind'"
	assert_equal "${#lines[@]}" 17
	assert_equal "${lines[8]}" 1
}

@test "named sources that cannot be read are reported and left out; records still flow, exit 2" {
	mkdir "$T/plain" && cd "$T/plain"
	printf '{"name": "numpy", "version": "2.3.1"}\n' > not-a-list.json
	printf '[{"name": "numpy", "version": "2.3.1"},\n' > truncated.json
	run -2 --separate-stderr env -i PATH="$TOOLPATH" HOME="$HOME" qe-stamp -f environment.yml \
		-c not-a-list.json -p truncated.json -m no-marker "$F/records.ndjson"
	assert_equal "$stderr" "qe-stamp: environment.yml: No such file or directory
qe-stamp: not-a-list.json: not a JSON array of packages
qe-stamp: truncated.json: invalid JSON
qe-stamp: no-marker: No such file or directory"
	assert_equal "${#lines[@]}" 8
	printf '%s\n' "$output" > "$T/out"
	run -0 field '.provenance | has("environment")'
	assert_output false
	run -0 validate "$T/out"
}

@test "-h prints usage on stdout; --version; a bad option or missing argument exits 2" {
	usage='usage: qe-stamp [-adhR] [-c conda-list] [-f env-file] [-k package] [-m marker]
                [-P python-version] [-p pip-list] [-r class] [-t time] [-v name]
                [-w workspace] [--version] [--max-line bytes] [file ...]'
	run -0 --separate-stderr qe-stamp -h
	assert_output "$usage"
	assert_equal "$stderr" ""
	run -0 --separate-stderr qe-stamp --help
	assert_output "$usage"
	run -0 --separate-stderr qe-stamp --version
	assert_output "qe-stamp 0.1.0"
	run -2 --separate-stderr qe-stamp --bogus
	assert_output ""
	assert_equal "$stderr" "qe-stamp: unrecognized option '--bogus'
$usage"
	run -2 --separate-stderr qe-stamp -k
	assert_equal "${stderr_lines[0]}" "qe-stamp: option requires an argument -- 'k'"
	run -2 --separate-stderr qe-stamp -v A=B
	assert_equal "${stderr_lines[0]}" "qe-stamp: 'A=B': not a variable name"
	run -2 --separate-stderr qe-stamp -r ''
	assert_equal "${stderr_lines[0]}" "qe-stamp: empty runner class"
}

@test "qe-stamp(1) EXAMPLES: extract | stamp in a PR job, --describe for the artifact, facts histogram" {
	workspace
	cp "$F/conda-list.json" conda.json
	cp "$F/pip-list.json" pip.json
	GH+=(RUNNER_LABEL="$RUNSON")
	run -0 --separate-stderr env -i "${GH[@]}" bash -c 'set -eo pipefail
		qe-cache-extract "$1" |
		    qe-stamp -r "$RUNNER_LABEL" -f environment.yml \
		        -c conda.json -p pip.json -v JAX_ENABLE_X64 > pr.ndjson' _ "$(shared jupyter-cache/head-incremental/.jupyter_cache)"
	assert_equal "$stderr" ""
	run -0 validate pr.ndjson
	run -0 jq -r '[.provenance.runner.class, .provenance.source.pr] | join(" ")' pr.ndjson
	assert_equal "$(sort -u <<< "$output")" "$RUNSON_CLASS 42"

	run -0 --separate-stderr env -i "${GH[@]}" bash -c 'mkdir -p _build
		qe-stamp -d -a -f environment.yml -c conda.json -p pip.json \
		    > _build/qe-provenance.ndjson'
	assert_equal "$stderr" ""
	run -0 validate _build/qe-provenance.ndjson
	run -0 jq -c '[.kind, (.environment.packages | length), .environment.package_count]' _build/qe-provenance.ndjson
	assert_output '["provenance",24,24]'

	n=$(wc -l < pr.ndjson)
	run -0 bash -c "jq -c '.provenance.fingerprint_facts' pr.ndjson | sort | uniq -c"
	assert_equal "${#lines[@]}" 1
	[[ ${lines[0]} =~ ^\ *$n\ \{\"runner_class\":\"$RUNSON_CLASS\" ]]
}

@test "values that are not UTF-8 are left out: the output stays UTF-8" {
	mkdir "$T/plain" && cd "$T/plain"
	printf 'image=ok\nbad=\377\376\n' > marker
	printf '[{"name": "numpy", "version": "2.3.1\377"}, {"name": "scipy", "version": "1.16.0"}]\n' > pip.json
	run -0 --separate-stderr env -i PATH="$TOOLPATH" HOME="$HOME" RUNNER_NAME=$'\377runner' \
		JAX_ENABLE_X64=$'\377' qe-stamp -m marker -p pip.json -v JAX_ENABLE_X64 "$F/records.ndjson"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 iconv -f UTF-8 -t UTF-8 "$T/out"
	run -0 field -c '[.provenance.runner.name, .provenance.environment.marker, .provenance.environment.packages, .provenance.environment.variables]'
	assert_output '[null,{"image":"ok"},{"scipy":"1.16.0"},null]'
	run -0 field -c '[.provenance.environment.package_count, .provenance.fingerprint_facts.packages]'
	assert_output '[1,{"scipy":"1.16"}]'
	run -0 validate "$T/out"
}
