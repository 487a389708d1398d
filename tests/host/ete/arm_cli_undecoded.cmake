# SPDX-License-Identifier: MIT
# `mabutrace arm packets|decode` on a snapshot with trace sources of
# protocols the build does not decode (TC2: PTM x2, ITM; its ETMv3 x3 are
# decoded, host/etm3): exit code 1, and every such source named with its
# protocol on stderr.
foreach(sub packets decode)
  execute_process(COMMAND ${CLI} arm ${sub} ${SNAP} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "arm ${sub}: exit code ${rc}, expected 1\n${err}")
  endif()
  foreach(want "source PTM_1 \\(PTM1.1, buffer ETB_0\\): PTM trace is not decoded"
               "source ITM_0 \\(ITM, buffer ETB_0\\): ITM trace is not decoded")
    if(NOT err MATCHES "${want}")
      message(FATAL_ERROR "arm ${sub}: stderr lacks '${want}':\n${err}")
    endif()
  endforeach()
endforeach()
