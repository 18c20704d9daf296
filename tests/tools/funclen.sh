#!/bin/sh
# funclen.sh [MAX] [FILE...]: C functions of cmd/ and lib/ (or FILE...) whose
# body is longer than MAX lines (default 80), as "file:line: name: N lines".
# Functions are in style(9) form: the name at the start of a line, the body
# between a '{' and a '}' in column one. Exit 1 when any is found.
max=${1:-80}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/../.." || exit 2
[ $# -eq 0 ] && set -- cmd/*.c lib/*.c lib/*/*.c
awk -v max="$max" '
	/^[A-Za-z_][A-Za-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name); at = FNR }
	/^\{/ { start = FNR }
	/^\}/ && start {
		n = FNR - start - 1
		if (n > max) { printf "%s:%d: %s: %d lines\n", FILENAME, at, name, n; bad = 1 }
		start = 0
	}
	END { exit bad }
' "$@"
