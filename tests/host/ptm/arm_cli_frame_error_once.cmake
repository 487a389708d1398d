# SPDX-License-Identifier: MIT
# `mabutrace arm export` of a copy of TC2 (SNAP: ETMv3, PTM and ITM sources
# behind one CoreSight formatter) cut inside a frame: the ETMv3 and the PTM
# decoders each de-format the buffer and both find the cut frame. It is one
# error of the buffer, so "ete.decode_errors" counts it once, beside the
# one ETMv3 packet the cut truncates: 2 (it was 3).
# WORK: a scratch directory; PYTHON: cuts the file and reads the metadata.
set(copy ${WORK}/tc2_cut)
file(REMOVE_RECURSE ${copy})
file(COPY ${SNAP}/ DESTINATION ${copy})
execute_process(COMMAND ${PYTHON} -c "import os; os.truncate('${copy}/cstrace.bin', 20001)")
execute_process(COMMAND ${CLI} arm export ${copy} -o ${copy}/out.json RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "cut buffer: exit code ${rc}, expected 1\n${err}")
endif()
execute_process(COMMAND ${PYTHON} -c
                "import json; m = json.load(open('${copy}/out.json'))['metadata']; print(m.get('ete.decode_errors'))"
                OUTPUT_VARIABLE errors OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT errors STREQUAL "2")
  message(FATAL_ERROR "cut buffer: ete.decode_errors ${errors}, expected 2 (the frame once, the packet)\n${err}")
endif()
