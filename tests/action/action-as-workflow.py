#!/usr/bin/python3
"""action-as-workflow.py ACTION_YML OUT_YML: wrap a composite action's steps
in a reusable workflow (on: workflow_call, the action's inputs declared as
string inputs) so that actionlint, which reads workflows only, checks the
steps' expressions, contexts and step references, and flags untrusted
values used inside run: scripts.  github.action_path is a valid context in
the workflow too.  Line numbers refer to OUT_YML."""
import sys

import yaml

spec = yaml.safe_load(open(sys.argv[1]))
inputs = {name: {"type": "string", "required": bool(i.get("required")), "description": i.get("description", "")}
          for name, i in spec.get("inputs", {}).items()}
for name, i in spec.get("inputs", {}).items():
    if "default" in i:
        inputs[name]["default"] = i["default"]
wf = {"name": spec["name"], "on": {"workflow_call": {"inputs": inputs}},
      "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": spec["runs"]["steps"]}}}
with open(sys.argv[2], "w") as f:
    yaml.safe_dump(wf, f, sort_keys=False, width=1000)
