// SPDX-License-Identifier: MIT
// stats_page_test.mjs: `mabutrace stats -o report.html` in headless
// Chromium (issue 19): the page loads from file:// with no request
// anywhere else, no script error, its charts have a size on screen, its
// tables hold the trace's keys, and a screenshot is taken (path printed).
//
//   node stats_page_test.mjs --cli <mabutrace> --uart <uart_stream>
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromiumArgs, chromiumPath, guardedPage, requireTools, watchdog } from './common.mjs';

const check = (ok, what) => {
  if (!ok) throw new Error('check failed: ' + what);
  console.log('ok  ' + what);
};

let browser = null;
const cleanup = async () => {
  if (browser) await browser.close().catch(() => {});
  browser = null;
};
watchdog(60000, cleanup);

async function main() {
  requireTools({ playwright: true });
  const args = {};
  for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
  const dir = mkdtempSync(join(tmpdir(), 'mabutrace-stats-page-'));
  const stream = join(dir, 'trace.bin');
  execFileSync(args.uart, [join(dir, 'sent.bin'), '--items', '500', '--tee', stream]);
  const html = join(dir, 'report.html');
  execFileSync(args.cli, ['stats', stream, '-o', html]);
  check(!/<script|https?:\/\//.test(readFileSync(html, 'utf8')), 'the page has no script and no external reference');

  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
  const { page, offsite, errors } = await guardedPage(browser, ['file:'], { viewport: { width: 1200, height: 900 } });
  await page.goto(pathToFileURL(html).href);
  await page.waitForLoadState('load');

  const charts = await page.$$eval('svg.chart', (els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    return { w: r.width, h: r.height, bars: e.querySelectorAll('rect.bar').length, lines: e.querySelectorAll('polyline').length };
  }));
  // produce, consume (slices), send (flow), produced (counter)
  check(charts.length === 4, `4 charts (got ${charts.length})`);
  check(charts.every((c) => c.w >= 300 && c.h >= 100), 'every chart is drawn at its size');
  check(charts.filter((c) => c.bars > 0).length === 3, 'three histograms have bars');
  check(charts.filter((c) => c.lines === 1).length === 1, 'one counter plot');
  const captions = await page.$$eval('figcaption', (els) => els.map((e) => e.textContent));
  for (const key of ['produce', 'consume', 'send', 'produced']) check(captions.includes(key), `a chart of "${key}"`);
  const sliceRows = await page.$$eval('#slices tbody tr', (els) => els.length);
  check(sliceRows === 2, 'the slice table has both keys');
  const shot = join(dir, 'stats-page.png');
  await page.screenshot({ path: shot, fullPage: true });
  check(statSync(shot).size > 20000, 'the screenshot is not blank');
  console.log('screenshot: ' + shot);
  check(errors.length === 0, 'no script or console error' + (errors.length ? ': ' + errors.join('; ') : ''));
  check(offsite.length === 0, 'no request left the page' + (offsite.length ? ': ' + offsite.join(', ') : ''));
}

main().then(async () => { await cleanup(); process.exit(0); },
  async (e) => { console.error('FAIL: ' + e.message); await cleanup(); process.exit(1); });
