#!/usr/bin/env bash
# man-examples.sh PAGE DIR: the examples of PAGE's EXAMPLES section, as files
# under DIR for tests/man-examples.bats to run.
#
# The convention (man pages in mdoc; see man-examples.bats):
#   - every `.Bd -literal` block of the EXAMPLES section is an example;
#   - a block whose line before `.Bd` is the roff comment
#     `.\" not run: REASON` is not run (REASON says what it needs: a real
#     build, the network, GitHub, a CI run);
#   - any other block starts with a command: a line `$ COMMAND`, continued
#     on the next lines while the shell would read on (an open quote, a
#     trailing `|`, `\`, `&&`);
#   - the lines after a command, up to the next `$ ` line, are its standard
#     output, compared exactly; a line that is only `...` stands for any
#     number of lines, a `…` inside a line for any text.  No lines shown: the
#     output is not compared.
#
# Written under DIR: NNN.cmd (one command), NNN.out (its output, when the
# page shows one), NNN.where (PAGE:LINE of the command); `notrun` (one line
# per block not run: PAGE:LINE: REASON), `notrun.lines` (their lines) and
# `all.lines` (every line of every block, as read).  Roff escapes are undone as mandoc
# renders them; a request line inside a block, an unknown escape or a block
# neither run nor marked is an error (status 2, the reason on stderr).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: man-examples.sh PAGE DIR" >&2; exit 2; }
page=$1 dir=$2
mkdir -p "$dir"
: > "$dir/notrun"
: > "$dir/notrun.lines"
: > "$dir/all.lines"

# awk: one line per literal line of an EXAMPLES block, tagged
#   B LINE [REASON]    a block starts (at source LINE; REASON if not run)
#   L LINE TEXT        a line of it, escapes undone
#   E LINE MESSAGE     an error
lines=$(awk '
function unescape(s,    out, c, n) {
	out = ""
	while ((n = index(s, "\\")) > 0) {
		out = out substr(s, 1, n - 1)
		c = substr(s, n + 1, 1)
		if (c == "e") { out = out "\\"; s = substr(s, n + 2) }
		else if (c == "&" || c == "|") { s = substr(s, n + 2) }
		else if (c == "-") { out = out "-"; s = substr(s, n + 2) }
		else if (c == " ") { out = out " "; s = substr(s, n + 2) }
		else if (c == "(") {
			c = substr(s, n + 2, 2)
			if (!(c in named)) { bad = "unknown escape \\(" c; return "" }
			out = out named[c]; s = substr(s, n + 4)
		} else { bad = "unknown escape \\" c; return "" }
	}
	return out s
}
BEGIN {
	named["mu"] = "×"; named["aq"] = "\047"; named["dq"] = "\""; named["rs"] = "\\"
	named["em"] = "—"; named["en"] = "–"; named["ti"] = "~"; named["ha"] = "^"
	named["ga"] = "`"; named["->"] = "→"; named["<-"] = "←"; named["mc"] = "µ"
}
/^\.Sh / { ex = ($0 == ".Sh EXAMPLES"); next }
!ex { next }
inblock && /^\.Ed/ { inblock = 0; next }
inblock && /^\./ { print "E " NR " a request inside an example block: " $0; next }
inblock {
	bad = ""
	t = unescape($0)
	if (bad != "") print "E " NR " " bad
	else print "L " NR " " t
	next
}
/^\.Bd -literal/ { inblock = 1; print "B " NR (prev ~ /^\.\\" not run: / ? " " substr(prev, 14) : ""); next }
{ prev = $0 }
' "$page")

status=0
n=0 cmd='' out='' where='' reading=none
flush() {
	[ "$reading" = none ] && return 0
	n=$((n + 1))
	local f
	f=$(printf '%s/%03d' "$dir" "$n")
	printf '%s\n' "$cmd" > "$f.cmd"
	printf '%s\n' "$where" > "$f.where"
	[ -z "$out" ] || printf '%s' "$out" > "$f.out"
	cmd='' out='' reading=none
}
# complete TEXT: would the shell run TEXT as it stands (no open quote, no
# trailing pipe or backslash)?
complete() {
	case $1 in *\\) return 1 ;; esac
	bash -n -c "$1" 2> /dev/null
}
skipping=0
while IFS= read -r l; do
	tag=${l%% *} rest=${l#* }
	case $tag in
	E) echo "man-examples.sh: $page:${rest%% *}: ${rest#* }" >&2; status=2 ;;
	B)
		flush
		line=${rest%% *}
		if [ "$rest" != "$line" ]; then
			printf '%s:%s: %s\n' "$page" "$line" "${rest#* }" >> "$dir/notrun"
			skipping=1
		else
			skipping=0 first=1
		fi ;;
	L)
		line=${rest%% *} text=
		[ "$rest" = "$line" ] || text=${rest#* }
		printf '%s\n' "$text" >> "$dir/all.lines"
		if [ "$skipping" = 1 ]; then
			printf '%s\n' "$text" >> "$dir/notrun.lines"
			continue
		fi
		if [ "$reading" = cmd ] && ! complete "$cmd"; then
			cmd+=$'\n'"$text"
		elif [ "${text:0:2}" = '$ ' ]; then
			flush
			cmd=${text:2} where="$page:$line" reading=cmd
		elif [ "${first:-0}" = 1 ]; then
			echo "man-examples.sh: $page:$line: an example block neither starts with a \`\$ \` command nor is marked \`.\\\" not run: REASON\`" >&2
			status=2 skipping=1
		else
			out+="$text"$'\n' reading=out
		fi
		first=0 ;;
	esac
done <<< "$lines"
flush
if [ "$n" -eq 0 ] && [ ! -s "$dir/notrun" ]; then
	echo "man-examples.sh: $page: no EXAMPLES blocks" >&2
	status=2
fi
exit "$status"
