// SPDX-License-Identifier: MIT
// capture_page_test.mjs: the capture page in headless Chromium (R-C4).
//
//   node capture_page_test.mjs <path to serve_for_browser>
//
// Opens http://127.0.0.1:PORT/ served by the helper, clicks "Capture trace"
// and checks what the page captured, saves it ("Save trace" must download
// the same bytes), and runs "Open in Perfetto" against a local window that
// speaks Perfetto's PING/PONG protocol instead of https://ui.perfetto.dev
// (the test never touches the internet). Fails on any page error. Prints
// the path of a screenshot. Exit status 0 = pass.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumArgs, chromiumPath, guardedPage, parseArgs, requireTools, startHelper, watchdog } from './common.mjs';

const check = (ok, what) => {
  if (!ok) throw new Error('check failed: ' + what);
  console.log('ok  ' + what);
};

let helper = null;
let browser = null;
const cleanup = async () => {
  if (browser) await browser.close().catch(() => {});
  browser = null;
  if (helper) await helper.stop();
  helper = null;
};
watchdog(60000, cleanup);

async function main() {
  requireTools({ playwright: true });
  const { chromium } = await import('playwright-core');
  const args = parseArgs(process.argv.slice(2));
  helper = startHelper(args.helper ?? args.file);
  const port = await helper.port;
  const url = `http://127.0.0.1:${port}/`;

  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
  // Nothing may leave the machine: any request not to the helper fails.
  const { context, page, offsite, errors } = await guardedPage(browser, [url], { acceptDownloads: true });

  const res = await page.goto(url);
  check(res && res.status() === 200, `GET ${url} is 200`);
  const capture = page.getByRole('button', { name: 'Capture trace' });
  const save = page.getByRole('button', { name: 'Save trace' });
  const open = page.getByRole('button', { name: 'Open in Perfetto' });
  for (const [b, name] of [[capture, 'Capture trace'], [save, 'Save trace'], [open, 'Open in Perfetto']]) {
    check(await b.count() === 1, `one "${name}" button`);
  }

  // Capture.
  await capture.click();
  await page.waitForFunction(() => window.mabutraceLast !== undefined, null, { timeout: 20000 });
  const last = await page.evaluate(() => window.mabutraceLast);
  console.log('captured', JSON.stringify(last));
  check(last.bytes > 0, `capture is non-empty (${last.bytes} bytes)`);
  check(last.events > 0, `capture has traceEvents (${last.events} events)`);
  // The summary: serve_for_browser's slices and its "item" flow.
  const summary = await page.evaluate(() => window.mabutraceSummary);
  const sliceNames = summary.slices.map((r) => r.name);
  for (const name of ['produce', 'consume']) check(sliceNames.includes(name), `the summary lists slice "${name}"`);
  const item = summary.flows.find((r) => r.name === 'item');
  check(item && item.count > 0 && item.p50 <= item.p99 && item.p99 <= item.max, `the summary has the "item" flow latency`);
  const rows = await page.locator('#summary tbody tr').count();
  check(rows === summary.slices.length + summary.flows.length, `the summary table shows its ${rows} rows`);
  const status = await page.locator('#status').textContent();
  check(status.includes(String(last.events)), `status shows the event count: "${status}"`);

  // Save: the download holds the captured trace.
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 15000 }), save.click()]);
  check(download.suggestedFilename() === 'trace.json', 'download is named trace.json');
  const saved = readFileSync(await download.path());
  check(saved.length === last.bytes, `download has the captured ${last.bytes} bytes`);
  const savedEvents = JSON.parse(saved.toString('utf8')).traceEvents;
  check(Array.isArray(savedEvents) && savedEvents.length === last.events, 'download parses with the same events');

  // Open in Perfetto, with the destination pointed at a same-origin blank
  // window that plays the Perfetto UI's part of the protocol.
  await page.evaluate(() => {
    window.mabutracePerfetto.url = 'about:blank';
    window.mabutracePerfetto.origin = location.origin;
  });
  const [popup] = await Promise.all([context.waitForEvent('page', { timeout: 15000 }), open.click()]);
  await popup.waitForLoadState();
  await popup.evaluate(() => {
    window.received = null;
    window.pings = 0;
    window.addEventListener('message', (e) => {
      if (e.data === 'PING') {
        // Answer the second ping only: the page must keep pinging.
        if (++window.pings === 2) e.source.postMessage('PONG', '*');
      } else {
        window.received = e.data;
      }
    });
  });
  await popup.waitForFunction(() => window.received !== null, null, { timeout: 15000 });
  const got = await popup.evaluate(() => {
    const p = window.received.perfetto ?? {};
    return { keys: Object.keys(p).sort(), isBuffer: p.buffer instanceof ArrayBuffer,
             bytes: p.buffer?.byteLength, title: p.title, fileName: p.fileName, pings: window.pings };
  });
  console.log('perfetto message', JSON.stringify(got));
  check(got.pings >= 2, 'the page pinged until it got PONG');
  check(got.isBuffer && got.bytes === last.bytes, 'posted {perfetto:{buffer}} is the captured ArrayBuffer');
  check(typeof got.title === 'string' && got.title.length > 0, 'posted a title');
  check(got.fileName === 'trace.json', 'posted fileName trace.json');
  await popup.close();

  const shot = join(tmpdir(), `mabutrace-capture-page-${process.pid}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log('screenshot: ' + shot);

  check(offsite.length === 0, `no request left 127.0.0.1 (${offsite.join(', ') || 'none'})`);
  check(errors.length === 0, `no page errors (${errors.join(' | ') || 'none'})`);
  await browser.close();
  browser = null;
  const code = await helper.stop();
  helper = null;
  check(code === 0, `helper deinit with the server running exited cleanly (${code})`);
}

try {
  await main();
  console.log('PASS capture_page_test');
} catch (e) {
  console.error('FAIL capture_page_test: ' + (e?.stack ?? e));
  await cleanup();
  process.exitCode = 1;
}
