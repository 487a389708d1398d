# SPDX-License-Identifier: MIT
# `mabutrace arm packets|decode` on TC2, whose ETMv3 x3 (host/etm3), PTM x2
# (host/ptm) and ITM (host/itm, listed as `mabutrace itm` lists it) are all
# decoded: exit code 0, each source listed, none named as undecoded. Then,
# when STM_SNAP is given, a snapshot whose only source is of a protocol
# `arm` does not decode (STM): exit code 1, the source named with its
# protocol and the command that decodes it.
foreach(sub packets decode)
  execute_process(COMMAND ${CLI} arm ${sub} ${SNAP} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "arm ${sub}: exit code ${rc}, expected 0\n${err}")
  endif()
  if(err MATCHES "not decoded")
    message(FATAL_ERROR "arm ${sub}: a source named as not decoded:\n${err}")
  endif()
  if(NOT out MATCHES "# source ITM_0 buffer ETB_0 [^\n]*: ITM, TCR 0x00200006, trace ID 0x20")
    message(FATAL_ERROR "arm ${sub}: ITM_0 not listed")
  endif()
  if(sub STREQUAL "packets" AND NOT out MATCHES "ID:13; \\[0x08 0x83 0x8d 0x01 0xc0 0x01 \\];\tISYNC")
    message(FATAL_ERROR "arm packets: no PTM packets of PTM_0 listed")
  endif()
  if(sub STREQUAL "decode" AND NOT out MATCHES "Idx:26646. ID:13. OCSD_GEN_TRC_ELEM_ADDR_NACC")
    message(FATAL_ERROR "arm decode: PTM_0's elements not decoded")
  endif()
  # TC2's ITM sends nothing: its one element line is OpenCSD's (ID 0x20).
  if(sub STREQUAL "decode" AND NOT out MATCHES "Idx:0; ID:20; OCSD_GEN_TRC_ELEM_EO_TRACE\\( \\[end-of-trace\\]\\)")
    message(FATAL_ERROR "arm decode: ITM_0's element line missing")
  endif()
endforeach()
if(STM_SNAP)
  foreach(sub packets decode)
    execute_process(COMMAND ${CLI} arm ${sub} ${STM_SNAP} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 1 OR NOT err MATCHES "source STM_0 \\(STM, buffer ETB_1\\): STM trace is not decoded[^\n]*see `mabutrace stm`")
      message(FATAL_ERROR "arm ${sub} ${STM_SNAP}: exit code ${rc} (expected 1), stderr:\n${err}")
    endif()
  endforeach()
endif()
