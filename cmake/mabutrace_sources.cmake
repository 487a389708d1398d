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
#   MABUTRACE_RECORDER_SOURCES  src/runtime: recording, the ring buffer,
#                               the binary stream and the dump descriptor
#   MABUTRACE_EXPORTER_SOURCES  src/runtime: the on-device exporters
#                               (Chrome JSON, Perfetto); they need the
#                               format sources too
#   MABUTRACE_HTTP_SOURCES      src/http: what the built-in HTTP server
#                               answers (routes, Host policy, capture page,
#                               bodies); each port with a server adds its
#                               transport; needs the exporter sources
set(MABUTRACE_FORMAT_SOURCES
  src/format/json_out.cpp
  src/format/chrome_json_writer.cpp
  src/format/perfetto_writer.cpp)
set(MABUTRACE_RECORDER_SOURCES
  src/runtime/recorder.cpp
  src/runtime/chunk_reader.cpp
  src/runtime/stream_writer.cpp
  src/runtime/dump_descriptor.cpp)
set(MABUTRACE_EXPORTER_SOURCES
  src/runtime/trace_walker.cpp
  src/runtime/json_exporter.cpp
  src/runtime/perfetto_exporter.cpp)
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
