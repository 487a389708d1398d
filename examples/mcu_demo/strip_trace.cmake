# SPDX-License-Identifier: MIT
# strip_trace.cmake: writes OUT = IN without the lines that mention tracing
# (TRACE_, TRC(, mabutrace, MABUTRACE), i.e. the firmware as it would be
# written without any trace call. cmake -DIN=main.c -DOUT=x.c -P strip_trace.cmake
# (Whole-file regex rather than file(STRINGS): C's ';' would split lines.)
file(READ "${IN}" text)
string(REGEX REPLACE "[^\n]*(TRACE_|TRC\\(|mabutrace|MABUTRACE)[^\n]*\n" "" text "${text}")
file(WRITE "${OUT}" "${text}")
