// SPDX-License-Identifier: MIT
/* mabutrace/mabutrace.h under src/: `#include <mabutrace/mabutrace.h>` (and
 * the runtime's own "mabutrace/mabutrace.h") in an Arduino build, which has
 * only src/ on the include path. Forwards to include/mabutrace/mabutrace.h
 * by a relative path (not "mabutrace/mabutrace.h": that would find this
 * file again). docs/ports.md §5. */
#include "../../include/mabutrace/mabutrace.h"
