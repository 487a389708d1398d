// SPDX-License-Identifier: MIT
// mabutrace_bench_tp.h: the LTTng-UST tracepoint provider of the side-by-side
// benchmark (bench/mabutrace_bench.cpp, BM_LttngScope). Two events shaped like
// mabutrace's scope records: a begin carrying the name's address (what
// TRACE_SCOPE stores; LTTng copies no string either) and an end with no
// payload. LTTng adds its own header (timestamp, event id) to each.
//
// LTTng-UST 2.13 provider conventions (lttng-ust(3), "Tracepoint provider"):
// this header is read twice, once to declare, once (in the .c file with
// LTTNG_UST_TRACEPOINT_CREATE_PROBES) to generate the probes.
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER mabutrace_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "mabutrace_bench_tp.h"

#if !defined(MABUTRACE_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define MABUTRACE_BENCH_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(mabutrace_bench, scope_begin, LTTNG_UST_TP_ARGS(const char*, name),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer_hex(uintptr_t, name, (uintptr_t)name)))

LTTNG_UST_TRACEPOINT_EVENT(mabutrace_bench, scope_end, LTTNG_UST_TP_ARGS(), LTTNG_UST_TP_FIELDS())

#endif  // MABUTRACE_BENCH_TP_H

#include <lttng/tracepoint-event.h>
