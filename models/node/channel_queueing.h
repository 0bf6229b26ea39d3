#pragma once
// How fast N channels of a library collective move bytes together over one link.
//
// Mechanism (stated assumption; exact mean value analysis of a closed queueing network): each
// channel (one CTA/workgroup) cycles through its own work on a chunk (reading the source, writing
// the peer's FIFO, waiting for the flag: the delay station, per byte Z) and the chunk's turn on the
// shared link (the queue, per byte D = 1 / link payload rate), with one chunk in flight. Alone, a
// channel runs at r1 = 1 / (Z + D); together they approach the link's rate 1 / D, but not as
// min(N r1, 1 / D): near the knee the chunks queue at the link while other channels think. On
// 2 x H200 the NCCL CTA sweep (hardware/measurements/h200x2_ordered_sweep_ctas4.jsonl, 2 GiB)
// shows exactly that: at 16 CTAs all-gather moves 222 GB/s where min() gives 243 and this 219,
// reduce-scatter 230 (284, 248), all-to-all 208 (234, 220); at 8 and 32 CTAs both agree within 5%.
// No parameter is added: Z and D come from the per-channel rate and the link rate the model has.
#include <algorithm>

namespace c3sim::models {

// Total rate of `channels` channels, each alone at `lone_rate`, sharing a server of `link_rate`
// (same units). Exact MVA: R(n) = D (1 + Q(n-1)), X(n) = n / (Z + R(n)), Q(n) = X(n) R(n).
[[nodiscard]] inline double closed_network_rate(int channels, double lone_rate, double link_rate) {
  if (channels <= 0 || lone_rate <= 0 || link_rate <= 0) return 0.0;
  if (lone_rate >= link_rate) return link_rate;  // one channel already fills the link
  const double d = 1.0 / link_rate;
  const double z = 1.0 / lone_rate - d;
  double queue = 0.0;
  double rate = 0.0;
  for (int n = 1; n <= channels; ++n) {
    const double residence = d * (1.0 + queue);
    rate = n / (z + residence);
    queue = rate * residence;
  }
  return std::min(rate, link_rate);
}

}  // namespace c3sim::models
