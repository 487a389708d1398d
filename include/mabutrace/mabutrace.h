// SPDX-License-Identifier: MIT
/*
 * mabutrace.h: the one header for instrumented code (C11 and C++17).
 *
 *   TRACE_SCOPE(name[, color])          begin now, end when the scope is left
 *   TRC()                               TRACE_SCOPE(__func__) (inside a C++
 *                                       lambda __func__ is "operator()")
 *   TRACE_INSTANT(name[, color])        a point event
 *   TRACE_FLOW_OUT(&link[, name[, color]])  start an arrow; writes a fresh
 *                                       non-zero 16-bit id into link (ids
 *                                       cycle 1..65535; a variable that still
 *                                       holds an earlier hop's id gets a new
 *                                       one, so forwarding chains arrows)
 *   TRACE_FLOW_IN(link[, name[, color]])    end the arrow started with link
 *   TRACE_COUNTER(name, value[, color]) an integer sample on a counter track
 *   TRACE_CLOCK_SYNC("domain", value)   a sync point: now, the clock or
 *                                       event sequence "domain" read `value`
 *                                       (uint64), so `mabutrace merge` can
 *                                       put this trace and one on that clock
 *                                       on one timeline (docs/merge.md)
 *
 * Names are `const char*` and are NOT copied: they must outlive the export
 * (string literals, __func__, or other static storage). A NULL name is
 * recorded and exported as "(null)".
 *
 * Colors are 24-bit RGB values 0xRRGGBB or the COLOR_* constants below.
 * Exporters keep the exact RGB in the event's args ("color":"#rrggbb") and
 * map it to the nearest colour the viewer reserves (Chrome JSON "cname").
 *
 * Every macro is safe to call from any thread at any time: before
 * mabutrace_init() and after mabutrace_deinit() it records nothing.
 * Defining MABUTRACE_DISABLE (or CONFIG_MABUTRACE_DISABLE=1) before including
 * this header removes every macro and API call: no code, no reference to the
 * library, arguments not evaluated.
 *
 * Record format and memory layout: docs/runtime.md.
 */
#ifndef MABUTRACE_MABUTRACE_H
#define MABUTRACE_MABUTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "version.h" /* MABUTRACE_VERSION_* */

/* The counter-name prefix of a TRACE_CLOCK_SYNC sync point ("clock_sync:"
 * + domain): what host tools look for (docs/merge.md). */
#define MABUTRACE_CLOCK_SYNC_PREFIX "clock_sync:"

#if defined(CONFIG_MABUTRACE_DISABLE) && CONFIG_MABUTRACE_DISABLE && !defined(MABUTRACE_DISABLE)
#define MABUTRACE_DISABLE 1
#endif

/* ---- Colors (0xRRGGBB) ------------------------------------------------- */
#define COLOR_RED 0xE53935u
#define COLOR_DARK_RED 0xB40000u
#define COLOR_ORANGE 0xFB8C00u
#define COLOR_YELLOW 0xFDD835u
#define COLOR_OLIVE 0x646400u
#define COLOR_GREEN 0x43A047u
#define COLOR_DARK_GREEN 0x007D00u
#define COLOR_CYAN 0x00B4B4u
#define COLOR_BLUE 0x1E88E5u
#define COLOR_DARK_BLUE 0x0000B4u
#define COLOR_PURPLE 0x8E24AAu
#define COLOR_MAGENTA 0xB400B4u
#define COLOR_BROWN 0x8D6E63u
#define COLOR_GREY 0x7D7D7Du
#define COLOR_BLACK 0x000000u
#define COLOR_WHITE 0xFFFFFFu

/* ---- Status codes (every API function returns one, 0 = success) ------- */
typedef enum mabutrace_status {
  MABUTRACE_OK = 0,
  MABUTRACE_ERR_NOT_INITIALIZED = -1, /* called before init / after deinit */
  MABUTRACE_ERR_ALREADY_INITIALIZED = -2,
  MABUTRACE_ERR_INVALID_ARG = -3,     /* NULL pointer, size out of range */
  MABUTRACE_ERR_NO_MEMORY = -4,       /* init could not get its memory */
  MABUTRACE_ERR_IO = -5,              /* the export sink refused data */
  MABUTRACE_ERR_SERVER = -6,          /* port in use, cannot bind */
  MABUTRACE_ERR_ALREADY_RUNNING = -7, /* server started twice */
  MABUTRACE_ERR_UNSUPPORTED = -8      /* not available on this port */
} mabutrace_status_t;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Lifecycle ----------------------------------------------------------- */

/* Ticks of a user clock; mabutrace_config_t.clock_hz says how many per s. */
typedef uint64_t (*mabutrace_clock_fn)(void);

/* The port's clocks (mabutrace_config_t.clock_source; docs/runtime.md §10):
 *   AUTO       host: the CPU counter where usable, else MONOTONIC; MCU
 *              ports: their one clock
 *   COUNTER    host: x86-64 invariant TSC (RDTSC) or AArch64 CNTVCT_EL0;
 *              MONOTONIC where the CPU has no usable one
 *   MONOTONIC  host: clock_gettime(CLOCK_MONOTONIC) */
#define MABUTRACE_CLOCK_AUTO 0u
#define MABUTRACE_CLOCK_COUNTER 1u
#define MABUTRACE_CLOCK_MONOTONIC 2u

typedef struct mabutrace_config {
  /* Bytes of event storage (CONFIG_MABUTRACE_BUFFER_SIZE, default 65536).
   * Range 4 KiB .. 1 GiB. Bookkeeping adds mabutrace_memory_required()
   * minus this; nothing is allocated after init. */
  size_t buffer_size;
  /* Optional caller memory of mabutrace_memory_required(cfg) bytes, 64-byte
   * aligned. NULL: init allocates it once. */
  void* memory;
  /* Optional clock and its rate; NULL = the port's clock (host: the CPU's
   * counter or CLOCK_MONOTONIC, see clock_source). Must be one monotonic
   * clock for every core (not a per-core cycle counter): a thread's record
   * before its previous one is drawn at that time and counted in the
   * metadata's clock_went_backwards (docs/runtime.md §10). */
  mabutrace_clock_fn clock;
  uint64_t clock_hz;
  /* Most threads/tasks that can be named at once (default 64). */
  uint32_t max_threads;
  /* Deepest scope nesting the exporters track per thread (default 32);
   * deeper scopes are counted in the metadata, not drawn. */
  uint32_t max_depth;
  /* Process name in the exported trace (default: the port's, e.g. argv[0]). */
  const char* process_name;
  /* Which port clock records when `clock` is NULL: MABUTRACE_CLOCK_*
   * (default AUTO). With AUTO the host also reads the environment variable
   * MABUTRACE_CLOCK=tsc|counter|cntvct|monotonic at init. Whatever the
   * clock, exports and host tools convert its ticks to ns on
   * CLOCK_MONOTONIC's timeline (docs/runtime.md §10). */
  uint32_t clock_source;
} mabutrace_config_t;

/* Fills cfg with the defaults above. */
void mabutrace_config_default(mabutrace_config_t* cfg);
/* Bytes init needs for cfg (event storage + bookkeeping). */
size_t mabutrace_memory_required(const mabutrace_config_t* cfg);

/* Starts recording with the default config. Returns MABUTRACE_OK,
 * MABUTRACE_ERR_ALREADY_INITIALIZED or MABUTRACE_ERR_NO_MEMORY. */
int mabutrace_init(void);
/* Same with a config (NULL = defaults); MABUTRACE_ERR_INVALID_ARG for sizes
 * out of range. */
int mabutrace_init_with_config(const mabutrace_config_t* cfg);
/* Stops the server (if any) and recording and frees what init allocated.
 * Other threads must have stopped tracing (their later calls are no-ops, but
 * a call racing with deinit may touch freed memory). Harmless if not
 * initialized. */
void mabutrace_deinit(void);
/* 1 between init and deinit, else 0. */
int mabutrace_is_initialized(void);

/* Names the calling thread in the trace (copied, cut to 31 bytes at a
 * character boundary). Without it the port's name is used (host:
 * pthread_getname_np, read when the thread first records). Before init it
 * returns MABUTRACE_ERR_NOT_INITIALIZED and the name is not kept: name
 * threads with pthread_setname_np, or call this after mabutrace_init(). */
int mabutrace_set_thread_name(const char* name);

/* ---- Statistics (R-A12) --------------------------------------------------- */
typedef struct mabutrace_stats {
  uint64_t events_written;     /* records stored since init */
  uint64_t events_overwritten; /* of those, lost to wrap-around (oldest first) */
  uint64_t events_dropped;     /* never stored: no free chunk (more writing
                                  threads than chunks) */
  uint64_t bytes_in_use;       /* bytes of event storage holding records */
  uint64_t buffer_size;        /* bytes of event storage */
  uint32_t chunk_size;         /* bytes per chunk (unit of overwrite) */
  uint32_t threads;            /* thread registry slots in use: threads that
                                  recorded (slots of exited threads are
                                  reused, so at most max_threads) */
} mabutrace_stats_t;
int mabutrace_get_stats(mabutrace_stats_t* out);

/* ---- Raw RAM dumps (docs/raw-dump.md) ---------------------------------------
 * Where the trace memory is, for a debugger: dump `bytes` bytes from `base`
 * (or any larger region holding them, such as all of SRAM), then
 * `mabutrace convert DUMP --elf FIRMWARE.elf -o trace.json`. gdb:
 *   dump binary memory trace.dump mabutrace_dump_region.base \
 *       (char*)mabutrace_dump_region.base + mabutrace_dump_region.bytes
 * {NULL, 0} when not initialized. */
typedef struct mabutrace_dump_region {
  void* base;
  size_t bytes;
} mabutrace_dump_region_t;
#if !defined(MABUTRACE_DISABLE)
extern volatile mabutrace_dump_region_t mabutrace_dump_region;
#endif

/* ---- Export ------------------------------------------------------------- */

/* Receives exported bytes; return 0 to go on, non-zero to abort (the export
 * then returns MABUTRACE_ERR_IO). */
typedef int (*mabutrace_write_fn)(void* user, const char* data, size_t len);

/* Streams the buffer as Chrome trace-event JSON (object form) while writers
 * keep writing. Uses only memory reserved at init (working buffers of
 * docs/runtime.md), so it may run at any time; exports are serialised. */
int mabutrace_export_json(mabutrace_write_fn write, void* user);

/* Streams the buffer as a Perfetto protobuf trace (.pftrace: a sequence of
 * TracePacket, perfetto_trace.proto) with interned event names, process,
 * thread and counter track descriptors, slices, instants, counters and flows
 * (flow_ids / terminating_flow_ids). Same memory and concurrency rules as
 * mabutrace_export_json. */
int mabutrace_export_perfetto(mabutrace_write_fn write, void* user);

/* ---- Binary stream (R-C3): UART, flash, BLE, sockets ------------------------
 * The output callback receives a self-describing, versioned byte stream:
 * a header once, then records (names travel as strings the first time they
 * are used). Byte layout: docs/stream-format.md. Data is pushed by
 * mabutrace_flush_output(), from any thread that may block on the
 * transport (never from an ISR): it sends what was recorded since the last
 * flush. Records overwritten before they were sent are reported as lost.
 * The callback gets pieces of at most 4 KiB, runs under the export lock
 * (a concurrent export waits) and must not call back into mabutrace's
 * output or export functions. Host decoder: host/stream/stream_decoder.h. */
typedef void (*mabutrace_output_fn)(const uint8_t* data, size_t len);
/* Sets (or, with NULL, removes) the callback; the next flush starts a new
 * stream with its header. MABUTRACE_ERR_NOT_INITIALIZED before init. */
int mabutrace_set_output_callback(mabutrace_output_fn cb);
/* Sends everything recorded since the last flush to the callback. Returns
 * MABUTRACE_OK (also when there was nothing new), MABUTRACE_ERR_NOT_INITIALIZED,
 * or MABUTRACE_ERR_INVALID_ARG when no callback is set. */
int mabutrace_flush_output(void);

/* ---- HTTP server (R-C4; host: cpp-httplib) ------------------------------ */
/* Serves "/" (capture page), "/trace" and "/trace.json" (Chrome JSON) and
 * "/trace.pftrace" (Perfetto protobuf) on 127.0.0.1:port. Routes, limits
 * and return codes: docs/http-server.md.
 * Port 0 picks a free port (see mabutrace_server_port()). */
int mabutrace_start_server(uint16_t port);
/* Same, binding bind_address (e.g. "0.0.0.0" to reach it from other hosts). */
int mabutrace_start_server_on(const char* bind_address, uint16_t port);
/* The port the running server listens on, 0 if none. */
uint16_t mabutrace_server_port(void);
void mabutrace_stop_server(void);

/* ---- Recording functions behind the macros ---------------------------------
 * Call the macros, not these: they add the color flag and the C cleanup. */
typedef struct mabutrace_scope {
  /* 0 = nothing recorded, end is a no-op. Else the session (host,
   * FreeRTOS) or the begin record's address (single-core MCU ports). */
  uint32_t session;
} mabutrace_scope_t;

#define MABUTRACE_COLOR_SET 0x1000000u /* flag: a color was given */
#define MABUTRACE_COLOR(c) ((uint32_t)(((uint32_t)(c)&0xFFFFFFu) | MABUTRACE_COLOR_SET))

mabutrace_scope_t mabutrace_scope_begin(const char* name, uint32_t color);
void mabutrace_scope_end(mabutrace_scope_t* scope);
void mabutrace_instant(const char* name, uint32_t color);
void mabutrace_counter(const char* name, int64_t value, uint32_t color);
void mabutrace_flow_out(uint16_t* link, const char* name, uint32_t color);
void mabutrace_flow_in(uint16_t link, const char* name, uint32_t color);

#ifdef __cplusplus
} /* extern "C" */
#endif

#define MABUTRACE_CAT_(a, b) a##b
#define MABUTRACE_CAT(a, b) MABUTRACE_CAT_(a, b)
#define MABUTRACE_PICK3(_1, _2, _3, NAME, ...) NAME
#define MABUTRACE_PICK4(_1, _2, _3, _4, NAME, ...) NAME

#if defined(MABUTRACE_DISABLE)
/* ---- Removed: nothing below evaluates its arguments or names a symbol. -- */
#define TRACE_SCOPE(...)
#define TRC()
#define TRACE_INSTANT(...) ((void)0)
#define TRACE_FLOW_OUT(...) ((void)0)
#define TRACE_FLOW_IN(...) ((void)0)
#define TRACE_COUNTER(...) ((void)0)
#define TRACE_CLOCK_SYNC(domain, value) ((void)0)
#define mabutrace_config_default(cfg) ((void)0)
#define mabutrace_memory_required(cfg) ((size_t)0)
#define mabutrace_init() ((int)MABUTRACE_OK)
#define mabutrace_init_with_config(cfg) ((int)MABUTRACE_OK)
#define mabutrace_deinit() ((void)0)
#define mabutrace_is_initialized() 0
#define mabutrace_set_thread_name(name) ((int)MABUTRACE_OK)
#define mabutrace_get_stats(out) ((int)MABUTRACE_ERR_NOT_INITIALIZED)
#define mabutrace_export_json(write, user) ((int)MABUTRACE_ERR_NOT_INITIALIZED)
#define mabutrace_export_perfetto(write, user) ((int)MABUTRACE_ERR_NOT_INITIALIZED)
#define mabutrace_set_output_callback(cb) ((int)MABUTRACE_OK)
#define mabutrace_flush_output() ((int)MABUTRACE_OK)
#define mabutrace_start_server(port) ((int)MABUTRACE_OK)
#define mabutrace_start_server_on(addr, port) ((int)MABUTRACE_OK)
#define mabutrace_server_port() ((uint16_t)0)
#define mabutrace_stop_server() ((void)0)

#elif defined(__cplusplus)
/* ---- C++: RAII scope ------------------------------------------------------ */
namespace mabutrace {
class Scope {
 public:
  explicit Scope(const char* name) : scope_(mabutrace_scope_begin(name, 0)) {}
  Scope(const char* name, uint32_t rgb) : scope_(mabutrace_scope_begin(name, MABUTRACE_COLOR(rgb))) {}
  ~Scope() { mabutrace_scope_end(&scope_); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  mabutrace_scope_t scope_;
};
}  // namespace mabutrace

#define TRACE_SCOPE(...) ::mabutrace::Scope MABUTRACE_CAT(mabutrace_scope_, __COUNTER__)(__VA_ARGS__)
#define TRC() TRACE_SCOPE(__func__)

#else
/* ---- C: the scope handle ends itself through __attribute__((cleanup)) --- */
static inline void mabutrace_scope_cleanup_(mabutrace_scope_t* scope) { mabutrace_scope_end(scope); }
#define MABUTRACE_SCOPE_(name, color)                                                         \
  __attribute__((cleanup(mabutrace_scope_cleanup_), unused)) mabutrace_scope_t MABUTRACE_CAT( \
      mabutrace_scope_, __COUNTER__) = mabutrace_scope_begin((name), (color))
#define MABUTRACE_SCOPE1_(name) MABUTRACE_SCOPE_(name, 0)
#define MABUTRACE_SCOPE2_(name, rgb) MABUTRACE_SCOPE_(name, MABUTRACE_COLOR(rgb))
#define TRACE_SCOPE(...) MABUTRACE_PICK3(__VA_ARGS__, _, MABUTRACE_SCOPE2_, MABUTRACE_SCOPE1_, _)(__VA_ARGS__)
#define TRC() TRACE_SCOPE(__func__)
#endif

#if !defined(MABUTRACE_DISABLE)
/* ---- C and C++: the point events -------------------------------------- */
#define MABUTRACE_INSTANT1_(name) mabutrace_instant((name), 0)
#define MABUTRACE_INSTANT2_(name, rgb) mabutrace_instant((name), MABUTRACE_COLOR(rgb))
#define TRACE_INSTANT(...) MABUTRACE_PICK3(__VA_ARGS__, _, MABUTRACE_INSTANT2_, MABUTRACE_INSTANT1_, _)(__VA_ARGS__)

#define MABUTRACE_COUNTER2_(name, v) mabutrace_counter((name), (int64_t)(v), 0)
#define MABUTRACE_COUNTER3_(name, v, rgb) mabutrace_counter((name), (int64_t)(v), MABUTRACE_COLOR(rgb))
#define TRACE_COUNTER(...) MABUTRACE_PICK4(__VA_ARGS__, _, MABUTRACE_COUNTER3_, MABUTRACE_COUNTER2_, _, _)(__VA_ARGS__)

/* A sync point is a counter sample named MABUTRACE_CLOCK_SYNC_PREFIX +
 * domain (the value's 64 bits kept), so it needs no record of its own and
 * survives every conversion; `domain` must be a string literal. Pair it
 * with the same domain in another trace: the reading of a clock that trace
 * is on (e.g. "cntvct", what ETE timestamps count), or a shared event
 * numbered alike on both sides (the k-th GPIO edge, a message id). */
#define TRACE_CLOCK_SYNC(domain, value) \
  mabutrace_counter(MABUTRACE_CLOCK_SYNC_PREFIX domain, (int64_t)(uint64_t)(value), 0)

#define MABUTRACE_FLOW_OUT1_(link) mabutrace_flow_out((link), 0, 0)
#define MABUTRACE_FLOW_OUT2_(link, name) mabutrace_flow_out((link), (name), 0)
#define MABUTRACE_FLOW_OUT3_(link, name, rgb) mabutrace_flow_out((link), (name), MABUTRACE_COLOR(rgb))
#define TRACE_FLOW_OUT(...)                                                                         \
  MABUTRACE_PICK3(__VA_ARGS__, MABUTRACE_FLOW_OUT3_, MABUTRACE_FLOW_OUT2_, MABUTRACE_FLOW_OUT1_, _) \
  (__VA_ARGS__)

#define MABUTRACE_FLOW_IN1_(link) mabutrace_flow_in((uint16_t)(link), 0, 0)
#define MABUTRACE_FLOW_IN2_(link, name) mabutrace_flow_in((uint16_t)(link), (name), 0)
#define MABUTRACE_FLOW_IN3_(link, name, rgb) mabutrace_flow_in((uint16_t)(link), (name), MABUTRACE_COLOR(rgb))
#define TRACE_FLOW_IN(...)                                                                       \
  MABUTRACE_PICK3(__VA_ARGS__, MABUTRACE_FLOW_IN3_, MABUTRACE_FLOW_IN2_, MABUTRACE_FLOW_IN1_, _) \
  (__VA_ARGS__)
#endif

#endif /* MABUTRACE_MABUTRACE_H */
