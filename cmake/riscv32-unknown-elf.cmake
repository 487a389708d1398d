# SPDX-License-Identifier: MIT
# CMake toolchain file for bare-metal RV32 with Debian's
# gcc-riscv64-unknown-elf + picolibc-riscv64-unknown-elf (rv32 multilibs).
#
#   cmake -S examples/riscv -B build-rv \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/riscv32-unknown-elf.cmake [-DMABUTRACE_RISCV_ARCH=rv32imc]
#
# MABUTRACE_RISCV_ARCH (default rv32imac; rv32imc is the ESP32-C3's ISA)
# selects -march, compiled with _zicsr (binutils 2.40 wants it for the CSR
# instructions) and linked without (GCC 12's multilib match knows no
# _zicsr: it would pick the rv64 default). ABI ilp32 (no FPU). picolibc has
# rv32imac and rv32im multilibs, no rv32imc: that build links the rv32im
# one (the firmware takes only memcpy, memset and strncpy from it).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_AR riscv64-unknown-elf-ar CACHE FILEPATH "")
set(CMAKE_RANLIB riscv64-unknown-elf-ranlib CACHE FILEPATH "")
set(CMAKE_SIZE riscv64-unknown-elf-size CACHE FILEPATH "")
set(CMAKE_OBJDUMP riscv64-unknown-elf-objdump CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(MABUTRACE_RISCV_ARCH "rv32imac" CACHE STRING "-march of the RISC-V target (without _zicsr)")
set(CMAKE_C_FLAGS_INIT "-march=${MABUTRACE_RISCV_ARCH}_zicsr -mabi=ilp32 -mcmodel=medany -ffunction-sections -fdata-sections --specs=picolibc.specs")
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT}")
set(CMAKE_ASM_FLAGS_INIT "${CMAKE_C_FLAGS_INIT}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-march=${MABUTRACE_RISCV_ARCH} -mabi=ilp32 -nostartfiles -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
