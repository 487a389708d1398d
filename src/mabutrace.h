// SPDX-License-Identifier: MIT
/* mabutrace.h: the public header under the name Arduino sketches use,
 * `#include <mabutrace.h>`.
 *
 * Why this file: the Arduino IDE (1.5 library format) puts only the
 * library's src/ on the include path, and finds a library by the headers
 * directly in src/. The header itself stays include/mabutrace/mabutrace.h
 * (CMake and ESP-IDF builds use it there); this only forwards to it, by a
 * path relative to this file, so it works whatever the include path is.
 * docs/ports.md §5. */
#include "../include/mabutrace/mabutrace.h"
