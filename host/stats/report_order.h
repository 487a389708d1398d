// SPDX-License-Identifier: MIT
// report_order.h: the order every report lists slice and flow keys in:
// slices by total time, flows by p99, largest first (ties keep key order).
#ifndef MABUTRACE_HOST_STATS_REPORT_ORDER_H
#define MABUTRACE_HOST_STATS_REPORT_ORDER_H

#include <algorithm>
#include <vector>

namespace mabutrace::stats {

template <class Map>
std::vector<typename Map::const_pointer> Sorted(const Map& m, bool by_p99) {
  std::vector<typename Map::const_pointer> v;
  for (const auto& e : m) v.push_back(&e);
  std::stable_sort(v.begin(), v.end(), [by_p99](auto a, auto b) {
    return by_p99 ? a->second.sketch.Quantile(9900) > b->second.sketch.Quantile(9900)
                  : a->second.sketch.sum() > b->second.sketch.sum();
  });
  return v;
}

}  // namespace mabutrace::stats

#endif  // MABUTRACE_HOST_STATS_REPORT_ORDER_H
