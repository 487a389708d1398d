// SPDX-License-Identifier: MIT
// capture_page.h: the page the built-in HTTP server serves at "/" (R-C4),
// on every port (http_service.cpp is its one includer in the library).
//
// Self-contained on purpose: no script, style, font or image is fetched from
// anywhere (the server sends a Content-Security-Policy that forbids it), so
// the page works on a machine without internet access and leaks nothing.
// Only "Open in Perfetto" reaches out, by opening https://ui.perfetto.dev in
// a new tab and handing it the trace with Perfetto's documented postMessage
// protocol (perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui):
// post 'PING' until the tab answers 'PONG', then post
// {perfetto: {buffer: ArrayBuffer, title, fileName}}.
//
// For tests the page exposes:
//   window.mabutraceLast      {bytes, events} of the last capture
//   window.mabutraceSummary   {slices, flows}: the summary table's rows,
//                             [{name, count, p50, p99, max}] (ns; nearest
//                             rank), the same definitions as `mabutrace
//                             stats` (docs/stats.md §2)
//   window.mabutraceLastPost  {bytes, title, fileName} of the last trace
//                             posted to the Perfetto tab
//   window.mabutracePerfetto  {url, origin, pingMs, giveUpMs}: where "Open in
//                             Perfetto" goes; a test points it at a local
//                             window instead of the internet.
#ifndef MABUTRACE_HTTP_CAPTURE_PAGE_H
#define MABUTRACE_HTTP_CAPTURE_PAGE_H

namespace mabutrace {
namespace http {

// Internal linkage (C++11 has no inline variables): each includer gets its
// copy, so include it only where the bytes are served or compared.
constexpr char kCapturePage[] = R"page(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mabutrace</title>
<link rel="icon" href="data:,">
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 46em;
         padding: 0 1em; color: #1d1d1f; }
  h1 { font-size: 1.4em; margin-bottom: .2em; }
  p.lead { color: #555; margin-top: 0; }
  .buttons { display: flex; flex-wrap: wrap; gap: .6em; margin: 1.5em 0 1em; }
  button { font: inherit; padding: .45em 1.1em; border-radius: 6px;
           border: 1px solid #888; background: #f4f4f6; cursor: pointer; }
  button:hover:not(:disabled) { background: #e6e6ea; }
  button:disabled { opacity: .55; cursor: progress; }
  #status { white-space: pre-wrap; padding: .7em 1em; border-radius: 6px;
            background: #f4f4f6; min-height: 1.4em; }
  #status.error { background: #fdecea; color: #8a1c12; }
  .hint { color: #666; font-size: .9em; }
  #summary table { border-collapse: collapse; margin: .8em 0; font-size: .9em; }
  #summary th, #summary td { padding: .15em .7em; border-bottom: 1px solid #e4e4e8; text-align: right; }
  #summary th:first-child, #summary td:first-child { text-align: left; }
</style>
</head>
<body>
<h1>mabutrace</h1>
<p class="lead">Snapshot of this process's trace buffer. Capturing does not stop tracing.</p>
<div class="buttons">
  <button id="capture" type="button">Capture trace</button>
  <button id="save" type="button">Save trace</button>
  <button id="perfetto" type="button">Open in Perfetto</button>
</div>
<div id="status" role="status">No trace captured yet.</div>
<div id="summary"></div>
<p class="hint">"Save trace" and "Open in Perfetto" use the last capture (and capture
first if there is none). "Open in Perfetto" sends the trace to
https://ui.perfetto.dev in a new tab; the trace is processed in that tab, not uploaded.
Raw JSON: <a href="/trace.json">/trace.json</a>.</p>
<script>
"use strict";
(() => {
  const perfetto = window.mabutracePerfetto = {
    url: "https://ui.perfetto.dev", origin: "https://ui.perfetto.dev",
    pingMs: 100, giveUpMs: 30000,
  };
  const $ = (id) => document.getElementById(id);
  const buttons = ["capture", "save", "perfetto"].map($);
  let last = null;      // {blob, bytes, events, at}
  let pending = null;   // the capture in flight, shared by concurrent clicks

  function show(text, isError) {
    $("status").textContent = text;
    $("status").className = isError ? "error" : "";
  }
  function fail(err) { show(String(err && err.message ? err.message : err), true); }
  function busy(on) { for (const b of buttons) b.disabled = on; }
  function size(n) {
    if (n < 1024) return n + " B";
    if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }

  async function captureNow() {
    show("Capturing…");
    const res = await fetch("/trace.json", { cache: "no-store" });
    if (!res.ok) throw new Error("Capture failed: HTTP " + res.status);
    // A stream cut short (the process stopped, the export failed) rejects here.
    const blob = await res.blob();
    let events = null, trace;
    try {
      trace = JSON.parse(await blob.text());
      events = Array.isArray(trace.traceEvents) ? trace.traceEvents.length : 0;
    } catch (e) {
      throw new Error("Capture is not valid JSON (" + e.message + ")");
    }
    last = { blob: new Blob([blob], { type: "application/json" }), bytes: blob.size,
             events, at: new Date() };
    summarize(trace.traceEvents || []);
    window.mabutraceLast = { bytes: last.bytes, events: last.events };
    show("Captured " + size(last.bytes) + ", " + events + " events at " +
         last.at.toLocaleTimeString() + ".");
    return last;
  }
  // The longest slices (by total time) and the flow latencies of a capture,
  // as `mabutrace stats` defines them: ts are us with ns decimals.
  function summarize(evs) {
    const slices = new Map(), flows = new Map(), open = new Map(), starts = new Map();
    const add = (m, k, v) => { if (!m.has(k)) m.set(k, []); m.get(k).push(v); };
    let prev = null;
    for (const e of evs) {
      const track = e.pid + "/" + e.tid, ns = Math.round(e.ts * 1000);
      if (e.ph === "B" && e.cat !== "mabutrace.flow") {
        if (!open.has(track)) open.set(track, []);
        open.get(track).push([e.name, ns]);
      } else if (e.ph === "E" && e.cat !== "mabutrace.flow" && open.has(track) && open.get(track).length) {
        const [name, begin] = open.get(track).pop();
        add(slices, name, ns - begin);
      } else if (e.ph === "s") {
        const point = prev && prev.cat === "mabutrace.flow" && prev.ph !== "s" && prev.ph !== "f" &&
                      prev.pid === e.pid && prev.tid === e.tid ? prev.name : "";
        starts.set(e.id, [point && point !== "flow_out" ? point : "(unnamed)", ns]);
      } else if (e.ph === "f" && starts.has(e.id)) {
        const [name, at] = starts.get(e.id);
        starts.delete(e.id);
        add(flows, name, Math.max(0, ns - at));
      }
      prev = e;
    }
    const rows = (m, n, by) => [...m].map(([name, d]) => {
      d.sort((a, b) => a - b);
      const q = (p) => d[Math.max(1, Math.ceil(p * d.length)) - 1];
      return { name, count: d.length, total: d.reduce((a, b) => a + b, 0), p50: q(0.5), p99: q(0.99),
               max: d[d.length - 1] };
    }).sort((a, b) => b[by] - a[by]).slice(0, n);
    const sum = window.mabutraceSummary = { slices: rows(slices, 8, "total"), flows: rows(flows, 8, "p99") };
    const t = (ns) => ns < 1e3 ? ns + " ns" : ns < 1e6 ? (ns / 1e3).toFixed(1) + " µs" :
                      ns < 1e9 ? (ns / 1e6).toFixed(2) + " ms" : (ns / 1e9).toFixed(2) + " s";
    const box = $("summary");
    box.textContent = "";
    for (const [title, list] of [["Top slices (by total time)", sum.slices], ["Flow latency (out → in)", sum.flows]]) {
      if (!list.length) continue;
      const table = document.createElement("table");
      const head = table.createTHead().insertRow();
      for (const h of [title, "count", "p50", "p99", "max"]) head.appendChild(document.createElement("th")).textContent = h;
      const body = table.createTBody();
      for (const r of list) {
        const tr = body.insertRow();
        for (const v of [r.name, String(r.count), t(r.p50), t(r.p99), t(r.max)]) tr.insertCell().textContent = v;
      }
      box.appendChild(table);
    }
  }

  function capture() {
    if (!pending) {
      busy(true);
      pending = captureNow().finally(() => { pending = null; busy(false); });
    }
    return pending;
  }
  const current = () => last ? Promise.resolve(last) : capture();

  async function save() {
    const t = await current();
    const url = URL.createObjectURL(t.blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = "trace.json";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // Resolves when `win` answers 'PONG'. The channel is not buffered, so
  // 'PING' is repeated until the Perfetto UI has loaded and listens.
  function handshake(win) {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const onMessage = (e) => {
        if (e.source !== win || e.origin !== perfetto.origin || e.data !== "PONG") return;
        stop();
        resolve();
      };
      const timer = setInterval(() => {
        if (win.closed) { stop(); reject(new Error("The Perfetto tab was closed.")); return; }
        if (Date.now() - started > perfetto.giveUpMs) {
          stop();
          reject(new Error("Perfetto did not answer (is https://ui.perfetto.dev reachable?)."));
          return;
        }
        win.postMessage("PING", perfetto.origin);
      }, perfetto.pingMs);
      function stop() { clearInterval(timer); window.removeEventListener("message", onMessage); }
      window.addEventListener("message", onMessage);
    });
  }

  function openInPerfetto() {
    // Opened before any await: browsers allow pop-ups only while handling the click.
    const win = window.open(perfetto.url);
    if (!win) { fail("The browser blocked the new tab: allow pop-ups for this page."); return; }
    (async () => {
      const t = await current();
      const buffer = await t.blob.arrayBuffer();
      show("Waiting for the Perfetto tab…");
      await handshake(win);
      const title = "mabutrace " + t.at.toLocaleString();
      // targetOrigin: the trace goes only to Perfetto, even if the tab navigated away.
      win.postMessage({ perfetto: { buffer, title, fileName: "trace.json" } }, perfetto.origin);
      window.mabutraceLastPost = { bytes: buffer.byteLength, title, fileName: "trace.json" };
      show("Sent " + size(buffer.byteLength) + " to the Perfetto tab.");
    })().catch(fail);
  }

  $("capture").addEventListener("click", () => { capture().catch(fail); });
  $("save").addEventListener("click", () => { save().catch(fail); });
  $("perfetto").addEventListener("click", openInPerfetto);
})();
</script>
</body>
</html>
)page";

}  // namespace http
}  // namespace mabutrace

#endif  // MABUTRACE_HTTP_CAPTURE_PAGE_H
