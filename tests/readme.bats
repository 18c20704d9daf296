#!/usr/bin/env bats
# README.md is the front page: what it is, the two commands (tests/dist.bats
# checks them against .ci/run), one pipeline, the lines a lecture repository
# adds, and where everything else lives (docs/, the man pages).  Here: its
# size, its links, its rendering, and that what it says of the adoption
# lines is workflows/adoption.diff's (the one place they are written, which
# tests/action-adoption.bats applies and lints): its counts are the hunks',
# its quote is the file's own lines.
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

@test "README.md: the adoption counts are workflows/adoption.diff's hunks' (and qe-telemetry.yml's lines), its quotes are those files' own lines, its env: example follows its advice" {
	run -0 /usr/bin/python3 - "$REPO" <<-'PY'
	import re, sys, yaml
	root = sys.argv[1]
	text = open(root + "/README.md").read()
	section = text.split("\n## Use it in your lecture repository\n", 1)[1].split("\n## ", 1)[0]
	diff = open(root + "/workflows/adoption.diff").read().split("\n")
	# the hunks' counts per file: (added, removed)
	hunks, f = {}, None
	for ln in diff:
	    if ln.startswith("+++ b/"):
	        f = ln[6:].split("\t")[0].strip()
	        hunks[f] = [0, 0]
	    elif f and ln.startswith("+"):
	        hunks[f][0] += 1
	    elif f and ln.startswith("-") and not ln.startswith("--- a/") and ln != "--- /dev/null":
	        hunks[f][1] += 1
	whole = [l for l in open(root + "/workflows/qe-telemetry.yml").read().split("\n") if l and not l.startswith("#")]
	# the table: | REPOSITORY `FILE` (...) | + | - | what |
	rows = re.findall(r"^\| (?:each repository: |([\w.-]+) )`([\w.-]+\.yml)`[^|]*\| (\d+) \| (\d+) \|", section, re.M)
	out, repos = [], {}
	for repo, name, plus, minus in rows:
	    got = hunks.pop(f"{repo}/.github/workflows/{name}", None) if repo else [len(whole), 0]
	    out.append(f"{repo or '*'} {name} +{plus} -{minus}" + ("" if got == [int(plus), int(minus)] else f": the hunks say {got}"))
	    for r in ([repo] if repo else []):
	        repos.setdefault(r, [len(whole), 0])
	        repos[r][0] += int(plus); repos[r][1] += int(minus)
	out += [f"{k}: in the diff, not in the table" for k in hunks]
	# the sentence that adds them up
	for r, (p, m) in repos.items():
	    said = re.search(re.escape(r) + r" adds \*\*(\d+)\*\* lines and removes \*\*(\d+)\*\*", section)
	    if said:
	        out.append(f"{r} total +{said.group(1)} -{said.group(2)}" + ("" if [int(said.group(1)), int(said.group(2))] == [p, m] else f": the rows add up to +{p} -{m}"))
	# the quotes: each diff block whole files' hunks of adoption.diff, verbatim;
	# the qe-telemetry.yml block that file's lines
	blocks = re.findall(r"^```(\w+)\n(.*?)^```$", section, re.M | re.S)
	for lang, body in blocks:
	    lines = body.rstrip("\n").split("\n")
	    if lang == "diff":
	        starts = [i for i in range(len(diff)) if diff[i:i + len(lines)] == lines]
	        end = starts[0] + len(lines) if starts else 0
	        ok = starts and lines[0].startswith("--- a/") and (end == len(diff) or diff[end].startswith("--- a/") or diff[end] == "")
	        out.append("diff quote " + ("of " + ", ".join(l[6:] for l in lines if l.startswith("+++ b/")) if ok else "not adoption.diff's whole files"))
	    elif lines[0].startswith("name: qe-telemetry"):
	        out.append("qe-telemetry.yml " + ("quoted" if lines == whole else "differs"))
	    else:
	        # the env: example: the event value in env:, none in the commands
	        step = yaml.safe_load(body)[0]
	        ok = "${{ github.event." in str(step.get("env")) and "${{" not in step["with"]["run"]
	        out.append("env example " + ("follows the advice" if ok else "does not"))
	print("\n".join(out))
	PY
	assert_output - <<-'EOF'
	lecture-python.myst cache.yml +7 -3
	lecture-python.myst ci.yml +6 -0
	lecture-python-programming ci.yml +15 -7
	lecture-python-programming cache.yml +31 -0
	* qe-telemetry.yml +10 -0
	lecture-python.myst total +23 -3
	lecture-python-programming total +56 -7
	diff quote of lecture-python.myst/.github/workflows/cache.yml, lecture-python.myst/.github/workflows/ci.yml
	qe-telemetry.yml quoted
	env example follows the advice
	EOF
}
