// qe-telemetry's {exec-time} roles for mystmd: a single-file plugin (no
// imports beyond node:), listed in a project's myst.yml:
//
//   project:
//     plugins:
//       - exec-time.mjs      (a copy, or the installed share/qe-telemetry/mystmd/exec-time.mjs)
//
// Roles exec-time, exec-time-s, exec-time-rounded, exec-time-share: the
// Sphinx extension's (python/qe_telemetry/sphinx.py) names, targets
// (`label`, `doc#label`, `doc`) and order of sources: this build's records
// (qe-cache-extract over the project's _build and the capture hook's log,
// records made since this build started), else the stored report(s), else
// for a whole document the cache's own (an earlier build's) record.
//
// Invariants:
//  - Nothing is read, decided or formatted here that the C tools do:
//    qe-exec-status --times picks each document's newest record and prints
//    each duration's forms (its one formatter; QE_EXEC_TIME_DIGITS and
//    QE_EXEC_TIME_STYLE are passed to it as --digits and --style, its own
//    defaults when unset).
//  - Roles leave a pending span; a project-stage transform fills it: mystmd
//    runs those after every page was executed, so this build's hook log is
//    complete.  The tools run once per build, not once per page.
//  - qe-cache-extract reads this build's pages, not the previous build's:
//    mystmd writes _build/site/content only after every transform ran, so
//    a document-stage transform (run for every page after its execution,
//    and for all pages before any project-stage one) keeps each page's
//    tree, and the first page with a pending role writes them all, as
//    site/content's {location, mdast} (mystmd hands transforms no
//    frontmatter: the reader takes the kernelspec from the source), to a
//    temporary folder for qe-cache-extract --pages.  Every page is needed,
//    not only the ones with roles: a role may name another document.
//  - Portable nodes only (span, text).  No portable node carries a tooltip,
//    so there is none (qe-exec-time-mystmd(7)).
//  - Our trouble never fails the build: a bad target is a warning through
//    mystmd's own channel (vfile.message, with the role's line); a tool or
//    the formatter not found is one info line, and placeholders.
//  - mystmd passes no options to transforms: configuration is environment
//    variables named like the Sphinx extension's config values.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FORMS = { 'exec-time': null, 'exec-time-s': 'seconds', 'exec-time-rounded': 'rounded', 'exec-time-share': 'share' };
const env = process.env;
const started = new Date().toISOString().replace(/(\.\d{3})Z$/, '$1000Z');
const placeholder = () => env.QE_EXEC_TIME_PLACEHOLDER ?? '\u2014';
const pages = new Map(); // source file -> its tree, of every page, from the document stage

// A program: a bare name is looked for in $QE_TELEMETRY_BIN, then on PATH.
function tool(name) {
  const dirs = [env.QE_TELEMETRY_BIN, ...(env.PATH ?? '').split(path.delimiter)].filter(Boolean);
  if (name.includes('/')) return isExe(name) ? name : null;
  for (const d of dirs) if (isExe(path.join(d, name))) return path.join(d, name);
  return null;
}
function isExe(p) {
  try { fs.accessSync(p, fs.constants.X_OK); return fs.statSync(p).isFile(); } catch { return false; }
}

// qe-exec-status's options for the printed forms: digits and style, when set.
function formArgs() {
  const args = [];
  if (env.QE_EXEC_TIME_DIGITS) args.push(`--digits=${env.QE_EXEC_TIME_DIGITS}`);
  if (env.QE_EXEC_TIME_STYLE) args.push(`--style=${env.QE_EXEC_TIME_STYLE}`);
  return args;
}

class Book {
  constructor(lookup) { this.documents = lookup?.documents ?? {}; }
  get(name) { return Object.prototype.hasOwnProperty.call(this.documents, name) ? this.documents[name] : undefined; }
  get size() { return Object.keys(this.documents).length; }
}
const cellOf = (e, label) => (e?.cells && Object.prototype.hasOwnProperty.call(e.cells, label) ? e.cells[label] : undefined);

// What one build knows about times: read once, at the first page.
class State {
  constructor() { this.loaded = false; this.current = null; this.reports = new Book(null); this.missing = []; }

  root() { return path.resolve(env.QE_EXEC_TIME_ROOT || process.cwd()); }

  load(vfile) {
    if (this.loaded) return;
    this.loaded = true;
    this.vfile = vfile;
    const status = tool(env.QE_EXEC_TIME_STATUS || 'qe-exec-status');
    if (!status) return this.notFound(env.QE_EXEC_TIME_STATUS || 'qe-exec-status', 'no times are read, placeholders shown');
    this.status = status;
    this.current = this.extract();
    this.reports = this.readReports();
  }

  notFound(name, consequence) {
    this.missing.push(name);
    this.vfile.info(`qe-telemetry: ${name} not found (install qe-telemetry, or set QE_TELEMETRY_BIN): ${consequence}`);
  }

  // A program's standard output, or null; each line of its standard error
  // is a warning (the tools' "prog: file:line: reason" lines).
  run(argv, input = '') {
    const timeout = 1000 * (Number(env.QE_EXEC_TIME_TIMEOUT) || 600);
    const p = spawnSync(argv[0], argv.slice(1), { input, encoding: 'utf8', timeout, maxBuffer: 1 << 30 });
    if (p.error) { this.vfile.message(`qe-telemetry: ${path.basename(argv[0])}: ${p.error.message}`); return null; }
    for (const line of (p.stderr ?? '').split('\n')) if (line) this.vfile.message(`qe-telemetry: ${line}`);
    return p.status === 0 || p.status === 2 ? p.stdout : null;
  }

  // qe-exec-status --times ARGS, its durations in their printed forms: a Book, or null
  times(args, input) {
    const out = this.run([this.status, '--times', ...formArgs(), ...args], input);
    if (!out) return null;
    try { return new Book(JSON.parse(out)); } catch (e) { this.vfile.message(`qe-telemetry: qe-exec-status --times: ${e.message}`); return null; }
  }

  extract() {
    const build = path.resolve(this.root(), env.QE_EXEC_TIME_CACHE || '_build');
    if (!fs.existsSync(path.join(build, 'execute'))) {
      this.vfile.info(`qe-telemetry: no mystmd execution cache at ${path.join(build, 'execute')}: this build's times are not used`);
      return null;
    }
    const name = env.QE_EXEC_TIME_EXTRACT || 'qe-cache-extract';
    const exe = tool(name);
    if (!exe) { this.notFound(name, "this build's times are not used, placeholders shown"); return null; }
    const argv = [exe, '-r', this.root()];
    const since = env.QE_EXEC_TIME_SINCE ?? started;
    if (since) argv.push('-s', since);
    const log = env.QE_EXEC_TIME_LOG ?? env.QE_TELEMETRY_LOG ?? '';
    if (log && fs.existsSync(path.resolve(this.root(), log))) argv.push('-t', path.resolve(this.root(), log));
    const dir = this.writePages();
    if (dir) argv.push('--pages', dir);
    argv.push(build);
    const records = this.run(argv);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    return records ? this.times(['-'], records) : null;
  }

  // The kept pages as site/content's pages, in a new temporary folder; null
  // when it cannot be written (said; qe-cache-extract then reads _build's).
  writePages() {
    let dir = null;
    try {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qe-exec-time-'));
      [...pages].forEach(([file, tree], i) => {
        const location = '/' + path.relative(this.root(), path.resolve(file)).split(path.sep).join('/');
        fs.writeFileSync(path.join(dir, `${String(i).padStart(6, '0')}.json`), JSON.stringify({ location, mdast: tree }));
      });
      return dir;
    } catch (e) {
      this.vfile.message(`qe-telemetry: this build's pages not written for qe-cache-extract: ${e.message}`);
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      return null;
    }
  }

  readReports() {
    const paths = [];
    for (const p of (env.QE_EXEC_TIME_REPORT ?? '').split(path.delimiter).filter(Boolean)) {
      const abs = path.resolve(this.root(), p);
      if (fs.existsSync(abs)) paths.push(abs);
      else this.vfile.info(`qe-telemetry: no stored report at ${abs}`);
    }
    return paths.length ? this.times(paths, '') ?? new Book(null) : new Book(null);
  }

  // The records' name of a page: its path from the root, without extension.
  documentOf(vfile) {
    return path.relative(this.root(), path.resolve(vfile.path)).replace(/\.(myst\.md|md|ipynb)$/, '').split(path.sep).join('/');
  }

  sources() {
    const out = [];
    if (this.current?.size) out.push(['this build', this.current]);
    if (this.reports?.size) out.push(['stored report', this.reports]);
    // a cached record of this build: an earlier build's measurement, after the report
    if (this.current?.size) out.push(['cache (an earlier build)', this.current]);
    return out;
  }

  // sphinx.py _State.resolve: {text} or {why}
  resolve(here, target, form) {
    const srcs = this.sources();
    const strip = (s) => s.replace(/^\/+|\/+$/g, '');
    let doc, label;
    if (target.includes('#')) {
      const i = target.indexOf('#');
      doc = strip(target.slice(0, i)) || here;
      label = target.slice(i + 1);
    } else if (srcs.some(([, b]) => cellOf(b.get(here), target))) { doc = here; label = target; }
    else if (srcs.some(([, b]) => b.get(strip(target)))) { doc = strip(target); label = null; }
    else { doc = here; label = target; }
    return value(srcs, doc, label, form);
  }
}

// sphinx.py _State._value and _why, without the tooltip
function value(srcs, doc, label, form) {
  let known = false, failed = null;
  const untimed = new Set();
  for (const [name, book] of srcs) {
    const e = book.get(doc);
    if (e === undefined) continue;
    if (e.status === 'failed' && failed === null) failed = `${name}: ${e.error || 'failed'}`;
    let cell;
    if (label !== null) { cell = cellOf(e, label); known = known || cell !== undefined; }
    const cached = e.execution === 'cached';
    if ((name === 'this build' && cached) || (name.startsWith('cache') && !cached)) continue;
    if (label === null) {
      if (e.runtime_s == null || form === 'share' || !e.text?.[form]) continue;
      return { text: e.text[form] };
    }
    if (cell === undefined) continue;
    if (cell.duration_s == null) { untimed.add(name === 'this build' ? name : name.split(' ')[0]); continue; }
    if (!cell.text?.[form]) continue; // share without a total
    return { text: cell.text[form] };
  }
  const what = label !== null ? `'${label}' in document '${doc}'` : `document '${doc}'`;
  if (failed !== null) return { why: `no measured time for ${what}: the document failed (${failed})` };
  if (label === null) return { why: `no measured time for document '${doc}': not executed in this build and not in a stored report` };
  if (!known && srcs.some(([, b]) => b.get(doc))) return { why: `unknown label '${label}' in document '${doc}'` };
  if (untimed.has('this build')) {
    return { why: `cell '${label}' of document '${doc}' has no timing: this build executed it and the capture hook logged nothing (the capture hook was not armed?)` };
  }
  if (untimed.has('stored')) return { why: `no measured time for ${what}: not executed in this build, and the stored report has no timing for it` };
  return { why: `no measured time for ${what}: not executed in this build and not in a stored report` };
}

function walk(node, fn) { fn(node); for (const c of node.children ?? []) walk(c, fn); }

const state = new State();
const FORMATS = new Set(['human', 'seconds', 'rounded']);

const plugin = {
  name: 'qe-telemetry {exec-time}',
  roles: Object.entries(FORMS).map(([name, form]) => ({
    name,
    doc: `qe-telemetry: a measured execution time (${form ?? 'the default form, QE_EXEC_TIME_FORMAT'})`,
    body: { type: String, required: true },
    run(data) {
      return [{
        type: 'span', class: 'qe-exec-time qe-exec-time-pending', position: data.node?.position,
        qeExecTime: { target: String(data.body ?? '').trim(), form },
        children: [{ type: 'text', value: placeholder() }],
      }];
    },
  })),
  transforms: [{
    name: 'qe-exec-time-pages',
    doc: "qe-telemetry: keep each page's executed tree for qe-cache-extract",
    stage: 'document',
    plugin: () => (tree, vfile) => { pages.set(vfile.path, tree); },
  }, {
    name: 'qe-exec-time-resolve',
    doc: 'qe-telemetry: fill the {exec-time} roles from qe-exec-status --times',
    stage: 'project',
    plugin: () => (tree, vfile) => {
      const pending = [];
      walk(tree, (n) => { if (n.type === 'span' && n.qeExecTime) pending.push(n); });
      if (!pending.length) return;
      state.load(vfile);
      let fallback = env.QE_EXEC_TIME_FORMAT || 'human';
      if (!FORMATS.has(fallback)) {
        vfile.message(`qe-telemetry: QE_EXEC_TIME_FORMAT: '${fallback}' is not one of human, rounded, seconds: human used`);
        fallback = 'human';
      }
      const here = state.documentOf(vfile);
      for (const n of pending) {
        const { target, form } = n.qeExecTime;
        delete n.qeExecTime;
        n.class = 'qe-exec-time qe-exec-time-missing';
        n.children = [{ type: 'text', value: placeholder() }];
        if (state.missing.length) continue; // said once, at info level: not the page's fault
        const r = state.resolve(here, target, form ?? fallback);
        if (r.text === undefined) {
          vfile.message(`qe-telemetry: exec-time: ${r.why}`, n.position ? n : undefined); // a warning, never fatal
          continue;
        }
        n.class = 'qe-exec-time';
        n.children = [{ type: 'text', value: r.text }];
      }
    },
  }],
};
export default plugin;
