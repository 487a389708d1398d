# SPDX-License-Identifier: MIT
# `mabutrace arm packets|decode` on a snapshot with sources of protocols the
# build does not decode (TC2: ITM; its ETMv3 x3 are decoded, host/etm3, and
# its PTM x2 too, host/ptm): exit code 1, and every such source named with
# its protocol on stderr.
foreach(sub packets decode)
  execute_process(COMMAND ${CLI} arm ${sub} ${SNAP} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "arm ${sub}: exit code ${rc}, expected 1\n${err}")
  endif()
  foreach(want "source ITM_0 \\(ITM, buffer ETB_0\\): ITM trace is not decoded")
    if(NOT err MATCHES "${want}")
      message(FATAL_ERROR "arm ${sub}: stderr lacks '${want}':\n${err}")
    endif()
  endforeach()
  if(sub STREQUAL "packets" AND NOT out MATCHES "ID:13; \\[0x08 0x83 0x8d 0x01 0xc0 0x01 \\];\tISYNC")
    message(FATAL_ERROR "arm packets: no PTM packets of PTM_0 listed")
  endif()
  if(sub STREQUAL "decode" AND (err MATCHES "PTM_" OR NOT out MATCHES "Idx:26646. ID:13. OCSD_GEN_TRC_ELEM_ADDR_NACC"))
    message(FATAL_ERROR "arm decode: PTM_0's elements not decoded (or a PTM source named as undecoded):\n${err}")
  endif()
endforeach()
