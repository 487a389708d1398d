// SPDX-License-Identifier: MIT
// mabutrace-pipeline-demo: see docs/pipeline-demo.md.
#include <stdio.h>

#include "demo.h"
#include "options.h"

int main(int argc, char** argv) {
  // Line-buffered even into a pipe: scripts and tests wait for the
  // "listening on" line while the demo runs.
  setvbuf(stdout, nullptr, _IOLBF, 0);
  Options opt;
  const int rc = ParseOptions(argc, argv, &opt);
  if (rc >= 0) return rc;
  return RunDemo(opt);
}
