#!/usr/bin/env bash
# The packages of .ci/run under their Ubuntu 24.04 names (the same names
# today), for .github/workflows/ci.yml; node and npm come with the runner.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
sudo apt-get update -qq
sudo apt-get install -y -qq --no-install-recommends \
	build-essential pkg-config \
	libcjson-dev libjq-dev jq libarchive-dev libsqlite3-dev sqlite3 zlib1g-dev libssl-dev \
	bats bats-support bats-assert bats-file \
	python3 python3-jsonschema python3-nbclient python3-nbformat python3-ipykernel \
	mandoc zip valgrind cmark-gfm shellcheck > /dev/null
jq --version
