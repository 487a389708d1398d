// SPDX-License-Identifier: MIT
/* C11 translation unit with tracing removed: see disabled_body.h. */
#include "disabled_body.h"
