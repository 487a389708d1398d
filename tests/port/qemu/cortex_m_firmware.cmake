# SPDX-License-Identifier: MIT
# cortex_m_firmware.cmake: cross-builds examples/cortex-m (ExternalProject,
# cmake/arm-none-eabi.cmake) once per build tree, for the Cortex-M4 and the
# Cortex-M3, when the cross toolchain is installed. Included by
# tests/port/qemu and tests/port/size.
#
# Sets:
#   MABUTRACE_CORTEX_M_SKIP     "" when the firmware builds, else why not
#   MABUTRACE_QEMU_SKIP         "" when qemu-system-arm is there too, else why not
#   MABUTRACE_FW_M4_DIR / _M3_DIR  where the .elf/.map files land
#   MABUTRACE_ARM_SIZE, MABUTRACE_ARM_NM, MABUTRACE_QEMU_ARM  the tools
# (tests/CMakeLists.txt defines mabutrace_skipped_test for the skips).
# Safe to include from several directories: the variables are set in each
# including scope, the ExternalProjects are defined once.
include(ExternalProject)

set(_deb "Debian: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-dev qemu-system-arm")
find_program(MABUTRACE_ARM_GCC arm-none-eabi-gcc)
find_program(MABUTRACE_ARM_GXX arm-none-eabi-g++)
find_program(MABUTRACE_ARM_SIZE arm-none-eabi-size)
find_program(MABUTRACE_ARM_NM arm-none-eabi-nm)
find_program(MABUTRACE_QEMU_ARM qemu-system-arm)

set(MABUTRACE_CORTEX_M_SKIP "")
if(NOT MABUTRACE_ARM_GCC OR NOT MABUTRACE_ARM_GXX OR NOT MABUTRACE_ARM_SIZE OR NOT MABUTRACE_ARM_NM)
  set(MABUTRACE_CORTEX_M_SKIP "arm-none-eabi-gcc/g++/size/nm not found (${_deb})")
else()
  # The core includes <atomic>, <new> and <algorithm>: Debian ships them for
  # arm-none-eabi in libstdc++-arm-none-eabi-dev, not with the compiler.
  set(_probe ${CMAKE_BINARY_DIR}/cortex_m_cxx_probe.cpp)
  file(WRITE ${_probe} "#include <atomic>\n#include <new>\n#include <algorithm>\n")
  execute_process(COMMAND ${MABUTRACE_ARM_GXX} -mcpu=cortex-m4 -mthumb -std=c++17 -fsyntax-only ${_probe}
                  RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT _rc EQUAL 0)
    set(MABUTRACE_CORTEX_M_SKIP "arm-none-eabi-g++ has no C++ headers (<atomic>): install libstdc++-arm-none-eabi-dev")
  endif()
endif()
set(MABUTRACE_QEMU_SKIP "${MABUTRACE_CORTEX_M_SKIP}")
if(NOT MABUTRACE_QEMU_SKIP AND NOT MABUTRACE_QEMU_ARM)
  set(MABUTRACE_QEMU_SKIP "qemu-system-arm not found (${_deb})")
endif()

set(MABUTRACE_FW_M4_DIR ${CMAKE_BINARY_DIR}/cortex-m-fw/m4)
set(MABUTRACE_FW_M3_DIR ${CMAKE_BINARY_DIR}/cortex-m-fw/m3)
get_property(_defined GLOBAL PROPERTY MABUTRACE_CORTEX_M_FIRMWARE_DEFINED)
if(_defined)
  # Already defined by an earlier include.
elseif(MABUTRACE_CORTEX_M_SKIP)
  message(STATUS "mabutrace: Cortex-M firmware and its tests skipped: ${MABUTRACE_CORTEX_M_SKIP}")
else()
  set_property(GLOBAL PROPERTY MABUTRACE_CORTEX_M_FIRMWARE_DEFINED TRUE)
  foreach(cpu m4 m3)
    # BUILD_ALWAYS: the inner build tracks its sources (src/runtime, the port).
    ExternalProject_Add(mabutrace_cortex_${cpu}_firmware
      SOURCE_DIR ${PROJECT_SOURCE_DIR}/examples/cortex-m
      BINARY_DIR ${CMAKE_BINARY_DIR}/cortex-m-fw/${cpu}
      CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/arm-none-eabi.cmake
                 -DMABUTRACE_CPU=cortex-${cpu}
      BUILD_ALWAYS ON
      INSTALL_COMMAND ""
      BUILD_BYPRODUCTS ${CMAKE_BINARY_DIR}/cortex-m-fw/${cpu}/fw_trace.elf)
  endforeach()
  if(NOT MABUTRACE_QEMU_SKIP)
    message(STATUS "mabutrace: Cortex-M firmware cross-built; QEMU tests enabled (${MABUTRACE_QEMU_ARM})")
  else()
    message(STATUS "mabutrace: Cortex-M QEMU tests skipped: ${MABUTRACE_QEMU_SKIP}")
  endif()
endif()

