# SPDX-License-Identifier: MIT
# `mabutrace arm export` of a copy of a snapshot whose trace is timed by
# timestamps (SNAP, a57_single_step) with DS-5's "[timestamp]
# frequency=25000000" added to trace.ini. The timeline takes its frequency
# from CNTFRQ_EL0 or --ts-hz only, so the snapshot's frequency must not be
# dropped without a word: a warning naming trace.ini, the key and the value,
# both with CNTFRQ_EL0 (another frequency used) and without it (ticks), and
# none once --ts-hz gives that frequency. WORK: a scratch directory.
set(copy ${WORK}/ts_frequency)
file(REMOVE_RECURSE ${copy})
file(COPY ${SNAP}/ DESTINATION ${copy})
file(APPEND ${copy}/trace.ini "\n[timestamp]\nfrequency=25000000\n")

function(export_expect what regex)
  execute_process(COMMAND ${CLI} arm export ${copy} -o ${copy}/out.json ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT err MATCHES "${regex}")
    message(FATAL_ERROR "${what}: exit code ${rc}, stderr:\n${err}\nexpected to match: ${regex}")
  endif()
endfunction()

set(key "trace.ini \\[timestamp\\] frequency=25000000 not used")
export_expect("CNTFRQ_EL0 and [timestamp] frequency differ"
              "mabutrace: warning: arm export: [^\n]*${key}: the timestamps are at 100000000 Hz from snapshot")

file(GLOB inis ${copy}/*.ini)
foreach(ini ${inis})
  file(READ ${ini} text)
  string(REGEX REPLACE "CNTFRQ_EL0=[^\n]*\n" "" text "${text}")
  file(WRITE ${ini} "${text}")
endforeach()
export_expect("no CNTFRQ_EL0, no --ts-hz" "${key}: the timestamps are placed as ticks [^\n]*give --ts-hz 25000000")
execute_process(COMMAND ${CLI} arm export ${copy} -o ${copy}/out.json --ts-hz 25000000 RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR err MATCHES "warning")
  message(FATAL_ERROR "--ts-hz 25000000: exit code ${rc}, a warning left:\n${err}")
endif()
