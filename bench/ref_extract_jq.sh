#!/bin/sh
# ref_extract_jq.sh CACHE_DIR - the jq + sqlite3 reference of qe-cache-extract:
# the pipeline a user would write with the two standard tools.
#
# Prints one cell record per code cell of each document's current cache
# record, in qe-cache-extract's order, with this SUBSET of the fields:
#   kind document cache_key index label tags status error execution_count
#   first_line duration_s timing_source timing_method timing_note busy_s start end
# Rules as in qe-cache-extract(1): document names from the longest common
# directory, the newest record per document, source normalised (CR LF, lone
# CR, trailing white space) for blankness and first_line, status
# (skipped/not-run/error/ok), metadata.execution timing (input-reply, else
# started-reply, else busy-idle; jupyterlab when shell.execute_reply.started
# is there), the stale and invalid rules with a 5 s margin, microsecond
# arithmetic on integers.
# Not implemented (jq has no SHA-256, and the benchmark cache has none of
# them): source_sha256, output_sha256, cell_id, notebook records, failed
# notebooks, papermill and ExecuteTime timing, offsets other than Z.
set -eu
cache=${1:?usage: ref_extract_jq.sh CACHE_DIR}
[ -f "$cache/global.db" ] || cache=$cache/.jupyter_cache
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sqlite3 -json "file:$cache/global.db?mode=ro" \
    "SELECT pk, hashkey, uri, data, created FROM nbcache" > "$tmp/rows.json"

# Name documents, keep the newest record of each, in document order.
jq -c '
  def dirparts: split("/") | .[:-1];
  def common(a; b): reduce range(0; [a, b | length] | min) as $i
      ({n: 0, go: true}; if .go and a[$i] == b[$i] then .n += 1 else .go = false end) | .n;
  (map(.uri | dirparts)) as $ds
  | (reduce $ds[1:][] as $d ($ds[0] | length; [., common($ds[0]; $d)] | min)) as $n
  | map(. + {document: (.uri | split("/") | .[$n:] | join("/") | sub("\\.[^./]*$"; ""))})
  | group_by(.document)
  | map(sort_by(.created, .pk) | last)
  | sort_by(.document | explode)
  | map({key: .hashkey, value: {document, created: .created,
         exec: ((.data // "{}" | fromjson | .execution_seconds) // null)}})
  | from_entries' "$tmp/rows.json" > "$tmp/meta.json"
jq -r --arg c "$cache" 'keys_unsorted[] | "\($c)/executed/\(.)/base.ipynb"' "$tmp/meta.json" > "$tmp/files"

# shellcheck disable=SC2046
jq -c --slurpfile meta "$tmp/meta.json" '
  def us: if type != "string" then null else
      capture("^(?<s>[0-9]{4}-[0-9]{2}-[0-9]{2})[T ](?<t>[0-9]{2}:[0-9]{2}:[0-9]{2})(\\.(?<f>[0-9]{1,9}))?Z?$")
      | ((.s + "T" + .t + "Z") | fromdateiso8601) * 1000000
        + (((.f // "") + "000000")[0:6] | tonumber) end;
  def fmt: ((. / 1000000 | floor) | todate | .[0:19]) + "."
      + ((. % 1000000) | tostring | ("000000" + .)[-6:]) + "Z";
  def first_line: split("\n") | map(sub("^[ \t]+"; "") | sub("[ \t\f\u000b]+$"; ""))
      | (map(select(length > 0)) | first) // null
      | if . != null and length > 80 then .[0:80] + "\u2026" else . end;
  (input_filename | split("/") | .[-2]) as $hk
  | $meta[0][$hk] as $m
  | ($m.created | us) as $created
  | (if $m.exec == null then -1 else $m.exec * 1000000 | round end) as $exec
  | 5000000 as $margin
  | [.cells[] | select(.cell_type == "code")] | to_entries[]
  | .key as $index | .value as $c
  | ($c.source | if type == "array" then join("") else (. // "") end
      | gsub("\r\n?"; "\n") | sub("[ \t\n\r\f\u000b]+$"; "")) as $src
  | ($c.metadata // {}) as $md
  | ($md.tags // [] | map(strings)) as $tags
  | ([$c.outputs[]? | select(.output_type == "error")] | first) as $err
  | ($md.execution // null) as $ex
  | (if $ex == null then null else
      ($ex["shell.execute_reply"] | us) as $reply
      | ($ex["iopub.execute_input"] | us) as $in
      | ($ex["shell.execute_reply.started"] | us) as $started
      | ($ex["iopub.status.busy"] | us) as $busy
      | ($ex["iopub.status.idle"] | us) as $idle
      | (if $ex | has("shell.execute_reply.started") then "jupyterlab" else "nbclient" end) as $w
      | (if $reply != null and $in != null then {s: $in, e: $reply, m: "input-reply"}
         elif $reply != null and $started != null then {s: $started, e: $reply, m: "started-reply"}
         elif $busy != null and $idle != null then {s: $busy, e: $idle, m: "busy-idle"}
         else null end)
      | if . == null then null else . + {w: $w, us: (.e - .s),
          busy: (if $busy != null and $idle != null and $idle >= $busy then $idle - $busy else null end)} end
     end) as $tm
  | (($c.execution_count | type) == "number" or $tm != null or ($c.outputs // [] | length) > 0) as $executed
  | (if $tags | index("skip-execution") then ["skipped", "skipped"]
     elif $src == "" or ($executed | not) then ["not-run", "not-executed"]
     elif $err != null then ["error", null] else ["ok", null] end) as [$status, $note0]
  | (if $note0 != null then {note: $note0}
     elif $tm == null then {note: "no-timing"}
     elif ($exec >= 0 and $tm.s < $created - $exec - $margin) or $tm.e - $created > $margin then {note: "stale"}
     elif $tm.us < 0 or ($exec >= 0 and $tm.us > $exec + $margin) then {note: "invalid"}
     else {note: null, dur: true} end) as $j
  | {kind: "cell", document: $m.document, cache_key: $hk, index: $index,
     label: (($md.name | strings) // ($md.mystnb.figure.name | strings) // null),
     tags: $tags, status: $status,
     error: (if $err == null then null else ($err.ename // "Error")
             + (if ($err.evalue // "") != "" then ": " + $err.evalue else "" end) end),
     execution_count: ($c.execution_count | numbers // null),
     first_line: ($src | first_line),
     duration_s: (if $j.dur then $tm.us / 1000000 else null end),
     timing_source: (if $j.dur then $tm.w else null end),
     timing_method: (if $j.dur then $tm.m else null end),
     timing_note: $j.note,
     busy_s: (if $j.dur and $tm.busy != null then $tm.busy / 1000000 else null end),
     start: (if $j.dur then $tm.s | fmt else null end),
     end: (if $j.dur then $tm.e | fmt else null end)}
' $(cat "$tmp/files")
