# SPDX-License-Identifier: MIT
# `mabutrace arm decode` on copies of a PTM snapshot (SNAP, raw buffer
# PTM_0_2.bin) whose buffer file is damaged:
#   - missing: exit code 1, the error line names the file once
#     ("FILE: cannot open: ..."), not "FILE: FILE: cannot open";
#   - all 0x00 (no A-sync: 00 x5 then 80, ever): exit code 1, "FILE: byte 0:
#     no sync found in 4096 bytes", and the zero runs skipped before any sync
#     are not reported one by one as packet errors.
# WORK: a scratch directory; PYTHON: writes the zero bytes.
set(copy ${WORK}/ptm_damaged)
file(REMOVE_RECURSE ${copy})
file(COPY ${SNAP}/ DESTINATION ${copy})
set(bin ${copy}/PTM_0_2.bin)

file(REMOVE ${bin})
execute_process(COMMAND ${CLI} arm decode ${copy} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "missing buffer file: exit code ${rc}, expected 1\n${err}")
endif()
string(REGEX MATCHALL "PTM_0_2\\.bin" named "${err}")
list(LENGTH named n)
if(NOT err MATCHES "PTM_0_2\\.bin: cannot open" OR NOT n EQUAL 1)
  message(FATAL_ERROR "missing buffer file: expected the file named once (FILE: cannot open), got:\n${err}")
endif()

execute_process(COMMAND ${PYTHON} -c "open('${bin}', 'wb').write(bytes(4096))" RESULT_VARIABLE rc)
execute_process(COMMAND ${CLI} arm decode ${copy} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "buffer without a sync: exit code ${rc}, expected 1\n${err}")
endif()
if(NOT err MATCHES "PTM_0_2\\.bin: byte 0: no sync found in 4096 bytes")
  message(FATAL_ERROR "buffer without a sync: no 'no sync found' error, got:\n${err}")
endif()
string(REGEX MATCHALL "\n" lines "${err}")
list(LENGTH lines n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "buffer without a sync: expected one error line, got ${n}:\n${err}")
endif()
