"""Sphinx extension: measured execution times in the text, and the build's
execution status file.

    extensions = [..., "qe_telemetry.sphinx"]

Roles (MyST: {exec-time}`slow-sleep`; reST: :exec-time:`slow-sleep`):
  exec-time          the default form (qe_exec_time_format: human, seconds
                     or rounded)
  exec-time-s        seconds, qe_exec_time_digits decimals
  exec-time-rounded  a round figure
  exec-time-share    a cell's share of its lecture's cell time
Targets: `label` (a cell of this document, else a document of that name),
`doc#label`, `doc` (the whole lecture: jupyter-cache's execution_seconds).

Where numbers come from, per role: this build's records (qe-cache-extract
run once at env-updated over the jupyter-cache and the capture hook's log,
marking records made since the build started), when the document was
executed in this build and the cell timed; else the newest record of the
stored report(s) (qe_exec_time_report); else, for the whole lecture, the
cache's own record (an earlier build's); else the placeholder and a warning.
A time carries the provenance of the build that measured it, or none: this
build's (qe-stamp -d) only for what this build executed.
The records are read by the C tool qe-exec-status (--times: per document the
newest record and its labelled cells' durations, the newest-record rule
decided there, and each duration's printed forms, made by its one formatter
with qe_exec_time_digits and qe_exec_time_style); this module only picks a
source and the form, and prints nothing of its own. At build-finished
qe-exec-status writes the status document.

Invariants: per-application state lives in one _State captured by the
handlers (no module globals); roles only leave a pending node, resolved at
doctree-resolved once every document has been read (and executed); a
warning names the document and the role's own line, and becomes an error
only with qe_exec_time_strict; our own trouble (a tool not found) is an
info line and placeholders, never a warning, so `-W` builds stay green.
"""
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

from . import __version__

logger = logging.getLogger(__name__)

FORMS = {"exec-time": None, "exec-time-s": "seconds", "exec-time-rounded": "rounded",
         "exec-time-share": "share"}
# the forms {exec-time} can default to (qe_exec_time_format): the roles' own and
# human (the lookup's text keys); a cell's share is no default
DEFAULT_FORMS = sorted({"human", *(f for f in FORMS.values() if f not in (None, "share"))})
NBSP = "\u00a0"


class exec_time(nodes.Inline, nodes.TextElement):
    """Pending {exec-time}: target, form, docname; replaced at doctree-resolved."""


class ExecTimeRole(SphinxRole):
    def __init__(self, form, lines):
        self.form = form
        self.lines = lines   # _role_line's memory, shared by the roles of one application

    def run(self):
        node = exec_time(self.rawtext, target=self.text.strip(), form=self.form,
                         docname=self.env.docname)
        self.set_source_info(node)
        node.line = _role_line(self.lines, self.env, self.rawtext, node.line, id(self.inliner.document))
        if not hasattr(self.env, "qe_exec_time_docs"):
            self.env.qe_exec_time_docs = set()
        self.env.qe_exec_time_docs.add(self.env.docname)
        return [node], []


def _role_line(memo, env, rawtext, line, parse):
    """The line of the role itself: parsers give a role its paragraph's first
    line, so look for its text in the source from there on, each occurrence
    once (per parse of a document, in order); `line` when it is not found.
    A parse is its docutils document (`parse`, its id), not its name: a
    process that reads a document twice (a worker of a parallel read, a
    re-read) starts again, instead of finding every occurrence taken."""
    if not line:
        return line
    seen = memo.get("doc")
    if seen is None or seen[0] != (env.docname, parse):
        try:
            with open(env.doc2path(env.docname), encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeError):
            lines = []
        seen = memo["doc"] = ((env.docname, parse), lines, set())
    _, lines, used = seen
    forms = [rawtext]
    m = re.match(r"^:([\w-]+):(`.*)$", rawtext, re.S)
    if m:  # MyST hands the role over in reST's form: look for MyST's too
        forms.append("{" + m.group(1) + "}" + m.group(2))
    # MyST-NB's text-notebook lines may be one off the file's: start one early
    for i in range(max(line - 2, 0), len(lines)):
        n = max(lines[i].count(f) for f in forms)
        for k in range(n):
            if (forms[-1], i, k) not in used:
                used.add((forms[-1], i, k))
                return i + 1
    return line


# "prog: FILE:LINE: reason" or "prog: FILE: reason", the tools' message form
_TOOL_LINE = re.compile(r"^[\w.-]+: (/[^:]*?)(?::(\d+))?: ")


def _loc(path, line=None):
    """A warning's location for a file (Sphinx's own form, "path:" when
    there is no line; a bare name would be taken for a document)."""
    return f"{path}:{line or ''}"


def _utc(ts):
    """'2026-11-29T15:45:39.955330Z' -> '2026-11-29 15:45 UTC' (as given if odd)."""
    if isinstance(ts, str) and len(ts) >= 16 and ts[10] == "T":
        return ts[:10] + " " + ts[11:16] + " UTC"
    return ts


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def where(machine, prov):
    """'on ubuntu-latest (AMD EPYC, 4 CPUs, 16 GB), commit 1a2b3c4d5e6f': the
    machine as qe-exec-status described it, the commit of a qe-stamp
    provenance object; '' without either."""
    src = (prov.get("source") or {}) if isinstance(prov, dict) else {}
    text = f"on {machine}" if isinstance(machine, str) and machine else ""
    if isinstance(src.get("commit"), str) and src["commit"]:
        text += f"{', ' if text else ''}commit {src['commit'][:12]}"
    return text


class Times:
    """What qe-exec-status --times printed (schema/exec-times.json): per
    document its newest record's facts and its labelled cells' durations."""

    def __init__(self, doc=None):
        doc = doc if isinstance(doc, dict) else {}
        self.documents = doc.get("documents") or {}
        self.provenance = doc.get("provenance")
        self.machine = doc.get("machine")   # the provenance's machine, described in C

    def get(self, name):
        return self.documents.get(name)

    def __bool__(self):
        return bool(self.documents)


def _cell(entry, label):
    """The labelled cell of a document's entry, or None."""
    return (entry.get("cells") or {}).get(label) if entry else None


class _State:
    """What one Sphinx application knows about times."""

    def __init__(self, app):
        self.app = app
        self.started = _now()
        self.current = None      # Times of this build, or None
        self.reports = None      # Times of the stored report(s)
        self.provenance = None   # this build's provenance (qe-stamp -d, through qe-exec-status)
        self.records = None      # this build's records (qe-cache-extract's output), or None
        self.descriptor = ""     # qe-stamp -d's output, or ""
        self.inputs = []
        self.report_paths = []   # the stored reports read
        self.missing = []        # our tools not found: roles then say so at info level
        self.loaded = False
        self.role_lines = {}     # the source lines of the document being read (_role_line)

    # -- configuration -------------------------------------------------
    def _path(self, p):
        return p if os.path.isabs(p) else os.path.join(self.app.confdir, p)

    def _cache(self):
        c = self.app.config
        if c.qe_exec_time_cache:
            return self._path(c.qe_exec_time_cache)
        # MyST-NB's own choice: the path it resolved at builder-inited, else
        # its option (relative to the working folder, as MyST-NB opens it)
        nbc = getattr(self.app.env, "mystnb_config", None)
        nb = getattr(nbc, "execution_cache_path", "") or getattr(c, "nb_execution_cache_path", "") or ""
        if nb:
            return os.path.abspath(nb)
        return os.path.join(os.path.dirname(os.path.abspath(self.app.outdir)), ".jupyter_cache")

    def _log(self):
        c = self.app.config
        log = c.qe_exec_time_log if c.qe_exec_time_log is not None else os.environ.get("QE_TELEMETRY_LOG", "")
        return self._path(log) if log else ""

    @staticmethod
    def _tool(name):
        """A program: a bare name is looked for in $QE_TELEMETRY_BIN (the
        action's tools, exported by its before step), then on PATH."""
        d = os.environ.get("QE_TELEMETRY_BIN", "")
        if d and os.sep not in name and os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
        return shutil.which(name)

    def root(self):
        r = self.app.config.qe_exec_time_root
        return self._path(r) if r else self.app.srcdir

    # -- loading -------------------------------------------------------
    def load(self):
        if self.loaded:
            return
        self.loaded = True
        self.current = self._extract()
        self.reports = self._read_reports()

    def _not_found(self, name, consequence):
        """Our tool is not installed: an info line (never a warning: the
        lecture build must not fail for us), and the roles show placeholders."""
        self.missing.append(name)
        logger.info(f"qe-telemetry: {name} not found (install qe-telemetry, or set QE_TELEMETRY_BIN): {consequence}")

    def _run(self, argv, what, stdin="", subtype="extract", where=None):
        """A tool's standard output, or None; each line of its standard error
        is a warning located at the file it names (else at `where`)."""
        try:
            p = subprocess.run(argv, input=stdin, capture_output=True, text=True, encoding="utf-8",
                               errors="replace", timeout=self.app.config.qe_exec_time_timeout)
        except (OSError, subprocess.SubprocessError) as e:
            logger.warning(f"qe-telemetry: {what}: {e}", type="qe-telemetry", subtype=subtype,
                           location=_loc(where or self.app.confdir))
            return None
        for line in p.stderr.splitlines():
            m = _TOOL_LINE.match(line)
            loc = _loc(m.group(1), m.group(2)) if m else _loc(where or self.app.confdir)
            logger.warning(f"qe-telemetry: {line}", type="qe-telemetry", subtype=subtype, location=loc)
        return p.stdout

    def _status(self, args, stdin, subtype, missing, where=None):
        """qe-exec-status ARGS (this build's provenance as -p when known):
        its output, or None (after a warning that ends with `missing`)."""
        name = self.app.config.qe_exec_time_status
        exe = self._tool(name) if name else None
        if exe is None:
            if (name or "qe-exec-status") not in self.missing:
                self._not_found(name or "qe-exec-status", missing)
            return None
        with tempfile.TemporaryDirectory(prefix="qe-telemetry-") as tmp:
            if self.descriptor:
                prov = os.path.join(tmp, "provenance.json")
                with open(prov, "w", encoding="utf-8") as f:
                    f.write(self.descriptor)
                args = ["-p", prov, *args]
            return self._run([exe, *args], name, stdin, subtype, where)

    def _times(self, args, stdin, subtype, where=None):
        """The lookup qe-exec-status --times prints for ARGS (the durations'
        printed forms in the configured digits and style), or None."""
        out = self._status(["--times", *_form_args(self.app.config), *args], stdin, subtype,
                           "no times are read, placeholders shown", where)
        try:
            return Times(json.loads(out)) if out else None
        except ValueError as e:
            logger.warning(f"qe-telemetry: qe-exec-status --times: {e}", type="qe-telemetry", subtype=subtype,
                           location=_loc(where or self.app.confdir))
            return None

    def _extract(self):
        c = self.app.config
        cache = self._cache()
        if not c.qe_exec_time_extract or not os.path.exists(os.path.join(cache, "global.db")):
            logger.info(f"qe-telemetry: no jupyter-cache at {cache}: this build's times are not used")
            return None
        exe = self._tool(c.qe_exec_time_extract)
        if exe is None:
            self._not_found(c.qe_exec_time_extract, "this build's times are not used, placeholders shown")
            return None
        argv = [exe, "-r", self.root()]
        since = c.qe_exec_time_since if c.qe_exec_time_since is not None else self.started
        if since:
            argv += ["-s", since]
        log = self._log()
        if log and os.path.exists(log):
            argv += ["-t", log]
            self.inputs.append(log)
        argv.append(cache)
        self.inputs.append(cache)
        out = self._run(argv, c.qe_exec_time_extract, where=cache)
        if out is None:
            return None
        self.records = out
        stamp = self._tool(c.qe_exec_time_stamp) if c.qe_exec_time_stamp else None
        if stamp:
            self.descriptor = self._run([stamp, "-d", *c.qe_exec_time_stamp_args],
                                        c.qe_exec_time_stamp, where=self.app.confdir) or ""
        elif c.qe_exec_time_stamp:
            logger.info(f"qe-telemetry: {c.qe_exec_time_stamp} not found: this build's times name no commit or runner")
        times = self._times(["-"], out, "extract", cache)
        if times is not None:
            self.provenance = times.provenance if self.descriptor else None
        return times

    def _read_reports(self):
        names = self.app.config.qe_exec_time_report
        if isinstance(names, str):
            names = [names] if names else []
        paths = []
        for n in names:
            # a pattern (a folder of gzip reports, one per build) names every match
            p = self._path(n)
            for path in sorted(glob.glob(p)) if glob.has_magic(p) else [p]:
                if os.path.lexists(path):
                    paths.append(path)
                else:
                    logger.info(f"qe-telemetry: no stored report at {path}")
        if not paths:
            return Times()
        self.report_paths = paths
        # the files in one call: the newest record of each document across them
        return self._times(paths, "", "report", paths[0]) or Times()

    # -- resolving -----------------------------------------------------
    def document_of(self, docname):
        """The records' name of a Sphinx document (relative to the root)."""
        rel = os.path.relpath(os.path.join(self.app.srcdir, docname), self.root())
        return rel.replace(os.sep, "/")

    def sources(self):
        """(name, Book, provenance) in the order they are asked."""
        out = []
        if self.current:
            out.append(("this build", self.current, self.provenance))
        if self.reports:
            out.append(("stored report", self.reports, None))
        return out

    def resolve(self, node):
        """(text, tooltip) for a pending node, or (None, reason)."""
        target, form = node["target"], node["form"] or self.app.config.qe_exec_time_format
        here = self.document_of(node["docname"])
        srcs = self.sources()
        if self.current:
            # a cached record of this build: its notebook time is an earlier
            # build's measurement, used after the stored report; which build
            # made it the cache does not say, so no provenance (never this build's)
            srcs.append(("cache (an earlier build)", self.current, None))
        if "#" in target:
            doc, label = target.split("#", 1)
            doc = doc.strip("/") or here
        elif any(_cell(b.get(here), target) for _, b, _ in srcs):
            doc, label = here, target
        elif any(b.get(target.strip("/")) for _, b, _ in srcs):
            doc, label = target.strip("/"), None
        else:
            doc, label = here, target
        return self._value(srcs, doc, label, form)

    def _value(self, srcs, doc, label, form):
        known = False
        failed = None
        untimed = set()   # the sources whose record has the cell without a duration
        for name, book, prov in srcs:
            e = book.get(doc)
            if e is None:
                continue
            if e.get("status") == "failed" and failed is None:
                failed = f"{name}: {e.get('error') or 'failed'}"
            if label is not None:
                cell = _cell(e, label)
                known = known or cell is not None
            cached = e.get("execution") == "cached"
            if name == "this build" and cached or name.startswith("cache") and not cached:
                continue
            machine = book.machine if prov is not None else e.get("machine")
            prov = prov if prov is not None else e.get("provenance")
            if name == "stored report":
                name = f"stored report {os.path.basename(e.get('file') or '')}"
            if label is None:
                text = (e.get("text") or {}).get(form)
                if text is None:   # no runtime, or share
                    continue
                what = f"whole execution of {doc} (kernel start-up included)"
                return text, self._tip(what, e.get("created"), (machine, prov), name)
            if cell is None:
                continue
            d = cell.get("duration_s")
            if d is None:
                untimed.add("this build" if name == "this build" else name.split(" ")[0])
                continue
            texts = cell.get("text") or {}
            if texts.get(form) is None:   # share without a base
                continue
            which = f"{'the cells of ' if cell.get('block') else 'cell '}{label}"
            what = f"{which} of {doc}"
            if form == "share":
                # a tooltip is plain text: spaces, not the no-break spaces of the page
                what = f"{texts['seconds']} of the {texts['share_base']} of timed cells of {doc}, {which}" \
                    .replace(NBSP, " ")
            src = f"{name}, {cell.get('timing_source')} timing"
            return texts[form], self._tip(what, cell.get("start"), (machine, prov), src)
        return None, self._why(srcs, doc, label, known, failed, untimed)

    @staticmethod
    def _why(srcs, doc, label, known, failed, untimed):
        """What the warning says when no source had the time."""
        if failed is not None:
            what = f"'{label}' in document '{doc}'" if label is not None else f"document '{doc}'"
            return f"no measured time for {what}: the document failed ({failed})"
        if label is None:
            return f"no measured time for document '{doc}': not executed in this build and not in a stored report"
        if not known and any(b.get(doc) for _, b, _ in srcs):
            return f"unknown label '{label}' in document '{doc}'"
        if "this build" in untimed:
            return (f"cell '{label}' of document '{doc}' has no timing: this build executed it and the "
                    f"capture hook logged nothing (the capture hook was not armed?)")
        if "stored" in untimed:
            return (f"no measured time for '{label}' in document '{doc}': not executed in this build, "
                    f"and the stored report has no timing for it")
        return f"no measured time for '{label}' in document '{doc}': not executed in this build and not in a stored report"

    @staticmethod
    def _tip(what, when, machine_prov, source):
        text = f"{what}: measured {_utc(when) or 'at an unknown time'}"
        w = where(*machine_prov)
        return f"{text}{' ' + w if w else ''}; source: {source}"

    # -- events ----------------------------------------------------------
    def on_env_updated(self, app, env):
        self.load()
        return []

    def on_doctree_resolved(self, app, doctree, docname):
        self.load()
        for node in list(doctree.findall(exec_time) if hasattr(doctree, "findall") else doctree.traverse(exec_time)):
            text, tip = self.resolve(node)
            if text is None:
                msg = f"qe-telemetry: exec-time: {tip}"
                if self.missing:
                    # our tools are missing: said once, at info level (_not_found); not the page's fault
                    tip = f"not measured: {', '.join(self.missing)} not found"
                    logger.verbose(f"{msg} ({tip})", location=(node["docname"], node.line))
                elif app.config.qe_exec_time_strict:
                    raise ExtensionError(f"{node.source or node['docname']}:{node.line}: {msg}")
                else:
                    logger.warning(msg, location=(node["docname"], node.line), type="qe-telemetry",
                                   subtype="exec-time")
                text, classes = app.config.qe_exec_time_placeholder, ["qe-exec-time", "qe-exec-time-missing"]
            else:
                classes = ["qe-exec-time"]
            # HTML shows the tooltip; LaTeX and text writers would print an
            # abbreviation's explanation inline, so they get the text alone
            if app.builder.format == "html":
                new = nodes.abbreviation(node["target"], text, explanation=tip, classes=classes)
            else:
                new = nodes.inline(node["target"], text, classes=classes)
            node.replace_self(new)

    def on_build_finished(self, app, exception):
        name = app.config.qe_exec_status_file
        if not name:
            return
        self.load()
        path = name if os.path.isabs(name) else os.path.join(app.outdir, name)
        args = ["--generator", f"qe_telemetry.sphinx {__version__}", "--started", self.started,
                "--finished", _now(), "-o", path]
        for i in self.inputs:
            args += ["--input", i]
        for r in self.report_paths:
            args += ["-R", r]
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError as e:
            logger.warning(f"qe-telemetry: {path}: {e.strerror}", type="qe-telemetry", subtype="status",
                           location=_loc(path))
            return
        # this build's records, or none: the document then lists no documents
        self._status([*args, "-"], self.records or "", "status", "no execution status file", path)


def _outdated(app, env, added, changed, removed):
    """Documents that show times are read again: the times may have changed
    (qe_exec_time_reread = False: not; with nb_execution_mode "force" a
    re-read executes the notebook again)."""
    if not app.config.qe_exec_time_reread:
        return []
    return sorted(getattr(env, "qe_exec_time_docs", set()) - set(added) - set(changed) - set(removed))


def _purge(app, env, docname):
    getattr(env, "qe_exec_time_docs", set()).discard(docname)


def _merge(app, env, docnames, other):
    if not hasattr(env, "qe_exec_time_docs"):
        env.qe_exec_time_docs = set()
    env.qe_exec_time_docs |= getattr(other, "qe_exec_time_docs", set()) & set(docnames)


def setup(app):
    # where the data is changes no document (rebuild ""): pages with roles
    # are read again anyway (_outdated); the forms change them all ("env")
    add = app.add_config_value
    add("qe_exec_time_format", "human", "env", [str])
    # digits and style: None leaves qe-exec-status's defaults (2, si), which live in C
    add("qe_exec_time_digits", None, "env", [int, str])
    add("qe_exec_time_placeholder", "\u2014", "env", [str])
    add("qe_exec_time_style", None, "env", [str])
    add("qe_exec_time_strict", False, "env", [bool])
    add("qe_exec_time_report", [], "", [str, list])
    add("qe_exec_time_cache", "", "", [str])
    add("qe_exec_time_log", None, "", [str])
    add("qe_exec_time_root", "", "env", [str])
    add("qe_exec_time_since", None, "", [str])
    add("qe_exec_time_extract", "qe-cache-extract", "", [str])
    add("qe_exec_time_stamp", "qe-stamp", "", [str])
    add("qe_exec_time_stamp_args", [], "", [list])
    add("qe_exec_time_status", "qe-exec-status", "", [str])
    add("qe_exec_time_timeout", 600, "", [int])
    add("qe_exec_time_reread", True, "env", [bool])
    add("qe_exec_status_file", "execution_status.json", "", [str])
    state = _State(app)
    app.add_node(exec_time)
    for name, form in FORMS.items():
        app.add_role(name, ExecTimeRole(form, state.role_lines))
    app.connect("config-inited", _check_config)
    app.connect("env-updated", state.on_env_updated)
    app.connect("doctree-resolved", state.on_doctree_resolved)
    app.connect("build-finished", state.on_build_finished)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}


def _form_args(config):
    """qe-exec-status's options for the configured digits and style (none: its defaults)."""
    args = []
    if config.qe_exec_time_digits is not None:
        args.append(f"--digits={config.qe_exec_time_digits}")
    if config.qe_exec_time_style is not None:
        args.append(f"--style={config.qe_exec_time_style}")
    return args


def _check_config(app, config):
    if config.qe_exec_time_format not in DEFAULT_FORMS:
        raise ExtensionError(f"qe_exec_time_format: '{config.qe_exec_time_format}' is not one of "
                             f"{', '.join(DEFAULT_FORMS)}")
    # digits and style are qe-exec-status's options: it refuses a bad value
    # exactly when `OPTION=VALUE -h` is refused (not found: placeholders anyway)
    name = config.qe_exec_time_status
    exe = _State._tool(name) if name else None
    for opt, key in (("--digits", "qe_exec_time_digits"), ("--style", "qe_exec_time_style")):
        value = getattr(config, key)
        if exe is None or value is None:
            continue
        try:
            p = subprocess.run([exe, f"{opt}={value}", "-h"], capture_output=True, text=True,
                               encoding="utf-8", errors="replace", timeout=60)
        except (OSError, subprocess.SubprocessError):
            continue
        if p.returncode != 0:
            why = (p.stderr.splitlines() or [""])[0]
            raise ExtensionError(f"{key}: '{value}' refused ({why})")
