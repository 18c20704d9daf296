#!/usr/bin/env python3
"""Check lib/qe_record.c's field table (the unit driver's `record --dump`,
lines "KIND KEY TYPE") against schema/: each field is a property of its
kind's schema (schema/KIND.json) whose types include the table's type.
Prints one line per mismatch; exit 1 when there is one."""
import json
import os
import sys

SCHEMA = sys.argv[1]
TYPES = {"string": {"string"}, "number": {"number", "integer"}, "boolean": {"boolean"},
         "object": {"object"}, "array": {"array"}}
_files = {}


def load(name):
    if name not in _files:
        with open(os.path.join(SCHEMA, name), encoding="utf-8") as f:
            _files[name] = json.load(f)
    return _files[name]


def resolve(ref, here):
    name, _, frag = ref.partition("#")
    name = name or here
    node = load(name)
    for part in [p for p in frag.split("/") if p]:
        node = node[part]
    return node, name


def types(node, here, depth=0):
    """The JSON types a schema node allows (values of const/enum counted)."""
    if depth > 20 or not isinstance(node, dict):
        return set()
    out = set()
    t = node.get("type")
    if isinstance(t, str):
        out.add(t)
    elif isinstance(t, list):
        out.update(t)
    for v in ([node["const"]] if "const" in node else []) + list(node.get("enum") or []):
        out.add({str: "string", bool: "boolean", int: "integer", float: "number", dict: "object",
                 list: "array", type(None): "null"}[type(v)])
    if "$ref" in node:
        sub, name = resolve(node["$ref"], here)
        out |= types(sub, name, depth + 1)
    for k in ("oneOf", "anyOf", "allOf"):
        for sub in node.get(k) or []:
            out |= types(sub, here, depth + 1)
    return out


bad = 0
for line in sys.stdin:
    kind, key, typ = line.split()
    schema = load(f"{kind}.json")
    prop = (schema.get("properties") or {}).get(key)
    if prop is None:
        print(f"{kind} {key}: no such property in schema/{kind}.json")
        bad = 1
        continue
    allowed = types(prop, f"{kind}.json")
    if not allowed & TYPES[typ]:
        print(f"{kind} {key}: {typ} in lib/qe_record.c, {sorted(allowed) or 'no type'} in schema/{kind}.json")
        bad = 1
sys.exit(bad)
