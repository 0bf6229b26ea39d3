#include "models/node/node_resources.h"

#include <algorithm>

#include <fmt/format.h>

namespace c3sim::models {

NodeResources::NodeResources(engine::Simulation& sim, const hw::NodeSpec& spec, bool private_memory,
                             int nodes)
    : sim_(&sim), peers_(spec.interconnect.gpus - 1) {
  const double share = spec.model.memory.collective_channel_share;
  mem_.push_back(build_memory(sim, spec, private_memory ? "[gemm]" : "", share > 0 ? 1 - share : 1));
  if (private_memory) {
    mem_.push_back(build_memory(sim, spec, "[comm]", share > 0 ? share : 1));
  } else if (share > 0) {
    // Same L2s and fabric; the collective's own channels behind them.
    MemoryResources comm = mem_[0];
    if (comm.llc >= 0) comm.llc = sim.add_resource("llc[comm channels]", share * spec.model.memory.llc_bw);
    comm.hbm = sim.add_resource("hbm[comm channels]", share * spec.model.memory.hbm_bw);
    mem_.push_back(comm);
  }
  if (spec.interconnect.topology == hw::Topology::fully_connected) {
    for (int p = 0; p < peers_; ++p) {
      links_.push_back(sim.add_resource(fmt::format("link_out{}", p), spec.model.collective.link_bw,
                                        engine::ResourceKind::link, fmt::format("out{}", p)));
    }
  } else {
    links_.push_back(sim.add_resource("switch_port_out", spec.model.collective.link_bw,
                                      engine::ResourceKind::link, "switch port"));
  }
  for (int e = 0; e < spec.dma.engines; ++e) {
    engines_.push_back(sim.add_resource(fmt::format("dma{}", e), spec.model.dma.engine_bw,
                                        engine::ResourceKind::dma_engine, fmt::format("sdma{}", e)));
  }
  if (spec.model.power.limit > 0) {
    // Shared by every kernel class (it is not a memory resource), also in the attribution's
    // private-memory counterfactual.
    const hw::PowerModel& p = spec.model.power;
    power_ = sim.add_resource("power", p.limit - p.static_power, engine::ResourceKind::other, "board");
    energy_per_flop_ = p.energy_per_flop;
    energy_per_hbm_byte_ = p.energy_per_hbm_byte;
    // A measured kernel's workgroup holds one CU of the GPU's.
    measured_watts_per_cu_ = p.measured_kernel_power / spec.compute.total_cus();
  }
  if (nodes > 1 && spec.cluster.present()) {
    const hw::ClusterSpec& c = spec.cluster;
    const double per_gpu = 1.0 / c.gpus_per_nic;
    nic_ = sim.add_resource("nic_out", c.nic_bw * per_gpu, engine::ResourceKind::link, "nic");
    nic_pcie_ = sim.add_resource("nic_pcie", c.pcie_bw * per_gpu, engine::ResourceKind::other, "pcie");
    if (c.network == hw::Network::fat_tree)
      spine_ = sim.add_resource("spine", c.nic_bw * per_gpu / c.oversubscription, engine::ResourceKind::link,
                                "spine");
  }
  if (spec.dma.iods > 1) {
    for (int i = 0; i < spec.dma.iods; ++i) {
      iod_out_.push_back(sim.add_resource(fmt::format("iod{}_out", i), spec.dma.iod_crossing_bw,
                                          engine::ResourceKind::other, fmt::format("iod{}", i)));
    }
  }
}

MemoryResources NodeResources::build_memory(engine::Simulation& sim, const hw::NodeSpec& spec,
                                            const std::string& suffix, double channel_share) {
  MemoryResources m;
  for (int x = 0; x < spec.compute.xcds; ++x) {
    const std::string where = fmt::format("xcd{}{}", x, suffix);
    m.l2.push_back(
        sim.add_resource("l2_" + where, spec.model.memory.l2_bw_per_xcd, engine::ResourceKind::l2, where));
    m.fabric.push_back(sim.add_resource("fabric_" + where, spec.model.memory.xcd_fabric_bw,
                                        engine::ResourceKind::xcd_fabric, where));
  }
  if (spec.memory.llc_bytes > 0)
    m.llc = sim.add_resource("llc" + suffix, channel_share * spec.model.memory.llc_bw,
                             engine::ResourceKind::llc, suffix);
  m.hbm = sim.add_resource("hbm" + suffix, channel_share * spec.model.memory.hbm_bw,
                           engine::ResourceKind::hbm, suffix);
  return m;
}

void NodeResources::add_power_demand(std::vector<engine::Demand>& demands, double flops_per_unit) const {
  if (power_ < 0) return;
  double hbm_bytes_per_unit = 0;
  for (const engine::Demand& d : demands) {
    const bool hbm =
        std::any_of(mem_.begin(), mem_.end(), [&](const MemoryResources& m) { return m.hbm == d.resource; });
    if (hbm) hbm_bytes_per_unit += d.per_unit;
  }
  const double joules = energy_per_flop_ * flops_per_unit + energy_per_hbm_byte_ * hbm_bytes_per_unit;
  if (joules > 0) demands.push_back({power_, joules});
}

void NodeResources::add_measured_draw(std::vector<engine::Demand>& demands, double seconds) const {
  const double joules = measured_watts_per_cu_ * seconds;
  if (power_ >= 0 && joules > 0) demands.push_back({power_, joules});
}

engine::ResourceId NodeResources::link_to_peer(int p) const {
  return links_.size() == 1 ? links_[0] : links_[static_cast<size_t>(p)];
}

}  // namespace c3sim::models
