# SPDX-License-Identifier: MIT
# riscv_firmware.cmake: cross-builds examples/riscv (ExternalProject,
# cmake/riscv32-unknown-elf.cmake) once per build tree, for RV32IMAC (every
# target: the demo with both clocks, the size and DISABLE builds, the
# benchmark) and RV32IMC (the ESP32-C3's ISA: the demo only), when
# Debian's gcc-riscv64-unknown-elf and picolibc are installed. Included by
# tests/port/qemu and tests/port/size.
#
# Sets:
#   MABUTRACE_RISCV_SKIP          "" when the firmware builds, else why not
#   MABUTRACE_QEMU_RV_SKIP        "" when qemu-system-riscv32 is there too
#   MABUTRACE_FW_RV32IMAC_DIR / _RV32IMC_DIR  where the .elf/.map files land
#   MABUTRACE_RV_SIZE, MABUTRACE_RV_NM, MABUTRACE_QEMU_RV32  the tools
include(ExternalProject)

set(_deb "Debian: apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc")
find_program(MABUTRACE_RV_GCC riscv64-unknown-elf-gcc)
find_program(MABUTRACE_RV_GXX riscv64-unknown-elf-g++)
find_program(MABUTRACE_RV_SIZE riscv64-unknown-elf-size)
find_program(MABUTRACE_RV_NM riscv64-unknown-elf-nm)
find_program(MABUTRACE_QEMU_RV32 qemu-system-riscv32)

set(MABUTRACE_RISCV_SKIP "")
if(MABUTRACE_SANITIZE)
  # Cross-built code has no sanitizer to run under: the release build
  # builds and tests it (and .ci/run saves the cross builds per tree).
  set(MABUTRACE_RISCV_SKIP "cross-built firmware: tested in the build without MABUTRACE_SANITIZE")
elseif(NOT MABUTRACE_RV_GCC OR NOT MABUTRACE_RV_GXX OR NOT MABUTRACE_RV_SIZE OR NOT MABUTRACE_RV_NM)
  set(MABUTRACE_RISCV_SKIP "riscv64-unknown-elf-gcc/g++/size/nm not found (${_deb})")
else()
  # picolibc's rv32 multilib: its headers come with picolibc.specs.
  set(_probe ${CMAKE_BINARY_DIR}/riscv_c_probe.c)
  file(WRITE ${_probe} "#include <string.h>\n")
  execute_process(COMMAND ${MABUTRACE_RV_GCC} -march=rv32imac_zicsr -mabi=ilp32 --specs=picolibc.specs
                          -fsyntax-only ${_probe}
                  RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT _rc EQUAL 0)
    set(MABUTRACE_RISCV_SKIP "riscv64-unknown-elf-gcc has no picolibc (${_deb})")
  endif()
endif()
set(MABUTRACE_QEMU_RV_SKIP "${MABUTRACE_RISCV_SKIP}")
if(NOT MABUTRACE_QEMU_RV_SKIP AND NOT MABUTRACE_QEMU_RV32)
  set(MABUTRACE_QEMU_RV_SKIP "qemu-system-riscv32 not found (${_deb})")
endif()

set(MABUTRACE_FW_RV32IMAC_DIR ${CMAKE_BINARY_DIR}/riscv-fw/rv32imac)
set(MABUTRACE_FW_RV32IMC_DIR ${CMAKE_BINARY_DIR}/riscv-fw/rv32imc)
get_property(_defined GLOBAL PROPERTY MABUTRACE_RISCV_FIRMWARE_DEFINED)
if(NOT _defined)
  # Once per build tree (the status message too).
  set_property(GLOBAL PROPERTY MABUTRACE_RISCV_FIRMWARE_DEFINED TRUE)
  if(MABUTRACE_RISCV_SKIP)
    message(STATUS "mabutrace: RISC-V firmware and its tests skipped: ${MABUTRACE_RISCV_SKIP}")
  else()
    foreach(arch rv32imac rv32imc)
      if(arch STREQUAL "rv32imc")
        set(_build ${CMAKE_COMMAND} --build <BINARY_DIR> --target fw_trace)
      else()
        set(_build ${CMAKE_COMMAND} --build <BINARY_DIR>)
      endif()
      # BUILD_ALWAYS: the inner build tracks its sources (src/runtime, the port).
      ExternalProject_Add(mabutrace_riscv_${arch}_firmware
        SOURCE_DIR ${PROJECT_SOURCE_DIR}/examples/riscv
        BINARY_DIR ${CMAKE_BINARY_DIR}/riscv-fw/${arch}
        CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/riscv32-unknown-elf.cmake
                   -DMABUTRACE_RISCV_ARCH=${arch}
        BUILD_COMMAND ${_build}
        BUILD_ALWAYS ON
        INSTALL_COMMAND ""
        BUILD_BYPRODUCTS ${CMAKE_BINARY_DIR}/riscv-fw/${arch}/fw_trace.elf)
    endforeach()
    if(NOT MABUTRACE_QEMU_RV_SKIP)
      message(STATUS "mabutrace: RISC-V firmware cross-built; QEMU tests enabled (${MABUTRACE_QEMU_RV32})")
    else()
      message(STATUS "mabutrace: RISC-V QEMU tests skipped: ${MABUTRACE_QEMU_RV_SKIP}")
    endif()
  endif()
endif()
