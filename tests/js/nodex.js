// nodex.js: one long-lived node process that runs the test scripts' short
// synchronous helpers (`node -e SCRIPT ARG...`, `node FILE.js ARG...`), so
// that a test pays node's start-up (~0.15 s of CPU) once instead of once per
// helper. Started and spoken to by tests/js/nodex.sh.
//
// Requests on stdin: NUL-terminated fields CWD, KIND ("e": SCRIPT is the
// source, "f": SCRIPT is a file path), SCRIPT, ARGC, then ARGC arguments.
// Answer on stdout: "OUTLEN ERRLEN CODE\n", then OUTLEN bytes of the script's
// stdout and ERRLEN bytes of its stderr. Each script runs as node would run
// it: process.argv as node sets it, process.exit(n) ends it with status n,
// an uncaught exception prints its stack and gives status 1; require and
// relative paths resolve from CWD, and nothing is cached between requests
// (a JSON file required twice is read twice). Scripts that read stdin or do
// asynchronous work must run in their own node (nodex.sh refuses them).
"use strict";
const fs = require("fs");
const path = require("path");
const util = require("util");
const Module = require("module");

const EXIT = Symbol("exit");
const baseline = new Set(Object.keys(require.cache));
const fileCache = new Map(); // path -> {mtimeMs, src}

function runOne(cwd, kind, script, args) {
  const out = [], err = [];
  let code = 0, exited = false;
  let src = script, argv1 = [];
  try {
    process.chdir(cwd);
  } catch (e) {
    return { out: "", err: "nodex: cannot enter " + cwd + ": " + e.message + "\n", code: 1 };
  }
  if (kind === "f") {
    const file = path.resolve(cwd, script);
    try {
      const st = fs.statSync(file);
      const c = fileCache.get(file);
      if (c && c.mtimeMs === st.mtimeMs) src = c.src;
      else {
        src = fs.readFileSync(file, "utf8");
        fileCache.set(file, { mtimeMs: st.mtimeMs, src });
      }
    } catch (e) {
      return { out: "", err: "nodex: cannot read " + file + ": " + e.message + "\n", code: 1 };
    }
    argv1 = [file];
  }
  const write = (a) => (s) => { a.push(typeof s === "string" ? s : Buffer.from(s).toString()); return true; };
  const con = {
    log: (...a) => out.push(util.format(...a) + "\n"),
    info: (...a) => out.push(util.format(...a) + "\n"),
    error: (...a) => err.push(util.format(...a) + "\n"),
    warn: (...a) => err.push(util.format(...a) + "\n"),
  };
  const proc = {
    argv: [process.execPath, ...argv1, ...args],
    env: process.env,
    platform: process.platform,
    cwd: () => cwd,
    exit: (c) => { if (!exited) { exited = true; code = c === undefined ? 0 : c | 0; } throw EXIT; },
    stdout: { write: write(out) },
    stderr: { write: write(err) },
  };
  const req = Module.createRequire(path.join(cwd, kind === "f" ? path.basename(script) : "[eval]"));
  try {
    const fn = new Function("require", "console", "process", "module", "exports", "__filename", "__dirname", src);
    fn(req, con, proc, { exports: {} }, {}, argv1[0] || "[eval]", argv1[0] ? path.dirname(argv1[0]) : ".");
  } catch (e) {
    if (e !== EXIT && !exited) {
      err.push((e && e.stack ? e.stack : String(e)) + "\n");
      code = 1;
    }
  }
  for (const k of Object.keys(require.cache)) if (!baseline.has(k)) delete require.cache[k];
  return { out: out.join(""), err: err.join(""), code };
}

function writeAll(b) { // fd 1 may be non-blocking (a pipe): retry until all is out
  for (let at = 0; at < b.length;) {
    try {
      at += fs.writeSync(1, b, at, b.length - at);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}

// argv[2]: the test shell's pid; gone, this process ends too
const owner = parseInt(process.argv[2] || "0", 10);
if (owner > 0)
  setInterval(() => {
    try {
      process.kill(owner, 0);
    } catch (e) {
      process.exit(0);
    }
  }, 1000).unref();

let buf = Buffer.alloc(0);
function fields() { // the next request's fields, or null while incomplete
  const f = [];
  let at = 0;
  const next = () => {
    const z = buf.indexOf(0, at);
    if (z < 0) return null;
    const s = buf.toString("utf8", at, z);
    at = z + 1;
    return s;
  };
  for (let i = 0; i < 4; i++) {
    const s = next();
    if (s === null) return null;
    f.push(s);
  }
  const argc = parseInt(f[3], 10);
  for (let i = 0; i < argc; i++) {
    const s = next();
    if (s === null) return null;
    f.push(s);
  }
  buf = buf.subarray(at);
  return f;
}
process.stdin.on("data", (d) => {
  buf = Buffer.concat([buf, d]);
  for (let f; (f = fields()) !== null;) {
    const r = runOne(f[0], f[1], f[2], f.slice(4));
    const o = Buffer.from(r.out), e = Buffer.from(r.err);
    writeAll(Buffer.concat([Buffer.from(o.length + " " + e.length + " " + r.code + "\n"), o, e]));
  }
});
