# SPDX-License-Identifier: MIT
# `mabutrace arm export` of a copy of a snapshot whose trace is timed by
# timestamps (SNAP, a57_single_step) with DS-5's "[timestamp]
# frequency=25000000" added to trace.ini. The timeline takes its frequency
# from CNTFRQ_EL0 first, so there the snapshot's other frequency is named
# in a warning (trace.ini, the key and the value); without CNTFRQ_EL0 the
# timeline takes [timestamp] frequency and names it in ete.time_unit, and
# a different --ts-hz is refused by name. WORK: a scratch directory.
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
execute_process(COMMAND ${CLI} arm export ${copy} -o ${copy}/out.json RESULT_VARIABLE rc ERROR_VARIABLE err)
file(READ ${copy}/out.json json)
if(NOT rc EQUAL 0 OR err MATCHES "warning" OR NOT json MATCHES "trace.ini \\[timestamp\\] frequency")
  message(FATAL_ERROR "no CNTFRQ_EL0: exit code ${rc}, stderr:\n${err}\nete.time_unit does not name "
                      "[timestamp] frequency, or a warning was left")
endif()
export_expect("--ts-hz other than [timestamp] frequency"
              "--ts-hz ignored: the snapshot gives the timestamp frequency [^\n]*trace.ini \\[timestamp\\] frequency = 25000000 Hz"
              --ts-hz 1000)
