// SPDX-License-Identifier: MIT
// stats_report.h: a finished TraceStats as text, JSON or CSV
// (`mabutrace stats --format`, docs/stats.md §5). Times are integer ns in
// JSON and CSV (means may have a fraction), with units in text.
#ifndef MABUTRACE_HOST_STATS_STATS_REPORT_H
#define MABUTRACE_HOST_STATS_STATS_REPORT_H

#include <string>
#include <string_view>

#include "trace_stats.h"

namespace mabutrace::stats {

// Tables per section (slices by total descending, flows by p99
// descending, counters, instants, threads), then the trace's metadata
// counts that are not 0.
std::string TextReport(const TraceStats& s);
// One object: {"slices":[...], "flows":[...], "counters":[...],
// "instants":[...], "threads":[...], "metadata":{...}, "quantiles":{...}}.
std::string JsonReport(const TraceStats& s);
// One table for all kinds: kind,key,count,total,self,mean,min,p50,p90,
// p99,p99.9,max,last,twmean,busy,longest_idle,exact (empty where a kind has no such statistic).
std::string CsvReport(const TraceStats& s);
// One self-contained page (no script, no external reference: CSS and inline
// SVG): per section a duration histogram (log scale, p50/p99 marked) of the
// 12 largest slice keys (by total) and flow keys (by p99), the full tables,
// a step plot per counter (its samples, thinned to at most 1,024 points),
// instants, threads and the non-zero metadata. `title`: the input's name.
std::string HtmlReport(const TraceStats& s, std::string_view title);

}  // namespace mabutrace::stats

#endif  // MABUTRACE_HOST_STATS_STATS_REPORT_H
