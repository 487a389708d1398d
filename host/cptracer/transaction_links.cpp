// SPDX-License-Identifier: MIT
#include "transaction_links.h"

#include <deque>
#include <unordered_map>

namespace mabutrace::cptracer {

TransactionLinks LinkTransactions(const std::vector<TracerMessage>& msgs, const std::vector<uint64_t>& ns,
                                  uint64_t window_ns) {
  TransactionLinks r;
  r.from.assign(msgs.size(), TransactionLinks::kNone);
  r.continued.assign(msgs.size(), false);
  if (window_ns == 0) return r;
  std::unordered_map<uint32_t, std::deque<size_t>> seen;  // (MID << 4 | XID) → sightings, oldest first
  for (size_t i = 0; i < msgs.size(); ++i) {
    const TracerMessage& m = msgs[i];
    if (m.type != MsgType::kEventB && m.type != MsgType::kEventE) continue;
    std::deque<size_t>& q = seen[(m.mid << 4) | (m.xid & 0xF)];
    while (!q.empty() && ns[q.front()] + window_ns < ns[i]) q.pop_front();
    size_t candidate = TransactionLinks::kNone, count = 0;
    for (const size_t j : q) {
      if (r.continued[j]) continue;
      ++count;
      candidate = j;
    }
    const bool other_tracer = candidate != TransactionLinks::kNone && msgs[candidate].tracer != m.tracer;
    if (count == 1 && other_tracer) {
      r.from[i] = candidate;
      r.continued[candidate] = true;
      ++r.links;
    } else if (count > 1) {
      ++r.ambiguous;
    }
    q.push_back(i);
  }
  return r;
}

}  // namespace mabutrace::cptracer
