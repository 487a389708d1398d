// SPDX-License-Identifier: MIT
// demo.h: one run of the pipeline demo, from init to the written trace.
#ifndef PIPELINE_DEMO_H
#define PIPELINE_DEMO_H

#include "options.h"

// Returns the process exit code (kExitOk or kExitRuntimeError).
int RunDemo(const Options& opt);

#endif  // PIPELINE_DEMO_H
