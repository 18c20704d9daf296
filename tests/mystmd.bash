# Loaded by the .bats files that build a MyST book with the real mystmd
# (npm mystmd, pinned in tools/deps, under tests/.node) and Debian's
# python3-jupyter-server, offline: `myst build --site --execute` executes
# and writes _build/site/content/*.json, then fails (exit 1) fetching the
# site theme.  It leaves its Jupyter server (and at times a kernel) running
# on that failure, so every build carries a unique token in its environment,
# which the server and its kernels inherit, and the processes carrying it
# are ended afterwards, by PID (myst_end).

MYST="$TESTS_DIR/.node/node_modules/.bin/myst"

# myst_skip: skip the test where npm could not install mystmd; from
# setup_file, where bats 1.8 cannot skip, return 1 instead (the caller
# returns, and its setup skips each test)
myst_skip() {
	[ ! -x "$MYST" ] || return 0
	[ -n "${BATS_TEST_NAME:-}" ] || return 1
	skip "mystmd is not installed under tests/.node (tools/deps test: npm could not install it)"
}

# myst_env DIR: the environment of a build, exported; state under DIR:
# `python` is Debian's python3 (mystmd runs `python -m jupyter_server`, the
# first python on PATH), a config that lets the server run as root (it
# refuses root otherwise; ignored when not root), private runtime and data
# folders, and MYST_TOKEN, the token of this build's processes.
myst_env() {
	local d=$1
	mkdir -p "$d/shim" "$d/jupyter-config" "$d/runtime" "$d/data"
	ln -sf /usr/bin/python3 "$d/shim/python"
	printf '{"ServerApp": {"allow_root": true, "ip": "127.0.0.1", "open_browser": false}}\n' \
		> "$d/jupyter-config/jupyter_server_config.json"
	PATH="$d/shim:$PATH"
	JUPYTER_CONFIG_DIR=$d/jupyter-config
	JUPYTER_RUNTIME_DIR=$d/runtime
	JUPYTER_DATA_DIR=$d/data
	MYST_TOKEN=qe-myst-$$-$RANDOM$RANDOM
	export PATH JUPYTER_CONFIG_DIR JUPYTER_RUNTIME_DIR JUPYTER_DATA_DIR MYST_TOKEN
	unset JUPYTER_BASE_URL JUPYTER_TOKEN JPY_SESSION_NAME
}

# myst_build BOOK [MYST-ARGS...]: `myst build --site MYST-ARGS` in BOOK, in
# the environment myst_env made, then its server and kernels ended
# (myst_end).  myst's output goes to stdout; returns myst's exit status.
myst_build() {
	local book=$1 rc=0
	shift
	(cd "$book" && env QE_MYST_BUILD="$MYST_TOKEN" "$MYST" build --site "$@" 2>&1) || rc=$?
	myst_end "$MYST_TOKEN"
	return "$rc"
}

# myst_pids TOKEN: the processes whose environment carries QE_MYST_BUILD=TOKEN
myst_pids() {
	local e pid
	for e in /proc/[0-9]*/environ; do
		pid=${e#/proc/}
		pid=${pid%/environ}
		[ "$pid" = "$BASHPID" ] && continue
		# NUL-separated: one variable per line for grep -x
		if { tr '\0' '\n' < "$e"; } 2> /dev/null | grep -qx "QE_MYST_BUILD=$1"; then
			echo "$pid"
		fi
	done
}

# myst_end TOKEN: end the Jupyter server and kernels of a build (kernels run
# in sessions of their own: ending myst's process group would miss them):
# SIGTERM, SIGKILL after 5 s.
myst_end() {
	local pids n=0
	pids=$(myst_pids "$1")
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086 # one word per PID
	kill -TERM $pids 2> /dev/null || true
	# an ended process's environ reads empty (a zombie's too)
	while [ -n "$pids" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
		pids=$(myst_pids "$1")
	done
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -KILL $pids 2> /dev/null || true
}
