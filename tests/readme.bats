#!/usr/bin/env bats
# README.md is the front page: what it is, the two commands (tests/dist.bats
# checks them against .ci/run), one pipeline, the action's 16 lines, and
# where everything else lives (docs/, the man pages).  Here: its size, its
# links, its rendering, and that the lines it says a lecture repository adds
# are those of the example workflows in workflows/.
load helper

REPO="$(cd "$TESTS_DIR/.." && pwd)"

@test "README.md: at most 300 lines; every relative link of README.md and docs/*.md names a file of the tree; the man pages name every docs/ page" {
	run -0 wc -l < "$REPO/README.md"
	[ "$output" -le 300 ] || fail "README.md has $output lines"
	run -0 /usr/bin/python3 - "$REPO" <<-'PY'
	import os, re, sys
	root = sys.argv[1]
	pages = ["README.md"] + ["docs/" + f for f in sorted(os.listdir(root + "/docs")) if f.endswith(".md")]
	links = 0
	for p in pages:
	    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", open(os.path.join(root, p)).read()):
	        links += 1
	        if not os.path.exists(os.path.normpath(os.path.join(root, os.path.dirname(p), target))):
	            print(f"{p}: {target}: no such file")
	man = "".join(open(os.path.join(root, "man", f)).read() for f in os.listdir(root + "/man"))
	for p in pages[1:]:
	    if "Pa " + p not in man:
	        print(f"{p}: named by no man page")
	print(links, "links")
	PY
	assert_output --regexp '^[0-9]+ links$'
}

@test "README.md renders as GitHub Markdown: its headings and tables, the two commands as code" {
	command -v cmark-gfm > /dev/null || skip "no cmark-gfm (tools/deps test installs it)"
	cmark-gfm -e table "$REPO/README.md" > "$BATS_TEST_TMPDIR/r.html"
	run -0 grep -c '<table>' "$BATS_TEST_TMPDIR/r.html"
	assert_output 3
	run -0 grep -o '<h2>[^<]*' "$BATS_TEST_TMPDIR/r.html"
	assert_line '<h2>The two commands'
	assert_line '<h2>A pipeline'
	assert_line '<h2>Use it in your lecture repository'
	assert_line '<h2>Where everything else lives'
	run -0 grep -c '^<pre><code>tools/deps' "$BATS_TEST_TMPDIR/r.html"
	assert_output 2
}

@test "README.md: the lines a lecture repository adds (+) are as many as its table counts, 16, and are those of workflows/" {
	run -0 /usr/bin/python3 - "$REPO" <<-'PY'
	import re, sys, yaml
	root = sys.argv[1]
	text = open(root + "/README.md").read()
	section = text.split("\n## Use it in your lecture repository\n", 1)[1].split("\n## ", 1)[0]
	# the counts of the table: | `file` ... | N | what |
	counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| `([\w.-]+\.yml)`[^|]*\| (\d+) \|", section, re.M)}
	total = int(re.search(r"^\| \*\*total\*\* \| \*\*(\d+)\*\* \|", section, re.M).group(1))
	# each snippet: its + lines, in the order cache.yml, ci.yml, qe-telemetry.yml
	blocks, cur = [], None
	for l in section.split("\n"):
	    if l.startswith("    "):
	        cur = cur if cur is not None else []
	        cur.append(l[4:])
	    elif l.strip() and cur is not None:
	        blocks.append(cur); cur = None
	if cur is not None:
	    blocks.append(cur)
	plus = [[l[2:] for l in b if l.startswith("+ ")] for b in blocks if any(l.startswith("+ ") for l in b)]
	names = ["cache.yml", "ci.yml", "qe-telemetry.yml"]
	print("counts", [counts.get(n) for n in names], "total", total)
	print("+ lines", [len(p) for p in plus], "total", sum(len(p) for p in plus))
	wf = {n: yaml.safe_load(open(f"{root}/workflows/{n}")) for n in names}
	# cache.yml: checkout without credentials, the build step is the action with run:
	steps = [s for j in wf["cache.yml"]["jobs"].values() for s in j.get("steps", [])]
	ok = [any(s.get("uses", "").startswith("actions/checkout@") and s.get("with", {}).get("persist-credentials") is False for s in steps),
	      any(s.get("uses") == "QuantEcon/qe-telemetry@v1" and "run" in s.get("with", {}) for s in steps)]
	readme = yaml.safe_load("\n".join(l.lstrip() for l in plus[0] if l.lstrip().startswith("with: {")))
	ok.append(readme == {"with": {"persist-credentials": False}})
	# ci.yml: pull-requests: write, the build step is the action with run:
	steps = [s for j in wf["ci.yml"]["jobs"].values() for s in j.get("steps", [])]
	ok += [wf["ci.yml"]["permissions"].get("pull-requests") == "write",
	       any(s.get("uses") == "QuantEcon/qe-telemetry@v1" and "run" in s.get("with", {}) for s in steps)]
	# qe-telemetry.yml: the whole file, line for line
	lines = [l for l in open(f"{root}/workflows/qe-telemetry.yml").read().split("\n") if l and not l.startswith("#")]
	ok.append(lines == plus[2])
	print("workflows agree" if all(ok) else f"workflows differ: {ok}")
	PY
	assert_output - <<-'EOF'
	counts [3, 3, 10] total 16
	+ lines [3, 3, 10] total 16
	workflows agree
	EOF
}
