# SPDX-License-Identifier: MIT
# mabutrace_sources.cmake: the portable sources of the device library, in
# one place. Every build that compiles them for a device or a test kernel
# (this repository's CMakeLists.txt, the ESP-IDF component branch of it,
# examples/cortex-m, tests/port/freertos) takes its list from here, so a
# file added to or split out of the runtime is listed once.
#
# Paths are relative to the repository root. Port sources are not listed:
# each build adds its own port (src/port/<platform>/).
#
#   MABUTRACE_FORMAT_SOURCES    src/format: the binary formats and the
#                               JSON/protobuf writers device and host share
#   MABUTRACE_RECORDER_SOURCES  src/runtime: everything of recording but
#                               the write path (lifecycle, layout, thread
#                               registry, statistics, flows), the ring
#                               buffer's readers, the binary stream and the
#                               dump descriptor
#   MABUTRACE_WRITER_SOURCES_<PORT>  src/runtime: the write path of that
#                               port (src/runtime/writer.h); a build takes
#                               the recorder sources and its port's writer
#     _HOST                     thread-local writers (src/port/host)
#     _FREERTOS                 per-context writers on several cores
#                               (src/port/freertos)
#     _CORTEX_M                 one core, Thread mode unmasked (also the
#                               RISC-V port: src/port/cortex-m, src/port/riscv)
#   MABUTRACE_EXPORTER_SOURCES  src/runtime: the on-device exporters
#                               (Chrome JSON, Perfetto); they need the
#                               format sources too
#   MABUTRACE_HTTP_SOURCES      src/http: what the built-in HTTP server
#                               answers (routes, Host policy, capture page,
#                               bodies); each port with a server adds its
#                               transport; needs the exporter sources
#
# (The Arduino IDE compiles every file under src/: each writer file
# compiles to nothing for the other ports, tests/port/arduino checks it.)
set(MABUTRACE_FORMAT_SOURCES
  src/format/json_out.cpp
  src/format/chrome_json_writer.cpp
  src/format/perfetto_writer.cpp)
set(MABUTRACE_RECORDER_SOURCES
  src/runtime/lifecycle.cpp
  src/runtime/layout.cpp
  src/runtime/thread_registry.cpp
  src/runtime/stats.cpp
  src/runtime/flows.cpp
  src/runtime/chunk_reader.cpp
  src/runtime/stream_writer.cpp
  src/runtime/dump_descriptor.cpp)
set(MABUTRACE_WRITER_SOURCES_HOST src/runtime/writer_tls.cpp)
set(MABUTRACE_WRITER_SOURCES_FREERTOS src/runtime/writer_contexts.cpp)
set(MABUTRACE_WRITER_SOURCES_CORTEX_M src/runtime/writer_single_core.cpp)
set(MABUTRACE_EXPORTER_SOURCES
  src/runtime/trace_walker.cpp
  src/runtime/json_exporter.cpp
  src/runtime/perfetto_exporter.cpp
  src/runtime/response_count.cpp)
set(MABUTRACE_HTTP_SOURCES
  src/http/http_service.cpp
  src/http/host_check.cpp)

# mabutrace_sources(OUT ROOT LISTS...): the named lists joined, as absolute
# paths under ROOT.
function(mabutrace_sources out root)
  set(all)
  foreach(list IN LISTS ARGN)
    foreach(f IN LISTS ${list})
      list(APPEND all ${root}/${f})
    endforeach()
  endforeach()
  set(${out} ${all} PARENT_SCOPE)
endfunction()
