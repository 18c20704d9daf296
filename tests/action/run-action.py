#!/usr/bin/python3
"""Run a composite action's steps the way the GitHub runner does, for tests.

usage: run-action.py JOBDIR action ACTION_DIR [--with NAME=VALUE]... [--seed-cache DIR]
       run-action.py JOBDIR run -- COMMAND [ARG]...
       run-action.py JOBDIR conclusion

JOBDIR holds one simulated job's state: the environment and PATH additions
its steps wrote to GITHUB_ENV and GITHUB_PATH (applied to every later step,
as the runner does), the job summary (summary.md, every step's
GITHUB_STEP_SUMMARY in order), uploaded artifacts (artifacts/NAME/), and one
line per job step in steps.ndjson.  Each run: step's environment is kept in
JOBDIR/step-N/environ.json (tests check what a step could see).  The process environment supplies the
rest (GITHUB_*, RUNNER_TEMP, HOME, PATH); SIM_GITHUB_TOKEN is github.token
and SIM_CACHE the cache service's store.

`action` reads ACTION_DIR/action.yml, takes input defaults (expressions
evaluated) and --with values, and runs its steps in order: `if:` is
evaluated (default success()), `env:` values are interpolated, `run:` is
written to a file and run with `bash --noprofile --norc -eo pipefail FILE` in
GITHUB_WORKSPACE with GITHUB_ACTION_PATH set and fresh GITHUB_OUTPUT,
GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY files.  `uses:` steps are
simulated: actions/cache/restore and /save against SIM_CACHE (--seed-cache
DIR stands for an earlier run's save when the key is not there yet),
actions/upload-artifact copies its paths into JOBDIR/artifacts/NAME (an
existing one is an error unless overwrite: true; SIM_UPLOAD_FAIL=1 makes it
fail as a broken artifact service would).  continue-on-error: true makes a
failed step's outcome failure and its conclusion success, as on GitHub.
Expressions: literals, contexts (inputs, github, runner, steps, env, matrix:
SIM_MATRIX's JSON, null when unset), ! == != && || and parentheses,
success() failure() always() cancelled() contains() startsWith() endsWith()
toJSON().  Exit status: that of the first failed step, or 0.

`run` runs one of the caller's own steps (the build) in the job's
environment and records its outcome; its exit status is the command's.
`conclusion` prints success or failure: the job's result so far.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml


class Job:
    def __init__(self, d):
        self.dir = Path(d)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.envfile = self.dir / "env.json"
        self.env = json.loads(self.envfile.read_text()) if self.envfile.exists() else {}
        self.pathfile = self.dir / "path.json"
        self.path = json.loads(self.pathfile.read_text()) if self.pathfile.exists() else []
        self.count = len(list(self.dir.glob("step-*")))

    def save(self):
        self.envfile.write_text(json.dumps(self.env, indent=1))
        self.pathfile.write_text(json.dumps(self.path))

    def record(self, name, outcome, status, seconds=None):
        r = {"step": name, "outcome": outcome, "status": status}
        if seconds is not None:
            r["seconds"] = round(seconds, 3)    # the step's wall-clock time
        with open(self.dir / "steps.ndjson", "a") as f:
            f.write(json.dumps(r) + "\n")

    def environ(self, extra=None):
        # SIM_* configure the simulation (SIM_GITHUB_TOKEN is github.token):
        # a runner puts none of them in a step's environment
        e = {k: v for k, v in os.environ.items() if not k.startswith("SIM_")}
        e.update(self.env)
        if self.path:
            e["PATH"] = ":".join(reversed(self.path)) + ":" + e.get("PATH", "")
        e.update(extra or {})
        return e

    def run_step(self, argv, extra_env, cwd):
        """Run argv with fresh command files; apply what the step wrote."""
        self.count += 1
        d = self.dir / f"step-{self.count}"
        d.mkdir()
        files = {k: d / k.lower() for k in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
        for f in files.values():
            f.touch()
        env = self.environ(extra_env)
        env.update({k: str(v) for k, v in files.items()})
        (d / "environ.json").write_text(json.dumps(env, indent=1))
        t0 = time.monotonic()
        status = subprocess.run(argv, env=env, cwd=cwd).returncode
        self.seconds = time.monotonic() - t0
        self.env.update(parse_kv(files["GITHUB_ENV"].read_text()))
        self.path += [p for p in files["GITHUB_PATH"].read_text().splitlines() if p]
        with open(self.dir / "summary.md", "a") as s:
            s.write(files["GITHUB_STEP_SUMMARY"].read_text())
        self.save()
        return status, parse_kv(files["GITHUB_OUTPUT"].read_text())


def parse_kv(text):
    """NAME=value lines and NAME<<DELIM ... DELIM blocks."""
    out, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            val = []
            while i < len(lines) and lines[i] != delim:
                val.append(lines[i])
                i += 1
            if i >= len(lines):
                sys.exit(f"run-action: unterminated {name}<<{delim}")
            i += 1
            out[name] = "\n".join(val)
        elif "=" in line:
            name, val = line.split("=", 1)
            out[name] = val
        elif line.strip():
            sys.exit(f"run-action: bad command file line {line!r}")
    return out


# ---- expressions -------------------------------------------------------------

TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>==|!=|&&|\|\||[!()\[\],.])"
                   r"|(?P<id>[A-Za-z_][A-Za-z0-9_-]*))")


def tokenize(s):
    pos, out = 0, []
    s = s.strip()
    while pos < len(s):
        m = TOKEN.match(s, pos)
        if not m or m.end() == pos:
            raise SyntaxError(f"bad expression at {s[pos:]!r}")
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


def truthy(v):
    return not (v is None or v is False or v == "" or v == 0)


def text(v):
    if v is None:
        return ""
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def equal(a, b):
    """GitHub's loose equality: strings case-insensitively; values of
    different types are compared as numbers (null and '' are 0, a
    non-numeric string is NaN)."""
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if type(a) is type(b):
        return a == b

    def num(x):
        if x is None or x is False:
            return 0.0
        if x is True:
            return 1.0
        if isinstance(x, (int, float)):
            return float(x)
        if isinstance(x, str):
            try:
                return float(x.strip()) if x.strip() else 0.0
            except ValueError:
                return float("nan")
        return float("nan")
    return num(a) == num(b)


class Expr:
    def __init__(self, s, ctx, funcs):
        self.t, self.i, self.ctx, self.funcs = tokenize(s), 0, ctx, funcs

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self, val=None):
        tok = self.peek()
        if val is not None and tok[1] != val:
            raise SyntaxError(f"expected {val!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def parse(self):
        v = self.orx()
        if self.i != len(self.t):
            raise SyntaxError(f"trailing tokens {self.t[self.i:]}")
        return v

    def orx(self):
        v = self.andx()
        while self.peek()[1] == "||":
            self.take()
            r = self.andx()
            v = v if truthy(v) else r
        return v

    def andx(self):
        v = self.unary()
        while self.peek()[1] == "&&":
            self.take()
            r = self.unary()
            v = r if truthy(v) else v
        return v

    def unary(self):
        if self.peek()[1] == "!":
            self.take()
            return not truthy(self.unary())
        v = self.primary()
        op = self.peek()[1]
        if op in ("==", "!="):
            self.take()
            r = self.primary()
            return equal(v, r) if op == "==" else not equal(v, r)
        return v

    def primary(self):
        kind, val = self.take()
        if val == "(" and kind == "op":
            v = self.orx()
            self.take(")")
            return v
        if kind == "str":
            return val[1:-1].replace("''", "'")
        if kind == "num":
            return float(val)
        if kind != "id":
            raise SyntaxError(f"unexpected {val!r}")
        if val in ("true", "false"):
            return val == "true"
        if val == "null":
            return None
        if self.peek()[1] == "(":
            self.take()
            args = []
            while self.peek()[1] != ")":
                args.append(self.orx())
                if self.peek()[1] == ",":
                    self.take()
            self.take(")")
            return self.funcs[val.lower()](*args)
        if val not in self.ctx:
            raise SyntaxError(f"unknown context {val!r}")
        v = self.ctx[val]
        while self.peek()[1] in (".", "["):
            if self.take()[1] == ".":
                key = self.take()[1]
            else:
                key = text(self.orx())
                self.take("]")
            v = v.get(key) if isinstance(v, dict) else None
        return v


def evaluate(s, ctx, funcs):
    return Expr(s, ctx, funcs).parse()


def interpolate(s, ctx, funcs):
    if not isinstance(s, str):
        return text(s)
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: text(evaluate(m.group(1), ctx, funcs)), s)


# ---- the action ----------------------------------------------------------------

def github_context(action_dir):
    e = os.environ
    event = {}
    if e.get("GITHUB_EVENT_PATH") and Path(e["GITHUB_EVENT_PATH"]).exists():
        event = json.loads(Path(e["GITHUB_EVENT_PATH"]).read_text())
    g = {k[len("GITHUB_"):].lower(): v for k, v in e.items() if k.startswith("GITHUB_")}
    g.update({"event": event, "token": e.get("SIM_GITHUB_TOKEN", ""), "action_path": str(action_dir),
              "action_ref": e.get("SIM_ACTION_REF", "v1")})
    return g


def uses_step(job, step, w, outputs_name):
    uses = step["uses"]
    store = Path(os.environ["SIM_CACHE"])
    if uses.startswith("actions/cache/restore@"):
        key = w["key"]
        entry = store / key
        if not entry.exists() and job.seed is not None:
            shutil.copytree(job.seed, entry, symlinks=True)
        hit = entry.exists()
        if hit:
            dst = Path(w["path"])
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(entry, dst, symlinks=True)
        job.record(f"{outputs_name}: {uses}", "success", 0)
        return 0, {"cache-hit": "true" if hit else "false", "cache-primary-key": key}
    if uses.startswith("actions/cache/save@"):
        entry = store / w["key"]
        if not entry.exists():
            shutil.copytree(w["path"], entry, symlinks=True)
        job.record(f"{outputs_name}: {uses}", "success", 0)
        return 0, {}
    if uses.startswith("actions/upload-artifact@"):
        dst = job.dir / "artifacts" / w["name"]
        if os.environ.get("SIM_UPLOAD_FAIL") == "1":
            print("::error::Failed to CreateArtifact: Unable to make request: ECONNRESET", file=sys.stderr)
            job.record(f"{outputs_name}: {uses}", "failure", 1)
            return 1, {}
        if dst.exists() and w.get("overwrite", "false") == "true":
            shutil.rmtree(dst)
        if dst.exists():
            print(f"::error::an artifact named '{w['name']}' already exists in this run", file=sys.stderr)
            job.record(f"{outputs_name}: {uses}", "failure", 1)
            return 1, {}
        found = False
        for p in [Path(x.strip()) for x in w["path"].splitlines() if x.strip()]:
            if p.is_dir():
                shutil.copytree(p, dst, dirs_exist_ok=True)
                found = True
            elif p.is_file():
                dst.mkdir(parents=True, exist_ok=True)
                shutil.copy(p, dst / p.name)
                found = True
        if not found and w.get("if-no-files-found", "warn") == "error":
            job.record(f"{outputs_name}: {uses}", "failure", 1)
            return 1, {}
        job.record(f"{outputs_name}: {uses}", "success", 0)
        return 0, {"artifact-id": "4242", "artifact-url": "https://github.com/artifact/4242"}
    sys.exit(f"run-action: unsupported action {uses}")


def run_action(job, action_dir, given):
    action_dir = Path(action_dir).resolve()
    spec = yaml.safe_load((action_dir / "action.yml").read_text())
    assert spec["runs"]["using"] == "composite"
    ctx = {"github": github_context(action_dir),
           "runner": {"temp": os.environ["RUNNER_TEMP"], "os": os.environ.get("RUNNER_OS", "Linux"),
                      "arch": os.environ.get("RUNNER_ARCH", "X64")},
           "env": job.environ(), "steps": {}, "inputs": {},
           "matrix": json.loads(os.environ.get("SIM_MATRIX") or "null")}
    state = {"failed": False, "status": 0}
    funcs = {"success": lambda: not state["failed"], "failure": lambda: state["failed"],
             "always": lambda: True, "cancelled": lambda: False,
             "contains": lambda a, b: (text(b).lower() in text(a).lower()) if not isinstance(a, list)
             else any(equal(x, b) for x in a),
             "startswith": lambda a, b: text(a).lower().startswith(text(b).lower()),
             "endswith": lambda a, b: text(a).lower().endswith(text(b).lower()),
             "tojson": lambda v: json.dumps(v, indent=2)}
    for name, inp in (spec.get("inputs") or {}).items():
        if name in given:
            ctx["inputs"][name] = given.pop(name)
        elif inp.get("required") and "default" not in inp:
            sys.exit(f"run-action: input '{name}' is required")
        else:
            ctx["inputs"][name] = interpolate(inp.get("default", ""), ctx, funcs)
    if given:
        sys.exit(f"run-action: unexpected inputs {sorted(given)}")
    for n, step in enumerate(spec["runs"]["steps"]):
        sid = step.get("id", f"__{n}")
        label = step.get("name", sid)
        cond = step.get("if", "success()")
        cond = cond.strip()
        if cond.startswith("${{") and cond.endswith("}}"):
            cond = cond[3:-2]
        if not re.search(r"\b(success|failure|always|cancelled)\s*\(", cond):
            cond = f"success() && ({cond})"  # the runner's implicit status check
        ctx["env"] = job.environ()
        if not truthy(evaluate(cond, ctx, funcs)):
            ctx["steps"][sid] = {"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}
            job.record(label, "skipped", None)
            continue
        if "uses" in step:
            w = {k: interpolate(v, ctx, funcs) for k, v in (step.get("with") or {}).items()}
            status, outputs = uses_step(job, step, w, label)
        else:
            assert step.get("shell") == "bash", f"step {label}: shell must be bash"
            env = {k: interpolate(v, ctx, funcs) for k, v in (step.get("env") or {}).items()}
            env["GITHUB_ACTION_PATH"] = str(action_dir)
            script = job.dir / f"script-{job.count + 1}.sh"
            script.write_text(interpolate(step["run"], ctx, funcs))
            cwd = step.get("working-directory", os.environ.get("GITHUB_WORKSPACE", "."))
            status, outputs = job.run_step(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                                           env, cwd)
            job.record(label, "success" if status == 0 else "failure", status, job.seconds)
        outcome = "success" if status == 0 else "failure"
        tolerated = str(step.get("continue-on-error", False)).lower() == "true"
        ctx["steps"][sid] = {"outputs": outputs, "outcome": outcome,
                             "conclusion": "success" if tolerated else outcome}
        if status != 0 and not tolerated and not state["failed"]:
            state["failed"], state["status"] = True, status
    return state["status"]


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    job = Job(argv[0])
    job.seed = None
    cmd = argv[1]
    if cmd == "action":
        action_dir, given, rest = argv[2], {}, argv[3:]
        while rest:
            if rest[0] == "--with":
                k, v = rest[1].split("=", 1)
                given[k] = v
            elif rest[0] == "--seed-cache":
                job.seed = rest[1]
            else:
                sys.exit(f"run-action: bad argument {rest[0]}")
            rest = rest[2:]
        mode = given.get("mode", "")
        status = run_action(job, action_dir, given)
        with open(job.dir / "jobsteps.ndjson", "a") as f:
            f.write(json.dumps({"action": mode, "status": status}) + "\n")
        return status
    if cmd == "run":
        assert argv[2] == "--"
        status, _ = job.run_step(argv[3:], {}, os.environ.get("GITHUB_WORKSPACE", "."))
        job.record(" ".join(argv[3:]), "success" if status == 0 else "failure", status)
        with open(job.dir / "jobsteps.ndjson", "a") as f:
            f.write(json.dumps({"run": argv[3:], "status": status}) + "\n")
        return status
    if cmd == "conclusion":
        lines = (job.dir / "jobsteps.ndjson").read_text().splitlines()
        print("failure" if any(json.loads(x)["status"] != 0 for x in lines) else "success")
        return 0
    sys.exit(f"run-action: unknown command {cmd}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
