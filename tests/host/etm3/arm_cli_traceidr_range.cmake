# SPDX-License-Identifier: MIT
# `mabutrace arm packets` on a copy of TC2 (SNAP) whose ETMv3 (device_5,
# ID 0x10) or PTM (device_8, ID 0x13) source has ETMTRACEIDR 0x90: exit 1
# and the error names the .ini, [regs] ETMTRACEIDR and the value. Before,
# 0x90 was masked to the trace ID 0x10 and the source decoded as that one.
# WORK: a scratch directory.
foreach(case "device_5.ini|0x00000010" "device_8.ini|0x00000013")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 ini)
  list(GET parts 1 id)
  set(copy ${WORK}/traceidr_range)
  file(REMOVE_RECURSE ${copy})
  file(COPY ${SNAP}/ DESTINATION ${copy})
  file(READ ${copy}/${ini} text)
  string(REPLACE "ETMTRACEIDR(0x080)=${id}" "ETMTRACEIDR(0x080)=0x00000090" text "${text}")
  file(WRITE ${copy}/${ini} "${text}")
  execute_process(COMMAND ${CLI} arm packets ${copy} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "${ini} ETMTRACEIDR 0x90: exit code ${rc}, expected 1\n${err}")
  endif()
  if(NOT err MATCHES "${ini}: \\[regs\\] ETMTRACEIDR: 0x90 sets bits outside 0x7f")
    message(FATAL_ERROR "${ini} ETMTRACEIDR 0x90: the error does not name file, register and value:\n${err}")
  endif()
endforeach()
