# SPDX-License-Identifier: MIT
# `mabutrace arm decode` on a copy of an ETMv4 snapshot (SNAP) whose
# trace.ini maps its core to a source that is not there, so the real source
# has no core and no memory image: its ranges cannot be walked. That must
# be said (it decoded to ADDR_NACC with exit 0 and nothing on stderr).
# WORK: a scratch directory.
set(copy ${WORK}/etm4_no_core)
file(REMOVE_RECURSE ${copy})
file(COPY ${SNAP}/ DESTINATION ${copy})
file(READ ${copy}/trace.ini ini)
string(REGEX REPLACE "Cortex-A57_0=CSETM_0" "Cortex-A57_0=NOSRC" ini "${ini}")
file(WRITE ${copy}/trace.ini "${ini}")
execute_process(COMMAND ${CLI} arm decode ${copy} -o ${copy}/out.txt RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT err MATCHES "warning: source CSETM_0: no core in \\[core_trace_sources\\] of trace.ini: no memory image")
  message(FATAL_ERROR "a source without a core: no warning (exit code ${rc}), got:\n${err}")
endif()
