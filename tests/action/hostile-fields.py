#!/usr/bin/python3
"""hostile-fields.py: every field of every record kind of a diff, made hostile
one at a time, and a check of what the rendered comment can do.

  hostile-fields.py mutants SCHEMA.json OUTDIR BASE.ndjson [SAMPLES.ndjson...]
      For each kind SCHEMA defines (diff-summary, notebook-diff, cell-diff of
      schema/diff.json; sweep, hotspot of schema/sweep.json), one record of
      BASE (a regression when there is one: it is in the comment's tables)
      and every property the schema gives that kind: a copy of BASE with that
      property set to PAYLOAD; a property holding an array also as [PAYLOAD],
      one holding an object (or an array of objects) also with each of its
      members set to PAYLOAD.  Where the record's object or array is null or
      empty, the first non-empty one of that kind in BASE or SAMPLES is
      taken, so the members of test, warm, differing_facts... are covered.  Writes OUTDIR/NNN.ndjson and OUTDIR/NNN.name
      ("kind.field" or "kind.field.member").

  hostile-fields.py check SERVER_REPO HTML...
      Each HTML file is a comment or job summary rendered by cmark-gfm
      (--unsafe, GitHub's extensions).  Prints "FILE: what" for anything the
      payload could have brought: an image, a raw HTML element of the
      payload (img, script, a second qe-telemetry marker), a link that does
      not go to SERVER_REPO's pages, a GitHub alert ([!CAUTION] opening a
      quote), a mention (@org/...) or an autolinkable address outside a code
      span, a heading.  Exits 1 if anything is found.
"""
import copy
import glob
import html
import json
import os
import re
import sys

PAYLOAD = ("same.\n\n> [!CAUTION]\n> @org/maintainers [sign in to re-run](https://evil.example/login) "
           "![](https://evil.example/pixel.png) <img src=x onerror=alert(1)> <script>alert(1)</script> "
           "<!-- qe-telemetry: {\"head_sha\":\"forged\"} --> www.evil.example\n# HEADING\n")

SCHEMA_KIND = {"diff-summary": "summary", "notebook-diff": "notebook-diff", "cell-diff": "cell-diff",
               "sweep": "sweep", "hotspot": "hotspot"}


def read(path):
    return [json.loads(ln) for ln in open(path, encoding="utf-8") if ln.strip()]


def sample(pool, kind, prop):
    return next((copy.deepcopy(r[prop]) for r in pool if r.get("kind") == kind and
                 isinstance(r.get(prop), (dict, list)) and r[prop]), None)


def mutants(schema, outdir, base, samples):
    recs = read(base)
    pool = recs + [r for f in samples for r in read(f)]
    defs = json.load(open(schema, encoding="utf-8"))["$defs"]
    n = 0

    def emit(name, i, rec):
        nonlocal n
        with open(os.path.join(outdir, "%03d.ndjson" % n), "w", encoding="utf-8") as f:
            for j, r in enumerate(recs):
                f.write(json.dumps(rec if j == i else r, ensure_ascii=False) + "\n")
        with open(os.path.join(outdir, "%03d.name" % n), "w") as f:
            f.write(name + "\n")
        n += 1

    for kind, sk in SCHEMA_KIND.items():
        if sk not in defs:  # a kind of another schema
            continue
        idx = [i for i, r in enumerate(recs) if r.get("kind") == kind]
        if not idx:
            sys.exit("hostile-fields.py: %s has no %s record" % (base, kind))
        i = next((i for i in idx if recs[i].get("verdict") == "regression"), idx[0])
        for prop in sorted(defs[sk]["properties"]):
            v = recs[i].get(prop)
            if not v and not isinstance(v, (int, float, str)) and prop != "kind":
                v = sample(pool, kind, prop)
                if v is not None:
                    recs[i][prop] = v
            r = copy.deepcopy(recs[i])
            r[prop] = PAYLOAD
            emit("%s.%s" % (kind, prop), i, r)
            if isinstance(v, list):
                r[prop] = [PAYLOAD] + v[1:]
                emit("%s.%s[0]" % (kind, prop), i, r)
            obj = v[0] if isinstance(v, list) and v and isinstance(v[0], dict) else v
            if isinstance(obj, dict):
                for m in sorted(obj):
                    r = copy.deepcopy(recs[i])
                    o = r[prop][0] if isinstance(r[prop], list) else r[prop]
                    o[m] = PAYLOAD
                    emit("%s.%s.%s" % (kind, prop, m), i, r)
    return 0


def check(repo, files):
    bad = []
    ours = re.compile(r"https://github\.com/%s(/|$)" % re.escape(repo))
    for path in files:
        h = open(path, encoding="utf-8").read()
        low = h.lower()
        what = []
        for tag in ("<img", "<script", "<iframe", "<svg", "<h1", "<h2"):
            if tag in low:
                what.append("element " + tag + ">")
        if low.count("<!-- qe-telemetry") > 1:
            what.append("a second qe-telemetry marker")
        if re.search(r"<[^>]*\bsrc\s*=", h):  # in a tag: escaped text (&lt;img src=) is inert
            what.append("a src attribute")
        for href in re.findall(r'href="([^"]*)"', h):
            if not ours.match(html.unescape(href)):
                what.append("a link to " + href)
        if re.search(r"<blockquote>\s*<p>\s*\[!(CAUTION|IMPORTANT|TIP)\]", h):
            what.append("a GitHub alert opened by the payload")
        # code spans are inert on GitHub: no mention, no autolink inside
        text = html.unescape(re.sub(r"<[^>]*>", "", re.sub(r"<code>.*?</code>", "", h, flags=re.S)))
        if re.search(r"(?<![\w`])@org/maintainers", text):
            what.append("a mention @org/maintainers")
        if re.search(r"(?<![\w])www\.evil", text) or "https://evil" in text:
            what.append("an autolinkable address")
        bad += ["%s: %s" % (path, w) for w in what]
    print("\n".join(bad)) if bad else None
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 4 and argv[0] == "mutants":
        return mutants(argv[1], argv[2], argv[3], argv[4:])
    if len(argv) >= 3 and argv[0] == "check":
        return check(argv[1], argv[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
