# SPDX-License-Identifier: MIT
# CMake toolchain file for bare-metal Arm Cortex-M with Debian's
# gcc-arm-none-eabi + libnewlib-arm-none-eabi (+ libstdc++-arm-none-eabi-dev
# for <atomic>, <new> and <algorithm>, which the recording core includes).
#
#   cmake -S examples/cortex-m -B build-fw \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake [-DMABUTRACE_CPU=cortex-m3]
#
# MABUTRACE_CPU (default cortex-m4) selects -mcpu; soft float keeps one ABI
# for every board (no FPU context to enable in the startup code).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar CACHE FILEPATH "")
set(CMAKE_RANLIB arm-none-eabi-ranlib CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_OBJDUMP arm-none-eabi-objdump CACHE FILEPATH "")

# Compiler checks link a program: with no startup files that would fail, so
# they build a static library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(MABUTRACE_CPU "cortex-m4" CACHE STRING "-mcpu of the Cortex-M target")
set(CMAKE_C_FLAGS_INIT "-mcpu=${MABUTRACE_CPU} -mthumb -mfloat-abi=soft -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT}")
set(CMAKE_ASM_FLAGS_INIT "${CMAKE_C_FLAGS_INIT}")
# newlib-nano, no host syscalls (the firmware has none to make).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-mcpu=${MABUTRACE_CPU} -mthumb -mfloat-abi=soft --specs=nano.specs --specs=nosys.specs -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
