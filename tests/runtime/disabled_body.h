// SPDX-License-Identifier: MIT
/* disabled_body.h: the body of disabled_use.c and disabled_use.cpp, which
 * are compiled with MABUTRACE_DISABLE (or CONFIG_MABUTRACE_DISABLE=1).
 * Every macro and every API function is used with arguments that count
 * their evaluation in `calls`: with tracing removed none may be evaluated,
 * and the object file must not name any mabutrace symbol (R-A8).
 *
 * DISABLED_SUFFIX (a compile definition) names each variant's function
 * disabled_run<suffix>. No identifier here may contain the library's name:
 * the nm check looks for it in every symbol. */
#include "mabutrace/mabutrace.h"

#define DISABLED_CAT_(a, b) a##b
#define DISABLED_CAT(a, b) DISABLED_CAT_(a, b)
#ifdef __cplusplus
#define DISABLED_LINKAGE extern "C"
#else
#define DISABLED_LINKAGE
#endif

#if !defined(MABUTRACE_DISABLE)
#error "this file must be compiled with tracing disabled"
#endif

static int calls;

static const char* counted_name(void) {
  ++calls;
  return "name";
}

static int counted_writer(void* user, const char* data, size_t len) {
  (void)user;
  (void)data;
  (void)len;
  ++calls;
  return 0;
}

static void traced_function(void) { TRC(); }

/* Returns the number of evaluated arguments (0 expected) or -1 when an API
 * call returned something other than its documented disabled value. */
DISABLED_LINKAGE int DISABLED_CAT(disabled_run, DISABLED_SUFFIX)(void);
DISABLED_LINKAGE int DISABLED_CAT(disabled_run, DISABLED_SUFFIX)(void) {
  int bad = 0;
  uint16_t link = 0;
  uint16_t links[4] = {0, 0, 0, 0};
  mabutrace_config_t cfg;
  mabutrace_stats_t stats;
  calls = 0;

  mabutrace_config_default((++calls, &cfg));
  if (mabutrace_memory_required((++calls, &cfg)) != 0) bad = 1;
  if (mabutrace_init() != MABUTRACE_OK) bad = 1;
  if (mabutrace_init_with_config((++calls, &cfg)) != MABUTRACE_OK) bad = 1;
  if (mabutrace_is_initialized() != 0) bad = 1;
  if (mabutrace_set_thread_name(counted_name()) != MABUTRACE_OK) bad = 1;
  {
    TRACE_SCOPE(counted_name());
    TRACE_SCOPE(counted_name(), (uint32_t)(++calls));
    TRACE_INSTANT(counted_name());
    TRACE_INSTANT(counted_name(), (uint32_t)(++calls));
    TRACE_COUNTER(counted_name(), ++calls);
    TRACE_COUNTER(counted_name(), ++calls, (uint32_t)(++calls));
    TRACE_FLOW_OUT(&links[calls++]);
    TRACE_FLOW_OUT(&links[calls++], counted_name());
    TRACE_FLOW_OUT(&links[calls++], counted_name(), (uint32_t)(++calls));
    TRACE_FLOW_IN(links[calls++]);
    TRACE_FLOW_IN(links[calls++], counted_name());
    TRACE_FLOW_IN(links[calls++], counted_name(), (uint32_t)(++calls));
    TRACE_FLOW_OUT((++calls, &link));
    TRACE_FLOW_IN((++calls, link));
  }
  traced_function();
  if (mabutrace_get_stats((++calls, &stats)) != MABUTRACE_ERR_NOT_INITIALIZED) bad = 1;
  if (mabutrace_export_json(counted_writer, (++calls, (void*)0)) != MABUTRACE_ERR_NOT_INITIALIZED) bad = 1;
  if (mabutrace_export_perfetto(counted_writer, (++calls, (void*)0)) != MABUTRACE_ERR_NOT_INITIALIZED) bad = 1;
  if (mabutrace_start_server((uint16_t)(++calls)) != MABUTRACE_OK) bad = 1;
  if (mabutrace_start_server_on(counted_name(), (uint16_t)(++calls)) != MABUTRACE_OK) bad = 1;
  if (mabutrace_server_port() != 0) bad = 1;
  mabutrace_stop_server();
  mabutrace_deinit();
  (void)cfg;
  (void)stats;
  (void)link;
  (void)links;
  (void)counted_writer;
  (void)counted_name;
  if (links[0] | links[1] | links[2] | links[3] | link) bad = 1;
  return bad ? -1 : calls;
}
