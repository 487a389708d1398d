# SPDX-License-Identifier: MIT
# mcu_demo.cmake: what the bare-metal demo firmwares (examples/cortex-m,
# examples/riscv) share in their builds. Included by each board's
# CMakeLists.txt after MABUTRACE_ROOT is set.
#
# MCU_DEMO_DIR: the folder of mcu_demo.h (the main loop every board runs),
#   for the firmware's include path.
# mcu_demo_stripped(OUT_VAR MAIN_C): the firmware as it would be written
#   without any trace call: MAIN_C and mcu_demo.h with every line that
#   mentions tracing deleted (strip_trace.cmake), written side by side into
#   the binary folder, so the stripped main.c's #include "mcu_demo.h" finds
#   the stripped header first. OUT_VAR: the stripped main.c, to build.
#   tests/port/size checks that the MABUTRACE_DISABLE build is exactly as big.
set(MCU_DEMO_DIR ${CMAKE_CURRENT_LIST_DIR})

function(mcu_demo_stripped out_var main_c)
  set(strip ${MCU_DEMO_DIR}/strip_trace.cmake)
  set(out_c ${CMAKE_CURRENT_BINARY_DIR}/main_stripped.c)
  set(out_h ${CMAKE_CURRENT_BINARY_DIR}/mcu_demo.h)
  add_custom_command(OUTPUT ${out_c} ${out_h}
    COMMAND ${CMAKE_COMMAND} -DIN=${main_c} -DOUT=${out_c} -P ${strip}
    COMMAND ${CMAKE_COMMAND} -DIN=${MCU_DEMO_DIR}/mcu_demo.h -DOUT=${out_h} -P ${strip}
    DEPENDS ${main_c} ${MCU_DEMO_DIR}/mcu_demo.h ${strip})
  set(${out_var} ${out_c} PARENT_SCOPE)
endfunction()
