// SPDX-License-Identifier: MIT
// stats_report.h: a finished TraceStats as text, JSON or CSV
// (`mabutrace stats --format`, docs/stats.md §5). Times are integer ns in
// JSON and CSV (means may have a fraction), with units in text.
#ifndef MABUTRACE_HOST_STATS_STATS_REPORT_H
#define MABUTRACE_HOST_STATS_STATS_REPORT_H

#include <string>

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

}  // namespace mabutrace::stats

#endif  // MABUTRACE_HOST_STATS_STATS_REPORT_H
