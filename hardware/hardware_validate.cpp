#include "hardware/hardware_validate.h"

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "hardware/hardware_fields.h"

namespace c3sim::hw {

namespace {

[[noreturn]] void fail(const HardwareSourceMap& sources, const std::string& key, const std::string& problem) {
  throw InputError(sources.at(key), key, problem);
}

void check_cu_budget(const NodeSpec& spec, const HardwareSourceMap& sources) {
  // 64-bit product: both factors are capped at kMaxCount, their product is not.
  const std::int64_t total = std::int64_t{spec.compute.xcds} * spec.compute.cus_per_xcd;
  if (total > kMaxCount) {
    fail(sources, "spec.compute.cus_per_xcd",
         fmt::format("xcds x cus_per_xcd = {} CUs is more than {}", total, kMaxCount));
  }
  // Hopper has 132 SMs and allocates green-context partitions in groups of 8, so the granularity
  // need not divide the CU count: masks are multiples of it and the remainder is unallocatable.
  if (spec.compute.cu_mask_granularity > total) {
    fail(sources, "spec.compute.cu_mask_granularity",
         fmt::format("{} is larger than the {} CUs of the GPU", spec.compute.cu_mask_granularity, total));
  }
  // A collective's workgroups must all be resident at once (they wait on each other).
  const struct {
    const char* key;
    int value;
  } workgroups[] = {
      {"model.collective.default_workgroups_all_gather", spec.model.collective.default_workgroups_all_gather},
      {"model.collective.default_workgroups_all_to_all", spec.model.collective.default_workgroups_all_to_all},
      {"model.collective.default_workgroups_reduce", spec.model.collective.default_workgroups_reduce},
  };
  for (const auto& w : workgroups) {
    if (w.value > total)
      fail(sources, w.key, fmt::format("{} is more than the {} CUs of the GPU", w.value, total));
  }
}

// A memory-side LLC is optional (Hopper has none), but size and bandwidths must agree on whether
// it exists.
void check_llc(const NodeSpec& spec, const HardwareSourceMap& sources) {
  const bool has_llc = spec.memory.llc_bytes > 0;
  const auto check = [&](const char* key, double bw) {
    if (has_llc && !(bw > 0)) fail(sources, key, "must be greater than 0 when spec.memory.llc is not 0");
    if (!has_llc && bw != 0) fail(sources, key, "must be 0 when spec.memory.llc is 0 (no LLC)");
  };
  check("spec.memory.llc_bandwidth", spec.memory.llc_bw);
  check("model.memory.llc_bandwidth", spec.model.memory.llc_bw);
}

// A channel partition must leave channels to both sides.
void check_channel_share(const NodeSpec& spec, const HardwareSourceMap& sources) {
  const double share = spec.model.memory.collective_channel_share;
  if (share >= 1) {
    fail(sources, "model.memory.collective_channel_share",
         fmt::format("must be below 1 (got {}): the GEMM needs some HBM channels", share));
  }
}

// Engines placed over IODs need the fabric's rate for the bytes that cross between them, and
// cannot sit on more IODs than there are engines.
void check_iods(const NodeSpec& spec, const HardwareSourceMap& sources) {
  if (spec.dma.iods > spec.dma.engines) {
    fail(sources, "spec.dma.iods",
         fmt::format("{} IODs is more than the {} engines placed on them", spec.dma.iods, spec.dma.engines));
  }
  if (spec.dma.iods > 1 && !(spec.dma.iod_crossing_bw > 0)) {
    fail(sources, "spec.dma.iod_crossing_bandwidth", "must be greater than 0 when spec.dma.iods is above 1");
  }
}

// A power limit needs room above the static draw and a cost for the work it caps.
void check_power(const NodeSpec& spec, const HardwareSourceMap& sources) {
  const PowerModel& p = spec.model.power;
  if (p.limit == 0) return;
  if (!(p.static_power < p.limit)) {
    fail(sources, "model.power.static",
         fmt::format("must be below model.power.limit ({} W, got {} W): no power would be left for work",
                     p.limit, p.static_power));
  }
  if (!(p.energy_per_flop > 0)) {
    fail(sources, "model.power.energy_per_flop", "must be greater than 0 when model.power.limit is set");
  }
  if (p.rate_exponent != 1 && p.window == 0) {
    // The exponent acts where the limit follows the work in flight (models/node/power_window.h).
    fail(sources, "model.power.rate_exponent",
         "needs model.power.window: the instantaneous limit has no exponent");
  }
}

// The cluster section comes as a set: nics_per_node says there is one; without it no other cluster
// key may be set (it would be ignored). With it, each GPU needs a NIC, and the NIC and its PCIe
// path a rate.
void check_cluster(const NodeSpec& spec, const HardwareSourceMap& sources) {
  const ClusterSpec& c = spec.cluster;
  if (!c.present()) {
    const ClusterSpec none;
    const bool other = c.nodes != 0 || c.nic_bw != 0 || c.pcie_bw != 0 || c.nic_latency != 0 ||
                       c.gpus_per_nic != none.gpus_per_nic || c.nic_message_rate != 0 ||
                       c.network != none.network || c.oversubscription != none.oversubscription ||
                       c.nodes_per_leaf != 0 || c.switch_latency != 0;
    if (other)
      fail(sources, "cluster.nics_per_node", "required key is missing (the cluster section sets other keys)");
    return;
  }
  if (c.nic_bw == 0)
    fail(sources, "cluster.nic_bandwidth", "required key is missing (cluster.nics_per_node is set)");
  if (c.pcie_bw == 0)
    fail(sources, "cluster.pcie_bandwidth", "required key is missing (cluster.nics_per_node is set)");
  if (std::int64_t{c.nics_per_node} * c.gpus_per_nic < spec.interconnect.gpus) {
    fail(sources, "cluster.gpus_per_nic",
         fmt::format("{} NICs x {} GPUs per NIC serve fewer than the node's {} GPUs", c.nics_per_node,
                     c.gpus_per_nic, spec.interconnect.gpus));
  }
  if (c.network != Network::fat_tree && (c.oversubscription != 1 || c.nodes_per_leaf != 0)) {
    fail(sources, c.nodes_per_leaf != 0 ? "cluster.nodes_per_leaf" : "cluster.oversubscription",
         "applies only to cluster.network: fat_tree");
  }
}

// The gather fields come as a set: a latency without a bandwidth (or the other way round) would
// give a gather half a model.
void check_gather(const NodeSpec& spec, const HardwareSourceMap& sources) {
  const MemoryModel& m = spec.model.memory;
  if (m.gather_latency == 0 && (m.gather_bw != 0 || m.gather_startup_latency != 0))
    fail(sources, "model.memory.gather_latency", "required key is missing (other gather keys are set)");
  if (m.gather_latency != 0 && m.gather_bw == 0)
    fail(sources, "model.memory.gather_bandwidth",
         "required key is missing (model.memory.gather_latency is set)");
}

}  // namespace

void validate(const NodeSpec& spec, const HardwareSourceMap& sources) {
  check_cluster(spec, sources);
  check_gather(spec, sources);
  for (const FieldDef& f : hardware_fields()) check_field(f, spec, sources.at(std::string(f.key)));
  check_cu_budget(spec, sources);
  check_llc(spec, sources);
  check_channel_share(spec, sources);
  check_iods(spec, sources);
  check_power(spec, sources);
}

void validate(const NodeSpec& spec) { validate(spec, HardwareSourceMap(spec.source_file)); }

}  // namespace c3sim::hw
