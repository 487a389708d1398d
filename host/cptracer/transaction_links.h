// SPDX-License-Identifier: MIT
// transaction_links.h: one bus transaction followed from CP_Tracer to
// CP_Tracer (seed 002 §4.3, question 4: "match XID, MID and approximate
// timestamps to follow a transaction's path across tracers").
//
// Rule: an event B or E message of tracer T at time t, transaction key
// (MID, XID), continues the sighting of the same key at another tracer
// within [t − window, t] that nothing continues yet. Exactly one such
// sighting: a link from it to this one. Two or more (several tracers saw
// the key in the window, or one tracer saw it twice: XIDs are 4 bits and
// come round): no link, counted as ambiguous — an arrow would be a guess.
// Either way this message becomes a sighting others may continue. Event C
// messages are the slave's own and are not linked.
//
// Memory: per key the sightings inside the window (at most one per
// message in it).
#ifndef MABUTRACE_HOST_CPTRACER_TRANSACTION_LINKS_H
#define MABUTRACE_HOST_CPTRACER_TRANSACTION_LINKS_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "messages.h"

namespace mabutrace::cptracer {

struct TransactionLinks {
  static constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> from;     // per message: the message it continues, or kNone
  std::vector<bool> continued;  // per message: a later message continues it
  uint64_t links = 0;           // drawn
  uint64_t ambiguous = 0;       // messages with two or more candidates
};

// `ns[i]`: the time of msgs[i] in ns (the export's clock); non-decreasing.
// window_ns 0: no links.
TransactionLinks LinkTransactions(const std::vector<TracerMessage>& msgs, const std::vector<uint64_t>& ns,
                                  uint64_t window_ns);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_TRANSACTION_LINKS_H
