# qe-telemetry startup hook (qe_hook 1)
# Per-cell timing log for IPython kernels.
#
# Installed by `qe-hook arm` into an IPython profile's startup folder.  When
# the environment variable QE_TELEMETRY_LOG names a file, every executed cell
# appends two NDJSON lines to it (schema/hook-log.json): a "start" line,
# written before the cell runs, and an "end" line with its duration (monotonic
# clock), outcome and memory: the resident set after the cell
# (/proc/self/statm) and how far the process's peak resident set grew during
# it (getrusage ru_maxrss; it grows only past the kernel's earlier peak).
# After a cell that imported something (sys.modules grew), and when what it
# reads changed, an "env" line says what the kernel runs with: the versions
# of key modules the notebook imported (never importing one), JAX's x64 flag,
# backend and devices once JAX has set them up, numba's threading layer and
# the thread counts in effect. Once numba or JAX is imported (never importing
# either: a finder on sys.meta_path only looks), their compile events are
# listened to (numba.core.event "numba:compile", jax.monitoring's duration
# events), and each end line says how many JIT compilations the cell caused,
# their seconds and the functions compiled (the recompile audit).  Each line is one os.write() on an O_APPEND descriptor,
# so kernels running in parallel never interleave within a line.  Without the
# variable nothing is registered at all.
#
# The file runs in the user's namespace: everything lives inside one function
# that is deleted again, so no name (not even "os") is left behind.  The
# callbacks never print and never raise (IPython would print a callback's
# exception into the cell's output), and they touch neither outputs nor cell
# metadata, so executed notebooks stay byte-identical.  A kernel started by a
# Jupyter server (mystmd's builds) says in every line which document it runs.


def _qe_telemetry_install():
    import os

    path = os.environ.get("QE_TELEMETRY_LOG", "")
    if not path:
        return
    try:
        ip = get_ipython()  # noqa: F821 (a builtin inside IPython)
    except NameError:
        return
    if ip is None:
        return
    # Armed twice (the profile's startup file and qe-replicate's exec_files):
    # the first copy records, the second registers nothing.
    try:
        if any(getattr(f, "__qualname__", "").startswith("_qe_telemetry_install.")
               for f in ip.events.callbacks.get("pre_run_cell", ())):
            return
    except BaseException:
        return

    import hashlib
    import json
    import re
    import sys
    import time
    try:
        import resource
        rusage = resource.getrusage
        rself = resource.RUSAGE_SELF
        page = os.sysconf("SC_PAGE_SIZE")
    except (ImportError, ValueError, OSError):
        rusage = None
    try:
        statm = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        statm = -1

    kernel_start_ns = time.time_ns()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        return

    def stamp(us):
        sec, frac = divmod(us, 1000000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)) + ".%06dZ" % frac

    pid = os.getpid()
    kernel_start_us = kernel_start_ns // 1000
    # Constant head of every line, built once.
    # The document this kernel runs, when a Jupyter server started it: the
    # server hands each session's kernel JPY_SESSION_NAME = the session path
    # (jupyter_server 1.23: as the client gave it, mystmd's path from the
    # project root; 2.x: absolute).  Kept as given: the reader relativises.
    # Kernels of one folder run side by side, so cwd cannot say which.
    doc = os.environ.get("JPY_SESSION_NAME", "")
    try:
        doc = ',"document":%s' % json.dumps(doc) if doc else ""
    except BaseException:
        doc = ""
    # (concatenated, not %-formatted again: a document name may hold "%")
    head = '","run":"%d-%d","pid":%d,"kernel_start":"%s"' % (
        pid, kernel_start_us, pid, stamp(kernel_start_us)) + doc
    head_start = '{"qe_hook":1,"event":"start' + head
    head_end = '{"qe_hook":1,"event":"end' + head
    head_env = '{"qe_hook":1,"event":"env' + head
    crlf = re.compile(r"\r\n?")
    dumps = json.dumps
    sha256 = hashlib.sha256
    write = os.write
    wall_ns = time.time_ns
    mono_ns = time.monotonic_ns
    getcwd = os.getcwd
    pending = []  # stack of (info, start_us, body, extra, mono_ns, peak, jit counts): nested run_cell calls nest
    seq = [0]

    modules = sys.modules
    env_seen = [len(modules), None, False]  # sys.modules size, last env written, JAX backend pending
    key_modules = ("numpy", "scipy", "numba", "llvmlite", "jax", "jaxlib", "torch", "tensorflow",
                   "cupy", "pandas", "matplotlib", "quantecon", "sympy", "statsmodels", "networkx")
    thread_vars = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS",
                   "XLA_FLAGS")

    def jax_facts(jax):
        out = {}
        try:
            out["x64"] = bool(jax.config.jax_enable_x64)
        except BaseException:
            pass
        try:
            # only a backend JAX has already set up: asking would start one
            if getattr(modules.get("jax._src.xla_bridge"), "_backends", None):
                out["backend"] = str(jax.default_backend())
                out["devices"] = sorted(str(d) for d in jax.devices())
        except BaseException:
            pass
        return out

    def numba_facts(numba):
        out = {}
        try:
            out["threading_layer"] = str(numba.threading_layer())
        except BaseException:
            pass  # none until a parallel region ran
        try:
            out["num_threads"] = int(numba.config.NUMBA_NUM_THREADS)
        except BaseException:
            pass
        return out

    def kernel_env():
        mods = {}
        for name in key_modules:
            m = modules.get(name)
            v = getattr(m, "__version__", None) if m is not None else None
            if isinstance(v, str):
                mods[name] = v
        env = {"modules": mods}
        if "jax" in modules:
            env["jax"] = jax_facts(modules["jax"])
        if "numba" in modules:
            env["numba"] = numba_facts(modules["numba"])
        threads = {k: os.environ[k] for k in thread_vars if k in os.environ}
        try:
            threads["cpus"] = len(os.sched_getaffinity(0))
        except BaseException:
            pass
        env["threads"] = threads
        return env

    def env_line(seq_now):
        n = len(modules)
        if n == env_seen[0] and env_seen[1] is not None and not env_seen[2]:
            return
        env_seen[0] = n
        facts = kernel_env()
        # JAX sets its backend up at the first computation, maybe importing
        # nothing new: look again after each cell until it has one
        env_seen[2] = "jax" in facts and "backend" not in facts["jax"]
        env = dumps(facts, sort_keys=True)
        if env != env_seen[1]:
            env_seen[1] = env
            write(fd, (head_env + ',"seq":%d,"env":%s}\n' % (seq_now, env)).encode("utf-8", "surrogatepass"))

    # the recompile audit: [compiles, seconds, {function: compiles}, sources, numba depth, start]
    jit = [0, 0.0, {}, [], 0, 0]

    def numba_listen():
        ev = modules.get("numba.core.event")
        if "numba" in jit[3] or ev is None or not hasattr(ev, "install_listener"):
            return  # not imported, or still importing

        class Compiles(ev.Listener):
            def on_start(self, event):
                try:
                    jit[4] += 1
                    if jit[4] == 1:
                        jit[5] = mono_ns()
                    d = getattr(event.data.get("dispatcher"), "py_func", None)
                    name = getattr(d, "__qualname__", None) or "?"
                    jit[0] += 1
                    jit[2][name] = jit[2].get(name, 0) + 1
                except BaseException:
                    pass

            def on_end(self, event):
                try:
                    jit[4] -= 1
                    if jit[4] == 0:  # the outermost compile: its callees' are inside it
                        jit[1] += (mono_ns() - jit[5]) / 1e9
                except BaseException:
                    pass

        jit[3].append("numba")
        ev.register("numba:compile", Compiles())

    jax_tried = []

    def jax_listen(between):
        mon, jax = modules.get("jax.monitoring"), modules.get("jax")
        if "jax" in jit[3] or jax is None:
            return
        # JAX imported, its monitoring not: import it between cells only,
        # never inside an import under way (the finder's call)
        if mon is None and between and hasattr(jax, "jit") and not jax_tried:
            jax_tried.append(True)  # once: a JAX without it stays without
            try:
                import importlib
                mon = importlib.import_module("jax.monitoring")
            except BaseException:
                return
        if mon is None or not hasattr(mon, "register_event_duration_secs_listener"):
            return

        def duration(event, secs, **kwargs):
            try:
                if event.startswith("/jax/core/compile/"):
                    jit[1] += float(secs)
                    if event == "/jax/core/compile/backend_compile_duration":
                        jit[0] += 1
                        name = kwargs.get("fun_name") or "jit"
                        jit[2][name] = jit[2].get(name, 0) + 1
            except BaseException:
                pass

        jit[3].append("jax")
        mon.register_event_duration_secs_listener(duration)

    def jit_listen(between=True):
        try:
            if len(jit[3]) < 2:
                numba_listen()
                jax_listen(between)
                if len(jit[3]) == 2:
                    sys.meta_path[:] = [f for f in sys.meta_path if f is not watch]
        except BaseException:
            pass

    class Watch:
        """On sys.meta_path: finds nothing, only looks whether numba or JAX
        has been imported since (they import much after their events)."""

        def find_spec(self, name, path=None, target=None):
            jit_listen(False)
            return None

    watch = Watch()

    def jit_end(before):
        # ',"jit_compiles":N,"jit_compile_s":S,"jit_functions":{...}' since `before`, once listened
        if not jit[3]:
            return ""
        n0, s0, f0 = before if before is not None else (0, 0.0, {})
        fns = {k: v - f0.get(k, 0) for k, v in jit[2].items() if v != f0.get(k, 0)}
        return ',"jit_compiles":%d,"jit_compile_s":%s,"jit_functions":%s' % (
            jit[0] - n0, repr(round(jit[1] - s0, 6)), dumps(fns, sort_keys=True))

    def peak_kib():
        try:
            return rusage(rself).ru_maxrss if rusage else -1  # KiB on Linux
        except BaseException:
            return -1

    def memory(peak0):
        # ',"rss_bytes":N,"peak_growth_bytes":N', null where unknown
        rss = "null"
        try:
            if statm >= 0:
                rss = "%d" % (int(os.pread(statm, 128, 0).split()[1]) * page)
        except BaseException:
            rss = "null"
        peak1 = peak_kib()
        grew = "%d" % ((peak1 - peak0) * 1024) if peak0 >= 0 and peak1 >= peak0 else "null"
        return ',"rss_bytes":%s,"peak_growth_bytes":%s' % (rss, grew)

    def pre_run_cell(info):
        try:
            src = info.raw_cell
            if not isinstance(src, str):
                src = ""
            digest = sha256(crlf.sub("\n", src).rstrip(" \t\n\r\f\v")
                            .encode("utf-8", "surrogatepass")).hexdigest()
            try:
                cwd = dumps(getcwd())
            except OSError:
                cwd = "null"
            seq[0] += 1
            count = getattr(ip, "execution_count", None)
            cell_id = getattr(info, "cell_id", None)
            extra = ',"execution_count":%s,"cell_id":%s}\n' % (
                count if isinstance(count, int) and getattr(info, "store_history", False) else "null",
                dumps(cell_id) if isinstance(cell_id, str) else "null")
            start_us = wall_ns() // 1000
            body = ',"cwd":%s,"seq":%d,"source_sha256":"%s","start":"%s"' % (
                cwd, seq[0], digest, stamp(start_us))
            write(fd, (head_start + body + extra).encode("utf-8", "surrogatepass"))
            jit_listen()
            before = (jit[0], jit[1], dict(jit[2])) if jit[3] else None
            pending.append((info, start_us, body, extra, mono_ns(), peak_kib(), before))
        except BaseException:
            pass

    def post_run_cell(result):
        try:
            t = mono_ns()
            if not pending:
                return
            info = getattr(result, "info", None)
            if result is not None and info is not pending[-1][0]:
                return  # e.g. an empty cell: post_run_cell without pre_run_cell
            _, start_us, body, extra, t0, peak0, before = pending.pop()
            dur_us = (t - t0 + 500) // 1000
            ok, err = False, "null"
            if result is not None:
                ok = bool(result.success)
                exc = result.error_before_exec or result.error_in_exec
                if not ok and exc is not None:
                    err = dumps(type(exc).__name__)
            write(fd, (head_end + body + ',"end":"%s","duration_s":%r,"success":%s,"error":%s' % (
                stamp(start_us + dur_us), dur_us / 1e6, "true" if ok else "false", err)
                + memory(peak0) + jit_end(before) + extra).encode("utf-8", "surrogatepass"))
            if not pending:
                env_line(seq[0])
        except BaseException:
            pass

    try:
        ip.events.register("pre_run_cell", pre_run_cell)
        ip.events.register("post_run_cell", post_run_cell)
        jit_listen()
        if len(jit[3]) < 2:
            sys.meta_path.insert(0, watch)
    except BaseException:
        try:
            os.close(fd)
            if statm >= 0:
                os.close(statm)
        except OSError:
            pass


try:
    _qe_telemetry_install()
except BaseException:
    pass
del _qe_telemetry_install
