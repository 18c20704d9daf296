# The job summary of one build (no comparison): slowest notebooks and cells,
# totals, failures.  Input: the stamped report, slurped (jq -s).  Every
# string from the build is escaped for GitHub-flavoured Markdown and capped,
# so a notebook cannot inject links, mentions, HTML or table cells.
def esc($n):
	tostring | gsub("[\r\n\t]+"; " ")
	| if length > $n then .[0:$n] + "…" else . end
	| gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;")
	| gsub("(?<c>[\\\\`*_{}\\[\\]()#+!|~$@:-])"; "\\\(.c)");
def secs: if . == null then "—" else (. * 100 | round / 100 | tostring) end;
def msecs: if . == null then "—" else (. * 1000 | round / 1000 | tostring) end;
def top($n): sort_by(-.s) | .[0:$n];

[.[] | select(.current != false)] as $all
| [$all[] | select(.kind == "notebook")] as $nbs
| [$all[] | select(.kind == "cell")] as $cells
| [$nbs[] | select(.status == "failed")] as $failed
| [$cells[] | select(.duration_s != null)] as $timed
| "## Lecture execution times (this build)\n\n"
+ "\($nbs | length) notebooks"
+ (if ($nbs | map(select(.origin != null)) | length) > 0
   then " (\($nbs | map(select(.origin == "executed")) | length) executed by this build, \($nbs | map(select(.origin == "inherited")) | length) inherited from the cache)"
   else "" end)
+ ", \($failed | length) failed; \($timed | length) of \($cells | length) code cells timed, "
+ "\($timed | map(.duration_s) | add // 0 | secs) s in timed cells, "
+ "\($nbs | map(.execution_seconds // 0) | add // 0 | secs) s of notebook execution.\n\n"
+ (if ($nbs | length) > 0 then
    "### Slowest notebooks\n\n| notebook | execution (s) | timed cells (s) | status |\n|---|--:|--:|---|\n"
    + ([$nbs[] | {d: .document, s: (.execution_seconds // 0), e: .execution_seconds, c: .cells_seconds, st: .status}]
       | top(10) | map("| \(.d | esc(80)) | \(.e | secs) | \(.c | secs) | \(.st | esc(20)) |") | join("\n"))
    + "\n\n" else "" end)
+ (if ($timed | length) > 0 then
    "### Slowest cells\n\n| notebook | code cell | label or first line | seconds |\n|---|--:|---|--:|\n"
    + ([$timed[] | {d: .document, i: .index, l: (.label // .first_line // ""), s: .duration_s}]
       | top(10) | map("| \(.d | esc(80)) | \(.i) | \(.l | esc(60)) | \(.s | msecs) |") | join("\n"))
    + "\n\n" else "" end)
+ (if ($failed | length) > 0 then
    "### Failed notebooks\n\n"
    + ($failed | map("- \(.document | esc(80)): \(.error // "failed" | esc(120))") | join("\n"))
    + "\n\n" else "" end)
