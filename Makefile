# qe-telemetry: small C filters over NDJSON. See README.md.
PREFIX   = /usr/local
BINDIR   = $(PREFIX)/bin
MANDIR   = $(PREFIX)/share/man
DATADIR  = $(PREFIX)/share/qe-telemetry
# The Python package qe_telemetry (the Sphinx extension): put this folder on
# the build's PYTHONPATH (docs/exec-time.md).
PYTHONDIR = $(DATADIR)/python
PKG_CONFIG = pkg-config

CC       = cc
CFLAGS   = -O2 -g
WARN     = -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wno-overlength-strings
# Required flags live outside CFLAGS so `make CFLAGS=-O0` cannot drop them.
# -MMD -MP: each object's header dependencies, kept beside it in $(B)/.
QE_CFLAGS = $(WARN) -D_GNU_SOURCE -Ilib $(CJSON_CFLAGS) -MMD -MP $(CFLAGS)

# Everything a build makes but the tools goes under B, none of it beside the
# sources: objects (build/lib/FOLDER/...), lib's archive, the unit drivers.
B = build

CJSON_CFLAGS  = `$(PKG_CONFIG) --cflags libcjson 2>/dev/null`
CJSON_LIBS    = `$(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson`
# Debian 12's libjq-dev (jq 1.6) ships no libjq.pc.
JQ_LIBS       = `$(PKG_CONFIG) --libs libjq 2>/dev/null || echo -ljq`
ARCHIVE_LIBS  = `$(PKG_CONFIG) --libs libarchive 2>/dev/null || echo -larchive`
SQLITE_LIBS   = `$(PKG_CONFIG) --libs sqlite3 2>/dev/null || echo -lsqlite3`
CRYPTO_LIBS   = `$(PKG_CONFIG) --libs libcrypto 2>/dev/null || echo -lcrypto`
Z_LIBS        = `$(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz`

TOOLS = $(patsubst cmd/%.c,%,$(wildcard cmd/*.c))
# lib/ holds the foundation; lib/FOLDER/ one tool's modules (lib/README).
LIBSRC = $(wildcard lib/*.c lib/*/*.c)
LIBOBJ = $(patsubst %.c,$(B)/%.o,$(LIBSRC))
LIBQE = $(B)/libqe.a
# $(LIBQE) comes first on every link line: its modules call these.
BASE_LIBS = $(CJSON_LIBS) $(CRYPTO_LIBS) $(Z_LIBS) -lm

# Per-tool link lists: each tool links only what it uses.
qe-cache-extract_LIBS = $(ARCHIVE_LIBS) $(SQLITE_LIBS)
qe-cell-diff_LIBS     = $(JQ_LIBS)
qe-history_LIBS       = $(SQLITE_LIBS)
ALL_LIBS = $(ARCHIVE_LIBS) $(SQLITE_LIBS) $(JQ_LIBS) $(BASE_LIBS)

# Unit drivers of lib/ modules: tests/unit/MODULE.c, built as
# $(B)/unit/MODULE, runs tests/unit/MODULE.test.
UNIT = $(patsubst tests/unit/%.c,$(B)/unit/%,$(filter-out tests/unit/harness.c,$(wildcard tests/unit/*.c)))

all: $(TOOLS)

# Optional: the action and `make dist` build from the sources listed in
# tools/sources only, which leave the benchmarks out.
-include bench/Makefile.inc

$(LIBQE): $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(QE_CFLAGS) -c -o $@ $<

$(TOOLS): %: $(B)/cmd/%.o $(LIBQE)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBQE) $($@_LIBS) $(BASE_LIBS)

$(B)/unit/%: $(B)/tests/unit/%.o $(B)/tests/unit/harness.o $(LIBQE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/tests/unit/harness.o $(LIBQE) $(ALL_LIBS)

$(B)/tests/unit/%.o: QE_CFLAGS += -Itests/unit

# Keep the objects make builds on the way to a unit driver.
.SECONDARY:

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# The table-driven unit tests alone (also run by make check, in tests/00-unit.bats).
unit: $(UNIT)
	@for u in $(UNIT); do printf '%s: ' $$u; ./$$u tests/unit/$${u##*/}.test || exit 1; done

CHECK_TESTS = tests

check: all $(UNIT)
	PATH="$(CURDIR):$(CURDIR)/hook:$(CURDIR)/python:$$PATH" bats $(CHECK_TESTS)
	mandoc -T lint -W warning man/*.[17]

# AddressSanitizer + UBSan build of everything, then every suite but those
# whose time is somebody else's program: the action's runner simulation
# (installs, builds, git, HTTP: half the suite's time), Sphinx builds, real
# mystmd builds and the kernels of qe-replicate's suites. They run the same
# tools on the same kinds of records as the tools' own suites (90-hostile's
# attacker's input to every tool among them), the unit drivers and the fuzz
# targets, which do run sanitized. CI has 90 minutes for the suite (about
# 41), this, valgrind and fuzzing: this pass took 30 of them with the kernel
# suites and the action's hostile-artifact test, about 13 without.
ASAN_SKIP = tests/action%.bats tests/sphinx.bats tests/hook.bats tests/mystmd%.bats tests/qe-replicate.bats \
	tests/qe-sweep.bats tests/replicate-triage.bats tests/fidelity%.bats
ASAN_TESTS = $(filter-out $(ASAN_SKIP),$(sort $(wildcard tests/*.bats)))
SANITIZE = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
asan:
	$(MAKE) clean
	QE_SANITIZED=1 $(MAKE) CFLAGS='$(SANITIZE)' CHECK_TESTS='$(ASAN_TESTS)' check
	$(MAKE) clean

# The suite again with every tool run under valgrind (memcheck): any error or
# definite leak fails the test that ran it (status 99).
valgrind: all $(UNIT)
	rm -rf tests/.valgrind && mkdir -p tests/.valgrind
	for u in $(UNIT); do \
		valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
			--show-leak-kinds=definite ./$$u tests/unit/$${u##*/}.test >/dev/null 2>tests/.valgrind/unit.log || \
			{ cat tests/.valgrind/unit.log; exit 1; }; \
	done
	for t in $(TOOLS); do \
		printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite "%s/%s" "$$@"\n' "$(CURDIR)" "$$t" > tests/.valgrind/$$t; \
		chmod +x tests/.valgrind/$$t; \
	done
	QE_VALGRIND=1 PATH="$(CURDIR)/tests/.valgrind:$(CURDIR)/hook:$$PATH" bats $(VALGRIND_TESTS)

# The suites that run qe-cache-extract, with every invocation run at -j 1,
# -j 2 and -j 8 and compared (stdout, stderr, exit status: tests/tools/jobs-same.sh).
jobs-check: all
	rm -rf tests/.jobs && mkdir -p tests/.jobs
	printf '#!/bin/sh\nQE_REAL_EXTRACT="%s/qe-cache-extract" exec "%s/tests/tools/jobs-same.sh" "$$@"\n' "$(CURDIR)" "$(CURDIR)" > tests/.jobs/qe-cache-extract
	chmod +x tests/.jobs/qe-cache-extract
	PATH="$(CURDIR)/tests/.jobs:$(CURDIR):$(CURDIR)/hook:$$PATH" bats $(JOBS_TESTS) < /dev/null

JOBS_TESTS = tests/00-basics.bats tests/qe-cache-extract.bats tests/90-hostile.bats tests/hook.bats tests/qe-cell-diff.bats

# the readers of caches, archives, notebooks and records, where an
# uninitialised read (which ASan does not see) would be; qe-comment's suite
# runs sanitized only (CI's 90 minutes)
VALGRIND_TESTS = tests/00-basics.bats tests/qe-cache-extract.bats tests/qe-stamp.bats tests/qe-cell-diff.bats

# libFuzzer targets (clang): FUZZ_TIME seconds each; fuzz-smoke is CI's short run.
fuzz:
	FUZZ_TIME=$${FUZZ_TIME:-600} sh fuzz/run.sh

fuzz-smoke:
	FUZZ_TIME=15 sh fuzz/run.sh

# The prebuilt, relocatable bundle of the tools (tools/dist.sh): DISTDIR/
# qe-telemetry-VERSION-linux-ARCH.tar.gz, shared libraries beyond glibc's in
# its lib/, found through the binaries' $$ORIGIN-relative run path.
DISTDIR = dist
dist:
	sh tools/dist.sh $(DISTDIR)

# Install the Debian/Ubuntu packages that building (deps) or every test
# (deps-test) needs; the list is in tools/deps.
deps:
	sh tools/deps build

deps-test:
	sh tools/deps test

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DATADIR)/schema
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1
	install -m 644 man/*.7 $(DESTDIR)$(MANDIR)/man7
	install -m 644 schema/*.json $(DESTDIR)$(DATADIR)/schema
	install -m 755 hook/qe-hook hook/qe-replicate $(DESTDIR)$(BINDIR)
	install -m 644 hook/qe_telemetry_startup.py hook/qe_replicate_values.py hook/qe_replicate_profile.py \
	    hook/qe_replicate_notebook.py $(DESTDIR)$(DATADIR)
	mkdir -p $(DESTDIR)$(PYTHONDIR)/qe_telemetry
	install -m 644 python/qe_telemetry/*.py $(DESTDIR)$(PYTHONDIR)/qe_telemetry
	mkdir -p $(DESTDIR)$(DATADIR)/mystmd
	install -m 644 mystmd/exec-time.mjs $(DESTDIR)$(DATADIR)/mystmd

# The fuzzers' corpora (build/fuzz, fuzz/run.sh) outlive a clean, as they
# did in fuzz/work: they are what the fuzzing found, not objects.
clean:
	rm -rf $(TOOLS) $(B)/cmd $(B)/lib $(B)/tests $(B)/unit $(LIBQE)

.PHONY: all unit check asan valgrind jobs-check fuzz fuzz-smoke dist deps deps-test install clean
