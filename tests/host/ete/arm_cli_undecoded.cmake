# SPDX-License-Identifier: MIT
# `mabutrace arm packets|decode` on a snapshot with sources of protocols the
# build does not decode (TC2: ITM; its ETMv3 x3 are decoded, host/etm3, and
# its PTM x2 have packets only, host/ptm): exit code 1, and every such
# source named with its protocol on stderr.
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
  if(sub STREQUAL "decode" AND NOT err MATCHES "source PTM_1 \\(PTM1.1, buffer ETB_0\\): PTM elements are not decoded yet")
    message(FATAL_ERROR "arm decode: PTM_1 not named as packets-only:\n${err}")
  endif()
endforeach()
