// SPDX-License-Identifier: MIT
// common.mjs: what both browser tests need: checking the tools are there,
// running the traced helper process, and bounding the total time.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const chromiumPath = process.env.MABUTRACE_CHROMIUM || '/usr/bin/chromium';
// Flags for a quiet, offline, root-friendly headless Chromium.
export const chromiumArgs = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// Throws with a message that says how to fix it (never a silent skip).
export function requireTools({ playwright = false } = {}) {
  const missing = [];
  if (!existsSync(chromiumPath)) {
    missing.push(`${chromiumPath} (apt-get install chromium, or set MABUTRACE_CHROMIUM)`);
  }
  if (playwright && !existsSync(join(here, 'node_modules', 'playwright-core'))) {
    missing.push(`${join(here, 'node_modules', 'playwright-core')} (npm install in tests/browser)`);
  }
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) missing.push(`Node.js 20 or newer (this is ${process.version})`);
  if (missing.length) {
    throw new Error('missing: ' + missing.join('; ') + '. scripts/install-deps.sh installs them.');
  }
}

// Ends the process with status 1 if `ms` pass; `cleanup` runs first.
export function watchdog(ms, cleanup) {
  const timer = setTimeout(async () => {
    console.error(`FAIL: the test took longer than ${ms / 1000} s`);
    try { await cleanup(); } catch { /* exiting anyway */ }
    process.exit(1);
  }, ms);
  timer.unref();
  return timer;
}

// Starts serve_for_browser and resolves when it printed its port.
// stop() closes its stdin (its signal to deinit and exit) and resolves with
// its exit code, killing it if it does not exit in time.
export function startHelper(path) {
  if (!path || !existsSync(path)) throw new Error(`helper executable not found: ${path}`);
  const child = spawn(path, ['60'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const port = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('helper printed no PORT within 10 s')), 10000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^PORT (\d+)$/m.exec(out);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`helper exited early (${code})`)); });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { port, stop };
}

// Parses --helper <path> / a plain trace file argument.
export function parseArgs(argv) {
  const out = { helper: null, file: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--helper') out.helper = argv[++i];
    else out.file = argv[i];
  }
  return out;
}

// A page in `browser` that may load only URLs starting with one of
// `allowed` (prefixes; about:, data: and blob: always): any other request
// is aborted and listed in `offsite`, page errors and console errors are
// listed in `errors`. Returns {context, page, offsite, errors}.
export async function guardedPage(browser, allowed, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const offsite = [];
  const ok = [...allowed, 'about:', 'data:', 'blob:'];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (ok.some((p) => u.startsWith(p))) return route.continue();
    offsite.push(u);
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  return { context, page, offsite, errors };
}
