// SPDX-License-Identifier: MIT
// C++ translation unit with tracing removed: see disabled_body.h.
#include "disabled_body.h"
