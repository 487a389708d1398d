// SPDX-License-Identifier: MIT
// stats_html.cpp: the HTML report (HtmlReport in stats_report.h). One page,
// no script and no external reference: CSS and inline SVG only, so it opens
// from a CI artifact store or an e-mail as it is.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "report_order.h"
#include "stats_check.h"
#include "stats_report.h"

namespace mabutrace::stats {
namespace {

constexpr size_t kCharts = 12;  // histograms per section (the largest keys)
constexpr size_t kBins = 40;
constexpr int kW = 360, kH = 150, kPad = 28;  // chart box, px

std::string Esc(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// x of value v on the histogram's log axis.
double LogX(const QuantileSketch& q, double v) {
  const double lo = std::log(std::max(1.0, double(q.min()))), hi = std::log(std::max(1.0, double(q.max())));
  if (hi <= lo) return kPad + (kW - 2 * kPad) / 2.0;
  return kPad + (std::log(std::max(1.0, v)) - lo) / (hi - lo) * (kW - 2 * kPad);
}

// A duration histogram (log x) with p50 and p99 marked.
std::string Histogram(const QuantileSketch& q) {
  const std::vector<uint64_t> h = q.Histogram(kBins);
  const uint64_t top = std::max<uint64_t>(1, *std::max_element(h.begin(), h.end()));
  const double bw = double(kW - 2 * kPad) / kBins, base = kH - kPad;
  std::string o = "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(kW) + " " + std::to_string(kH) +
                  "\" width=\"" + std::to_string(kW) + "\" height=\"" + std::to_string(kH) +
                  "\" role=\"img\" aria-label=\"duration histogram\">";
  o += "<line class=\"axis\" x1=\"" + std::to_string(kPad) + "\" y1=\"" + Fmt("%.1f", base) + "\" x2=\"" +
       std::to_string(kW - kPad) + "\" y2=\"" + Fmt("%.1f", base) + "\"/>";
  for (size_t i = 0; i < h.size(); ++i) {
    if (!h[i]) continue;
    const double bh = std::max(1.0, double(h[i]) / double(top) * (base - 10));
    o += "<rect class=\"bar\" x=\"" + Fmt("%.1f", kPad + i * bw) + "\" y=\"" + Fmt("%.1f", base - bh) + "\" width=\"" +
         Fmt("%.1f", std::max(1.0, bw - 1)) + "\" height=\"" + Fmt("%.1f", bh) + "\"><title>" + std::to_string(h[i]) +
         " between " + FormatDuration(q.HistogramEdge(i, kBins)) + " and " +
         FormatDuration(q.HistogramEdge(i + 1, kBins)) + "</title></rect>";
  }
  const struct {
    const char* cls;
    const char* label;
    uint32_t per10000;
  } marks[] = {{"p50", "p50", 5000}, {"p99", "p99", 9900}};
  for (const auto& m : marks) {
    const double x = LogX(q, double(q.Quantile(m.per10000)));
    o += "<line class=\"" + std::string(m.cls) + "\" x1=\"" + Fmt("%.1f", x) + "\" y1=\"8\" x2=\"" + Fmt("%.1f", x) +
         "\" y2=\"" + Fmt("%.1f", base) + "\"/><text class=\"" + m.cls + "\" x=\"" + Fmt("%.1f", x + 2) +
         "\" y=\"16\">" + m.label + "</text>";
  }
  o += "<text x=\"" + std::to_string(kPad) + "\" y=\"" + std::to_string(kH - 8) + "\">" + FormatDuration(q.min()) +
       "</text><text text-anchor=\"end\" x=\"" + std::to_string(kW - kPad) + "\" y=\"" + std::to_string(kH - 8) +
       "\">" + FormatDuration(q.max()) + "</text></svg>";
  return o;
}

// A counter's samples as a step plot over [first sample, trace end].
std::string CounterPlot(const CounterStats& c, uint64_t end_ns) {
  const double t0 = double(c.first_ns), t1 = double(std::max(end_ns, c.last_ns + 1));
  const double v0 = double(c.min), v1 = double(c.max) > double(c.min) ? double(c.max) : double(c.min) + 1;
  const auto X = [&](double t) { return kPad + (t - t0) / (t1 - t0) * (kW - 2 * kPad); };
  const auto Y = [&](double v) { return (kH - kPad) - (v - v0) / (v1 - v0) * (kH - kPad - 12); };
  std::string pts;
  double last_y = 0;
  for (size_t i = 0; i < c.series.size(); ++i) {
    const double x = X(double(c.series[i].first)), y = Y(double(c.series[i].second));
    if (i) pts += Fmt("%.1f", x) + "," + Fmt("%.1f", last_y) + " ";
    pts += Fmt("%.1f", x) + "," + Fmt("%.1f", y) + " ";
    last_y = y;
  }
  if (!c.series.empty()) pts += Fmt("%.1f", X(t1)) + "," + Fmt("%.1f", last_y);
  return "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(kW) + " " + std::to_string(kH) + "\" width=\"" +
         std::to_string(kW) + "\" height=\"" + std::to_string(kH) +
         "\" role=\"img\" aria-label=\"counter plot\"><line class=\"axis\" x1=\"" + std::to_string(kPad) + "\" y1=\"" +
         std::to_string(kH - kPad) + "\" x2=\"" + std::to_string(kW - kPad) + "\" y2=\"" + std::to_string(kH - kPad) +
         "\"/><polyline class=\"series\" points=\"" + pts + "\"/><text x=\"2\" y=\"" + std::to_string(kH - kPad) +
         "\">" + std::to_string(c.min) + "</text><text x=\"2\" y=\"14\">" + std::to_string(c.max) +
         "</text><text x=\"" + std::to_string(kPad) + "\" y=\"" + std::to_string(kH - 8) + "\">" + FormatDuration(t0) +
         "</text><text text-anchor=\"end\" x=\"" + std::to_string(kW - kPad) + "\" y=\"" + std::to_string(kH - 8) +
         "\">" + FormatDuration(t1) + "</text></svg>";
}

std::string Cell(const std::string& s, bool num = true) {
  return std::string(num ? "<td class=\"n\">" : "<td>") + s + "</td>";
}

void DurationSection(std::string& o, const char* title, const char* id,
                     const std::map<std::string, DurationStats, std::less<>>& m, bool slices) {
  o += "<section id=\"" + std::string(id) + "\"><h2>" + title + " <small>" + std::to_string(m.size()) + "</small></h2>";
  if (m.empty()) {
    o += "<p class=\"none\">none in this trace</p></section>";
    return;
  }
  const auto order = Sorted(m, !slices);
  o += "<div class=\"cards\">";
  for (size_t i = 0; i < order.size() && i < kCharts; ++i) {
    const auto& [key, d] = *order[i];
    const QuantileSketch& q = d.sketch;
    o += "<figure class=\"card\"><figcaption>" + Esc(key) + "</figcaption>" + Histogram(q) + "<p>n " +
         std::to_string(q.count()) + " · p50 " + FormatDuration(q.Quantile(5000)) + " · p99 " +
         FormatDuration(q.Quantile(9900)) + " · max " + FormatDuration(q.max()) + "</p></figure>";
  }
  o += "</div><table><thead><tr><th>key</th><th>count</th><th>total</th>";
  if (slices) o += "<th>self</th>";
  o += "<th>mean</th><th>min</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>longest at</th>"
       "</tr></thead><tbody>";
  for (const auto* e : order) {
    const DurationStats& d = e->second;
    const QuantileSketch& q = d.sketch;
    o += "<tr>" + Cell(Esc(e->first), false) + Cell(std::to_string(q.count())) +
         Cell(FormatDuration(static_cast<long double>(q.sum())));
    if (slices) o += Cell(FormatDuration(d.self));
    o += Cell(FormatDuration(q.mean())) + Cell(FormatDuration(q.min())) + Cell(FormatDuration(q.Quantile(5000))) +
         Cell(FormatDuration(q.Quantile(9000))) + Cell(FormatDuration(q.Quantile(9900))) +
         Cell(FormatDuration(q.Quantile(9990))) + Cell(FormatDuration(q.max()));
    std::string at;
    for (const Instance& in : d.longest) {
      if (!at.empty()) at += ", ";
      at += FormatDuration(in.ns) + " (" + FormatDuration(in.dur) + ")";
    }
    o += Cell(Esc(at), false) + "</tr>";
  }
  o += "</tbody></table></section>";
}

constexpr char kStyle[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #ddd}"
    "h2 small{color:#888;font-weight:normal}.sub{color:#666;margin:0}"
    ".cards{display:flex;flex-wrap:wrap;gap:12px}.card{margin:0;padding:8px;border:1px solid #e3e3e3;"
    "border-radius:6px}.card figcaption{font-weight:600;max-width:360px;overflow:hidden;text-overflow:ellipsis;"
    "white-space:nowrap}.card p{margin:2px 0 0;color:#555;font-size:12px}"
    ".chart text{font-size:10px;fill:#666}.axis{stroke:#999}.bar{fill:#4e79a7}.p50{stroke:#2a9d8f;fill:#2a9d8f}"
    ".p99{stroke:#e15759;fill:#e15759}.series{fill:none;stroke:#f28e2b;stroke-width:1.5}"
    "table{border-collapse:collapse;margin-top:10px;font-size:12px}th,td{padding:3px 8px;border-bottom:1px solid #eee;"
    "text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}.none{color:#888}";

}  // namespace

std::string HtmlReport(const TraceStats& s, std::string_view title) {
  std::string o =
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>mabutrace stats: " + Esc(title) +
      "</title><style>" + kStyle + "</style></head><body>";
  o += "<h1>mabutrace stats</h1><p class=\"sub\">" + Esc(title) + " · trace end " + FormatDuration(s.end_ns()) + " · " +
       std::to_string(s.slices().size()) + " slice keys, " + std::to_string(s.flows().size()) + " flow keys, " +
       std::to_string(s.counters().size()) + " counters</p>";
  DurationSection(o, "Slices", "slices", s.slices(), true);
  DurationSection(o, "Flows (out → in latency)", "flows", s.flows(), false);
  if (!s.chains().empty()) DurationSection(o, "Chains (first out → last in)", "chains", s.chains(), false);
  o += "<section id=\"counters\"><h2>Counters <small>" + std::to_string(s.counters().size()) + "</small></h2>";
  if (s.counters().empty()) o += "<p class=\"none\">none in this trace</p>";
  o += "<div class=\"cards\">";
  for (const auto& [name, c] : s.counters()) {
    o += "<figure class=\"card\"><figcaption>" + Esc(name) + "</figcaption>" + CounterPlot(c, s.end_ns()) + "<p>n " +
         std::to_string(c.count) + " · min " + std::to_string(c.min) + " · p50 " + std::to_string(c.Quantile(5000)) +
         " · p99 " + std::to_string(c.Quantile(9900)) + " · max " + std::to_string(c.max) + " · last " +
         std::to_string(c.last) + Fmt(" · mean %.4g", c.mean()) + Fmt(" · time-weighted %.4g", s.TimeWeightedMean(c)) +
         "</p></figure>";
  }
  o += "</div></section><section id=\"instants\"><h2>Instants <small>" + std::to_string(s.instants().size()) +
       "</small></h2><table><thead><tr><th>name</th><th>count</th></tr></thead><tbody>";
  for (const auto& [name, n] : s.instants()) o += "<tr>" + Cell(Esc(name), false) + Cell(std::to_string(n)) + "</tr>";
  o += "</tbody></table></section><section id=\"threads\"><h2>Threads</h2><table><thead><tr><th>thread</th>"
       "<th>busy</th><th>longest idle</th><th>idle from</th></tr></thead><tbody>";
  for (const auto& [k, t] : s.threads()) {
    o += "<tr>" + Cell(Esc(t.name), false) + Cell(FormatDuration(t.busy)) + Cell(FormatDuration(t.longest_idle)) +
         Cell(FormatDuration(t.idle_from)) + "</tr>";
  }
  o += "</tbody></table></section><section id=\"metadata\"><h2>Metadata</h2><table><tbody>";
  for (const auto& [k, v, number] : s.metadata()) {
    if (v == "0") continue;
    o += "<tr>" + Cell(Esc(k), false) + Cell(Esc(v)) + "</tr>";
  }
  o += "</tbody></table></section></body></html>\n";
  return o;
}

}  // namespace mabutrace::stats
