// SPDX-License-Identifier: MIT
// response_count.cpp: http::CountCutResponse() (src/http/http_service.h),
// the built-in servers' count of responses cut short, kept in the runtime
// so that its exports show it (trace_walker.cpp, http_responses_cut).
// Its own file: a firmware without a server never links it.
#include "../http/http_service.h"
#include "ring_buffer.h"

namespace mabutrace {
namespace http {

void CountCutResponse() {
  // The servers stop before deinit frees the runtime (SetDeinitHook), so
  // the one a response was served from is still there.
  if (Runtime* rt = CurrentRuntime()) rt->responses_cut.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace http
}  // namespace mabutrace
