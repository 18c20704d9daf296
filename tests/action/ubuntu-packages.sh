#!/usr/bin/env bash
# The packages of `make check` on Ubuntu 24.04 (the same names as Debian's),
# for .github/workflows/ci.yml: tools/deps test, through the runner's
# passwordless sudo; node and npm come with the runner.
set -euo pipefail
cd "$(dirname "$0")/../.."
sudo apt-get update -qq
tools/deps test
jq --version
