#!/usr/bin/env node
// tests/tools/duckdb-query.js SQLFILE: run the SQL statements of SQLFILE in an
// in-memory DuckDB (the npm package @duckdb/node-api, installed under
// tests/.node by tools/deps test) in the current directory, and print the
// rows of the last statement as JSON lines (numbers as JSON numbers, NULL
// as null).  Exit 3 when the package is not installed (the caller skips),
// 2 on an SQL error.
'use strict';
const fs = require('fs');
const path = require('path');

const mod = path.join(__dirname, '..', '.node', 'node_modules', '@duckdb', 'node-api');
let duckdb;
try {
	duckdb = require(mod);
} catch (e) {
	process.stderr.write(`duckdb-query: @duckdb/node-api is not installed under tests/.node (tools/deps test installs it): ${e.message}\n`);
	process.exit(3);
}

function plain(v) {
	if (v === null || v === undefined) return null;
	if (typeof v === 'bigint') return Number(v);
	if (Array.isArray(v)) return v.map(plain);
	if (typeof v === 'object') {
		const o = {};
		for (const k of Object.keys(v)) o[k] = plain(v[k]);
		return o;
	}
	return v;
}

(async () => {
	const sql = fs.readFileSync(process.argv[2], 'utf8');
	const instance = await duckdb.DuckDBInstance.create(':memory:');
	const conn = await instance.connect();
	const reader = await conn.runAndReadAll(sql);
	for (const row of reader.getRowObjectsJS()) process.stdout.write(JSON.stringify(plain(row)) + '\n');
})().catch((e) => {
	process.stderr.write(`duckdb-query: ${e.message}\n`);
	process.exit(2);
});
