# qe-replicate's profile run (qe_replicate 1), in its kernel, sent by
# qe-replicate as silent executes.
#
# _qe_args: (ip, "jitted"), before the first cell: numba's jitted functions
# called from Python made visible to cProfile. A dispatcher's call runs in
# C (cProfile sees no call, and the compiled code's time would be its
# caller's, the lecture's own Python); here each call goes through a
# function of the dispatcher's own name in the file "<numba jitted>", whose
# own time is the compiled code's (the compiler's frames are its callees).
# Its globals hold only the builtins: a first call compiles, and numba's
# compiler reads the calling frame's globals' __builtins__.
# numba need not be imported yet: a finder on sys.meta_path only looks,
# until its dispatcher is there.
#
# _qe_args: (ip, (dump, rows), ...), after the last cell: each cell ran
# under %%prun -D, which left cProfile's dump; this writes its rows as
# plain lines, "file<TAB>line<TAB>function<TAB>calls<TAB>own seconds<TAB>
# cumulative seconds", for qe-cache-extract --runs to make the profile
# record of; a dump that is not there is skipped.


def _qe_jitted_visible():
    import builtins
    import sys
    import types

    def one(call, disp, name):
        def jitted(*args, **kwargs):
            return call(disp, *args, **kwargs)
        named = {"co_name": name, "co_filename": "<numba jitted>"}
        if hasattr(jitted.__code__, "co_qualname"):
            named["co_qualname"] = name
        return types.FunctionType(jitted.__code__.replace(**named), {"__builtins__": builtins}, name, None,
                                  jitted.__closure__)

    def patch():
        cls = getattr(sys.modules.get("numba.core.dispatcher"), "Dispatcher", None)
        base = getattr(sys.modules.get("numba._dispatcher"), "Dispatcher", None)
        if cls is None or base is None:
            return False
        if "_qe_jitted" not in cls.__dict__:
            call = base.__call__

            def __call__(self, *args, **kwargs):
                f = self.__dict__.get("_qe_jitted")
                if f is None:
                    f = self.__dict__["_qe_jitted"] = one(call, self, getattr(self.py_func, "__qualname__", "?"))
                return f(*args, **kwargs)
            cls.__call__, cls._qe_jitted = __call__, None
        return True

    class Watch:
        def find_spec(self, name, path=None, target=None):
            if patch():
                sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
            return None

    if not patch():
        sys.meta_path.insert(0, Watch())


def _qe_profile_rows(pairs):
    import os
    import pstats

    def field(x):
        return str(x).replace("\t", " ").replace("\n", " ")

    for dump, rows in pairs:
        if not os.path.isfile(dump):
            continue
        st = pstats.Stats(dump)
        with open(rows, "w") as f:
            for (file, line, fn), (_, nc, tt, ct, _) in st.stats.items():
                f.write("%s\t%d\t%s\t%d\t%r\t%r\n" % (field(file), line, field(fn), nc, tt, ct))


if _qe_args[1:] == ("jitted",):
    _qe_jitted_visible()
else:
    _qe_profile_rows(_qe_args[1:])
