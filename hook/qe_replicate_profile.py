# qe-replicate's profile rows (qe_replicate 1): runs in the kernel of a
# profile run, sent by qe-replicate as a silent execute after the last
# cell. Each cell ran under %%prun -D, which left cProfile's dump; this
# writes its rows as plain lines, "file<TAB>line<TAB>function<TAB>calls
# <TAB>own seconds<TAB>cumulative seconds", for qe-cache-extract --runs to
# make the profile record of (the top functions, their files as shown).
#
# _qe_args: (ip, (dump, rows), ...); a dump that is not there is skipped.


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


_qe_profile_rows(_qe_args[1:])
