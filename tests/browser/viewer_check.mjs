// SPDX-License-Identifier: MIT
// viewer_check.mjs: loads a Chrome JSON trace into the DevTools trace engine
// that ships inside Chromium (the Performance panel's importer) and checks
// what it parsed. Adapted from shared/reference/perfetto/README.md §4.2.
//
//   node --experimental-websocket viewer_check.mjs --helper <serve_for_browser>
//   node --experimental-websocket viewer_check.mjs trace.json
//
// With --helper it starts the traced helper and fetches /trace.json from its
// server while it records. Passes when the engine builds slices (> 0) and
// names every thread that has slices and a thread_name event with that name,
// and when at least two named threads have slices. Prints what it parsed.
// Instants are not checked: this engine drops "ph":"i" (see the reference).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumArgs, chromiumPath, parseArgs, requireTools, startHelper, watchdog } from './common.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let helper = null;
let chrome = null;
let profile = null;
const cleanup = async () => {
  if (chrome && chrome.exitCode === null && chrome.signalCode === null) {
    await new Promise((r) => { chrome.once('exit', r); chrome.kill(); });
  }
  chrome = null;
  if (profile) {
    // Chromium's helper processes may still write there for a moment.
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      console.error(`warning: could not remove ${profile}: ${e.message}`);
    }
  }
  profile = null;
  if (helper) await helper.stop();
  helper = null;
};
watchdog(60000, cleanup);

// Runs inside devtools://devtools/bundled/trace_app.html.
const pageFn = async (evts) => {
  const T = await import('./models/trace/trace.js');
  const model = T.TraceModel.Model.createWithAllHandlers();
  await model.parse(evts, { isFreshRecording: false, isCPUProfile: false, metadata: {} });
  const d = model.parsedTrace(0).data;
  const out = { slices: 0, threads: [] };
  for (const [pid, p] of d.Renderer.processes) {
    for (const [tid, t] of p.threads) {
      out.slices += t.entries.length;
      out.threads.push({ pid, tid, name: t.name ?? null, count: t.entries.length,
        first: t.entries.slice(0, 5).map((e) => `${e.name} ts=${e.ts} dur=${e.dur ?? '-'}`) });
    }
  }
  return JSON.stringify(out);
};

// The DevTools port Chromium picked (--remote-debugging-port=0). Up to
// 30 s: a Chromium start on two loaded cores can take over 10 s (the
// watchdog bounds the whole check at 60 s).
async function devtoolsPort(dir) {
  for (let i = 0; i < 300; i++) {
    try {
      return Number(readFileSync(join(dir, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
    } catch { await sleep(100); }
  }
  throw new Error('Chromium did not open its DevTools port');
}

async function parseInDevTools(events) {
  profile = mkdtempSync(join(tmpdir(), 'mabutrace-viewer-check-'));
  chrome = spawn(chromiumPath, [
    '--headless', ...chromiumArgs, `--user-data-dir=${profile}`,
    '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', 'about:blank'],
  { stdio: 'ignore' });
  const port = await devtoolsPort(profile);
  let page;
  for (let i = 0; i < 300 && !page; i++) {
    try {
      const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
      page = list.find((t) => t.type === 'page');
    } catch { /* endpoint not up yet */ }
    if (!page) await sleep(100);
  }
  if (!page) throw new Error('no page target on the DevTools port');
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  const pending = new Map();
  let nextId = 1;
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
  };
  await new Promise((res, rej) => { ws.onopen = res; ws.onerror = rej; });
  const send = (method, params = {}) => new Promise((r) => {
    const id = nextId++;
    pending.set(id, r);
    ws.send(JSON.stringify({ id, method, params }));
  });
  try {
    await send('Page.navigate', { url: 'devtools://devtools/bundled/trace_app.html' });
    let r;
    for (let i = 0; i < 20; i++) {
      await sleep(500);
      r = await send('Runtime.evaluate', {
        expression: `(${pageFn})(${JSON.stringify(events)})`, awaitPromise: true, returnByValue: true });
      const msg = r.result?.exceptionDetails?.exception?.description ?? '';
      if (!msg.includes('Failed to fetch dynamically imported module')) break;
    }
    if (r.result?.exceptionDetails) {
      const d = r.result.exceptionDetails;
      throw new Error('DevTools trace engine threw: ' + (d.exception?.description ?? d.text));
    }
    return JSON.parse(r.result.result.value);
  } finally {
    ws.close();
  }
}

async function main() {
  requireTools();
  const args = parseArgs(process.argv.slice(2));
  let text;
  if (args.helper) {
    helper = startHelper(args.helper);
    const port = await helper.port;
    await sleep(300);  // let the helper's threads record a little
    const res = await fetch(`http://127.0.0.1:${port}/trace.json`);
    if (!res.ok) throw new Error(`GET /trace.json: HTTP ${res.status}`);
    text = await res.text();
    const code = await helper.stop();
    helper = null;
    if (code !== 0) throw new Error(`helper exited with ${code}`);
  } else if (args.file) {
    text = readFileSync(args.file, 'utf8');
  } else {
    throw new Error('usage: viewer_check.mjs --helper <serve_for_browser> | <trace.json>');
  }

  const trace = JSON.parse(text);  // strict JSON
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  const names = new Map();  // "pid/tid" -> thread_name
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}/${e.tid}`, e.args?.name);
  }
  console.log(`trace: ${text.length} bytes, ${events.length} events, thread_name: ` +
              JSON.stringify([...names.values()]));

  const parsed = await parseInDevTools(events);
  console.log('DevTools trace engine parsed:');
  console.log(JSON.stringify(parsed, null, 1));

  const problems = [];
  if (!(parsed.slices > 0)) problems.push('no slices');
  const namedWithSlices = [];
  for (const t of parsed.threads) {
    const expected = names.get(`${t.pid}/${t.tid}`);
    if (t.count > 0 && expected !== undefined) {
      if (t.name !== expected) problems.push(`thread ${t.tid} is named ${t.name}, not ${expected}`);
      else namedWithSlices.push(t.name);
    }
  }
  if (namedWithSlices.length < 2) {
    problems.push(`want 2+ threads with slices named by thread_name, got ${JSON.stringify(namedWithSlices)}`);
  }
  if (problems.length) throw new Error(problems.join('; '));
  console.log(`ok  ${parsed.slices} slices; named threads with slices: ${namedWithSlices.join(', ')}`);
}

try {
  await main();
  await cleanup();
  console.log('PASS viewer_check');
} catch (e) {
  console.error('FAIL viewer_check: ' + (e?.stack ?? e));
  await cleanup();
  process.exitCode = 1;
}
