// SPDX-License-Identifier: MIT
#include "flow_join.h"

#include <algorithm>

namespace mabutrace::merge {

void FlowJoin::AddSender(size_t index, const ClockLine& total,
                         const std::unordered_map<uint16_t, std::vector<InputScan::FlowOut>>& outs) {
  for (const auto& [link, list] : outs) {
    std::vector<Start>& starts = starts_[link];
    for (const InputScan::FlowOut& o : list) starts.push_back({total.Apply(o.ns), MergedFlowId(index, o.id), false});
    std::stable_sort(starts.begin(), starts.end(), [](const Start& a, const Start& b) { return a.ns < b.ns; });
  }
}

uint64_t FlowJoin::Take(uint16_t link, uint64_t ns) {
  const auto it = starts_.find(link);
  if (it == starts_.end()) return 0;
  std::vector<Start>& starts = it->second;
  auto after = std::upper_bound(starts.begin(), starts.end(), ns, [](uint64_t t, const Start& s) { return t < s.ns; });
  while (after != starts.begin()) {
    --after;
    if (after->taken) continue;
    after->taken = true;
    return after->id;
  }
  return 0;
}

}  // namespace mabutrace::merge
