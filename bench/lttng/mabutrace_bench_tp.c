// SPDX-License-Identifier: MIT
// The probes of mabutrace_bench_tp.h, linked into mabutrace_lttng_bench.
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "mabutrace_bench_tp.h"
