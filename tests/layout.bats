#!/usr/bin/env bats
# The shape of lib/ (lib/README): the foundation in lib/, one folder per tool
# concern with its one public header, names that carry their file's prefix,
# no include circle, no tool folder reaching into another's, every header
# whole on its own. tests/tools/layout-check.py decides; these tests run it
# on the tree and on small trees made to break each rule once.

load helper

ROOT=$TESTS_DIR/..

@test "lib/ keeps its shape: entries, public headers, includes, no circle, exported prefixes" {
	run -0 python3 "$TESTS_DIR/tools/layout-check.py" "$ROOT" "$ROOT/build"
	assert_output ""
}

@test "every header of lib/ compiles on its own (it includes what it uses)" {
	local h failed=0
	for h in "$ROOT"/lib/*.h "$ROOT"/lib/*/*.h; do
		printf '#include "%s"\n' "${h#"$ROOT"/lib/}" > "$BATS_TEST_TMPDIR/one.c"
		if ! cc -std=c99 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$ROOT/lib" \
		    $(pkg-config --cflags libcjson 2>/dev/null) -fsyntax-only "$BATS_TEST_TMPDIR/one.c" 2> "$BATS_TEST_TMPDIR/err"; then
			echo "${h#"$ROOT"/}: $(grep -m1 'error' "$BATS_TEST_TMPDIR/err")"
			failed=1
		fi
	done
	[ "$failed" -eq 0 ]
}

@test "make tracks header dependencies: touching a folder's header rebuilds the objects that include it, and only those" {
	# in a copy, so the suite's own build (sanitized or not) is left alone
	local c=$BATS_TEST_TMPDIR/copy
	mkdir -p "$c"
	cp -r "$ROOT/Makefile" "$ROOT/lib" "$ROOT/cmd" "$c/"
	cd "$c"
	local one=build/lib/notebook/qe_extract.o other=build/lib/history/qe_hadd.o
	make -s "$one" "$other" > /dev/null
	run -0 make -n "$one" "$other"
	refute_output --partial " -o "
	sleep 1.1
	touch lib/notebook/qe_jcache.h
	run -0 make -n "$one" "$other"
	assert_line --partial "-o $one"
	refute_line --partial "-o $other"
	touch lib/qe_mem.h
	run -0 make -n "$one" "$other"
	assert_line --partial "-o $one"
	assert_line --partial "-o $other"
}

# mktree: a small tree that keeps every rule, in $T
mktree() {
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T/lib/widget" "$T/cmd"
	printf '#ifndef QE_H\n#define QE_H\n#endif\n' > "$T/lib/qe.h"
	printf '#include <stddef.h>\nvoid *qe_mem_get(size_t n);\n' > "$T/lib/qe_mem.h"
	printf '#include "qe_mem.h"\nvoid *qe_mem_get(size_t n) { (void)n; return 0; }\n' > "$T/lib/qe_mem.c"
	printf 'int qe_wpart_run(void);\n' > "$T/lib/widget/qe_wpart.h"
	printf '#include "qe_wpart.h"\n#include "qe_mem.h"\nint qe_wpart_run(void) { return qe_mem_get(1) != 0; }\n' > "$T/lib/widget/qe_wpart.c"
	printf '#include "qe_wpart.h"\n' > "$T/lib/widget/widget.h"
	printf '#include "qe.h"\n#include "widget/widget.h"\nint main(void) { return qe_wpart_run(); }\n' > "$T/cmd/qe-widget.c"
	printf 'README\n' > "$T/lib/README"
}

# build_tree: objects of $T's lib/ in $T/build
build_tree() {
	local c o
	for c in "$T"/lib/*.c "$T"/lib/*/*.c; do
		[ -f "$c" ] || continue
		o=$T/build/${c#"$T"/}
		mkdir -p "$(dirname "$o")"
		cc -std=c99 -I"$T/lib" -c -o "${o%.c}.o" "$c"
	done
}

@test "layout-check: a tree that keeps the rules passes" {
	mktree
	build_tree
	run -0 python3 "$TESTS_DIR/tools/layout-check.py" "$T" "$T/build"
	assert_output ""
}

@test "layout-check: a folder without its public header, a module without a header, a stray file" {
	mktree
	rm "$T/lib/widget/widget.h"
	printf '#include "qe_wpart.h"\n' > "$T/lib/widget/qe_other.h"
	sed -i 's|widget/widget.h|widget/qe_other.h|' "$T/cmd/qe-widget.c"
	printf 'int qe_lone(void) { return 0; }\n' > "$T/lib/qe_lone.c"
	touch "$T/lib/notes.txt"
	run -1 python3 "$TESTS_DIR/tools/layout-check.py" "$T"
	assert_line "layout: lib/widget: no public header widget/widget.h"
	assert_line "layout: lib/qe_lone.c: no header of its own"
	assert_line "layout: lib/notes.txt: neither a module, a folder nor README"
	assert_line "layout: cmd/qe-widget.c: includes lib/widget/qe_other.h: a main includes a folder's public header widget/widget.h only"
}

@test "layout-check: qe.h that includes, the foundation reaching into a folder, one folder into another, a main into two" {
	mktree
	mkdir -p "$T/lib/gadget"
	printf 'int qe_gpart_run(void);\n' > "$T/lib/gadget/qe_gpart.h"
	printf '#include "qe_gpart.h"\n' > "$T/lib/gadget/gadget.h"
	printf '#include "qe_mem.h"\n' >> "$T/lib/qe.h"
	printf '#include "widget/qe_wpart.h"\n' >> "$T/lib/qe_mem.c"
	printf '#include "gadget/qe_gpart.h"\n' >> "$T/lib/widget/qe_wpart.c"
	printf '#include "gadget/gadget.h"\n' >> "$T/cmd/qe-widget.c"
	printf '#include "nowhere.h"\n' >> "$T/lib/widget/qe_wpart.h"
	run -1 python3 "$TESTS_DIR/tools/layout-check.py" "$T"
	assert_line "layout: lib/qe.h: includes qe_mem.h: qe.h includes nothing"
	assert_line "layout: lib/qe_mem.c: includes lib/widget/qe_wpart.h: the foundation includes no tool folder"
	assert_line "layout: lib/widget/qe_wpart.c: includes lib/gadget/qe_gpart.h: another tool folder's header"
	assert_line "layout: cmd/qe-widget.c: includes the public headers of gadget, widget: one tool, one folder"
	assert_line "layout: lib/widget/qe_wpart.h: #include \"nowhere.h\": no such header"
}

@test "layout-check: two modules that include each other are a circle" {
	mktree
	printf 'int qe_wtwo_run(void);\n' > "$T/lib/widget/qe_wtwo.h"
	printf '#include "qe_wtwo.h"\n#include "qe_wpart.h"\nint qe_wtwo_run(void) { return 1; }\n' > "$T/lib/widget/qe_wtwo.c"
	printf '#include "qe_wtwo.h"\n' >> "$T/lib/widget/qe_wpart.c"
	run -1 python3 "$TESTS_DIR/tools/layout-check.py" "$T"
	assert_output "layout: lib/widget/qe_wpart <-> lib/widget/qe_wtwo: an include circle"
}

@test "layout-check: an exported name without its file's prefix; a static one is the file's business" {
	mktree
	printf 'int widget_helper(void) { return 2; }\nstatic int hidden(void) { return 3; }\nint qe_wpart_more(void) { return hidden(); }\n' >> "$T/lib/widget/qe_wpart.c"
	build_tree
	run -1 python3 "$TESTS_DIR/tools/layout-check.py" "$T" "$T/build"
	assert_output "layout: lib/widget/qe_wpart.c: exports widget_helper: not qe_wpart*"
}
