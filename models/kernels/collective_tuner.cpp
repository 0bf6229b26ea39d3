#include "models/kernels/collective_tuner.h"

#include <algorithm>

#include "models/kernels/collective_plan.h"

namespace c3sim::models {

ProtocolParams protocol_params(wl::CollectiveProtocol p, wl::CollectiveOp op, const hw::CollectiveModel& cm) {
  ProtocolParams simple{cm.step_latency, simple_protocol_efficiency(op, cm), cm.workgroup_copy_bw, true};
  const auto own = [&](double step, double efficiency, double channel_bw) {
    return ProtocolParams{step > 0 || efficiency > 0 ? step : cm.step_latency,
                          efficiency > 0 ? efficiency : wl::protocol_payload_share(p),
                          channel_bw > 0 ? channel_bw : cm.workgroup_copy_bw, efficiency > 0};
  };
  switch (p) {
    case wl::CollectiveProtocol::simple: return simple;
    case wl::CollectiveProtocol::ll:
      return own(cm.ll_step_latency, cm.ll_protocol_efficiency, cm.ll_channel_bw);
    case wl::CollectiveProtocol::ll128:
      return own(cm.ll128_step_latency, cm.ll128_protocol_efficiency, cm.ll128_channel_bw);
  }
  return simple;
}

wl::CollectiveAlgorithm default_algorithm(wl::CollectiveOp op, bool switched) {
  const wl::CollectiveOpTraits& t = wl::op_traits(op);
  return !t.point_to_point && (t.reduces || switched) ? wl::CollectiveAlgorithm::ring
                                                      : wl::CollectiveAlgorithm::direct;
}

AlgorithmShape algorithm_shape(wl::CollectiveAlgorithm algorithm, wl::CollectiveOp op, double bytes,
                               int gpus) {
  const wl::CollectiveOpTraits& t = wl::op_traits(op);
  switch (algorithm) {
    case wl::CollectiveAlgorithm::ring: return {wl::sent_bytes(op, bytes, gpus), t.link_passes * (gpus - 1)};
    case wl::CollectiveAlgorithm::direct: return {wl::sent_bytes(op, bytes, gpus), t.link_passes};
    case wl::CollectiveAlgorithm::tree: return {(gpus > 2 ? 2.0 : 1.0) * bytes, 2 * (gpus - 1)};
  }
  return {wl::sent_bytes(op, bytes, gpus), 1};
}

double tuner_estimate(const AlgorithmShape& shape, wl::CollectiveAlgorithm algorithm,
                      const ProtocolParams& params, double links, int channels, double channel_rate) {
  double rate = links * params.link_efficiency;
  if (channel_rate > 0) rate = std::min(rate, channels * channel_rate);
  if (algorithm == wl::CollectiveAlgorithm::tree) rate *= kTreeBandwidthShare;
  return shape.steps * params.step_latency + shape.bytes_sent / rate;
}

double channel_send_rate(double copy_passes, double local_bytes_per_byte_sent, double channel_bw,
                         const hw::CollectiveModel& cm) {
  double seconds_per_byte = copy_passes / channel_bw;
  if (cm.workgroup_local_copy_bw > 0)
    seconds_per_byte += local_bytes_per_byte_sent / cm.workgroup_local_copy_bw;
  return 1.0 / seconds_per_byte;
}

TunerChoice choose_algorithm_and_protocol(const wl::Collective& coll, int gpus, bool switched, double links,
                                          int channels, double copy_passes, double local_bytes_per_byte_sent,
                                          const hw::CollectiveModel& cm) {
  TunerChoice best;
  bool found = false;
  const wl::CollectiveAlgorithm usual = default_algorithm(coll.op, switched);
  // The channels bound the estimate only where the file measures a protocol's own channel rate:
  // without one every protocol's channel runs at the simple rate, and the estimate is the links'.
  const bool channel_bound = cm.ll_channel_bw > 0 || cm.ll128_channel_bw > 0;
  for (const wl::CollectiveAlgorithm a :
       {wl::CollectiveAlgorithm::ring, wl::CollectiveAlgorithm::tree, wl::CollectiveAlgorithm::direct}) {
    // Unnamed: the library's usual algorithm, or a tree where the op can run as one.
    if (coll.algorithm ? a != *coll.algorithm : a != usual && a != wl::CollectiveAlgorithm::tree) continue;
    if (!wl::algorithm_runs(a, coll.op)) continue;
    const AlgorithmShape shape = algorithm_shape(a, coll.op, static_cast<double>(coll.bytes), gpus);
    for (const wl::CollectiveProtocol p : wl::kAllProtocols) {
      const ProtocolParams params = protocol_params(p, coll.op, cm);
      if (coll.protocol ? p != *coll.protocol : !params.measured) continue;
      const double rate =
          channel_bound ? channel_send_rate(copy_passes, local_bytes_per_byte_sent, params.channel_bw, cm)
                        : 0.0;
      const double t = tuner_estimate(shape, a, params, links, channels, rate);
      if (!found || t < best.estimate) best = {a, p, t};
      found = true;
    }
  }
  return best;
}

}  // namespace c3sim::models
