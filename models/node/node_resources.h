#pragma once
// The shared resources of one GPU as fluid-solver resources, built from a NodeSpec.
//
// c3sim simulates one representative GPU: the paper's scenarios run the same GEMM and the same
// collective on every GPU, so by symmetry every GPU sees the same contention. What a peer writes
// into this GPU's memory is accounted as this GPU's own incoming traffic (it equals what this GPU
// sends), and each outgoing link direction is a resource.
//
// With `private_memory` each kernel class gets its own copy of every memory resource: the
// counterfactual used to attribute slowdown to bandwidth sharing (see c3_simulator.h).
//
// With model.memory.collective_channel_share s > 0 the HBM channels (and the LLC slices in front
// of them) are partitioned: the collective's buffers live in a share s of them, so its LLC and HBM
// traffic crosses resources of s x the bandwidth and the GEMM's the remaining (1 - s); the XCD L2s
// and fabric stay shared.
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "sim/engine/identity.h"
#include "sim/engine/simulation.h"

namespace c3sim::models {

enum class KernelClass { gemm = 0, comm = 1 };

// Which private memory copy a kernel kind uses in the attribution counterfactual: GEMMs one,
// everything else (collectives, their copies and sync kernels) the other.
[[nodiscard]] inline KernelClass memory_class(engine::KernelKind kind) {
  return kind == engine::KernelKind::gemm ? KernelClass::gemm : KernelClass::comm;
}

struct MemoryResources {
  std::vector<engine::ResourceId> l2;      // per XCD: CU <- L2 reads
  std::vector<engine::ResourceId> fabric;  // per XCD: L2 misses and writes to LLC/HBM
  engine::ResourceId llc = -1;             // -1 when the node has no memory-side LLC
  engine::ResourceId hbm = -1;
};

class NodeResources {
public:
  // `nodes` > 1: the program spans nodes, so the GPU also gets its NIC, the NIC's PCIe path and (fat
  // tree) its share of the spine (models/kernels/network_plan.h); 1 builds exactly the node alone.
  NodeResources(engine::Simulation& sim, const hw::NodeSpec& spec, bool private_memory, int nodes = 1);

  // The simulation's clock, for models whose cost depends on when a cohort starts (a collective's
  // start is paid once, from its first dispatch).
  [[nodiscard]] TimePs now() const { return sim_->now(); }

  [[nodiscard]] const MemoryResources& memory(KernelClass k) const {
    return mem_.size() > 1 ? mem_[static_cast<size_t>(k)] : mem_[0];
  }
  // Outgoing link directions: one per peer (fully connected) or one switch port (switched).
  [[nodiscard]] const std::vector<engine::ResourceId>& links() const { return links_; }
  [[nodiscard]] const std::vector<engine::ResourceId>& dma_engines() const { return engines_; }
  [[nodiscard]] int peers() const { return peers_; }
  // Placement over I/O dies (spec.dma.iods > 1; otherwise everything is on one IOD): the IOD of
  // engine e and of the link to peer p, and the resource for bytes leaving an IOD for another.
  [[nodiscard]] int iods() const { return static_cast<int>(iod_out_.size()); }
  [[nodiscard]] int engine_iod(int e) const { return iod_out_.empty() ? 0 : e % iods(); }
  [[nodiscard]] int link_iod(int p) const { return iod_out_.empty() ? 0 : p % iods(); }
  [[nodiscard]] engine::ResourceId iod_crossing(int iod) const { return iod_out_[static_cast<size_t>(iod)]; }
  // The outgoing link that carries traffic to peer p (0-based among the peers).
  [[nodiscard]] engine::ResourceId link_to_peer(int p) const;
  // Scale-out, per representative GPU (-1 without nodes > 1): its NIC's send direction
  // (nic_bandwidth / gpus_per_nic: the GPUs of one NIC send alike), the GPU-NIC PCIe path
  // (pcie_bandwidth / gpus_per_nic, the NIC's own x16 link being the shared stage) and, on a fat
  // tree, the spine's 1 / oversubscription of the NIC's rate.
  [[nodiscard]] engine::ResourceId nic() const { return nic_; }
  [[nodiscard]] engine::ResourceId nic_pcie() const { return nic_pcie_; }
  [[nodiscard]] engine::ResourceId spine() const { return spine_; }
  // Adds a flow's draw on the board power limit (spec.model.power: a resource of (limit - static)
  // W), if the node has one: J per unit of its work for the matrix FLOPs one unit does and for the
  // HBM bytes `demands` already charges it (its demands on any of the HBM resources), so every
  // requester's HBM traffic draws power without restating its bytes.
  void add_power_demand(std::vector<engine::Demand>& demands, double flops_per_unit = 0) const;
  // Adds, for one workgroup of a kernel known only by its duration (one unit: its `seconds` on a
  // CU), that CU's share of model.power.measured_kernel_power over the run, if the node has a
  // power limit: its FLOPs and bytes are unknown, so its draw is the class figure.
  void add_measured_draw(std::vector<engine::Demand>& demands, double seconds) const;
  // The board power resource (-1 without model.power).
  [[nodiscard]] engine::ResourceId power() const { return power_; }

  // The last memory level a kernel's requests queue at: the LLC, or HBM without one.
  [[nodiscard]] engine::ResourceId queueing_level(KernelClass k) const {
    return memory(k).llc >= 0 ? memory(k).llc : memory(k).hbm;
  }

private:
  // `channel_share`: the share of the LLC/HBM channels these resources stand for.
  MemoryResources build_memory(engine::Simulation& sim, const hw::NodeSpec& spec, const std::string& suffix,
                               double channel_share);

  const engine::Simulation* sim_;
  std::vector<MemoryResources> mem_;
  std::vector<engine::ResourceId> links_;
  std::vector<engine::ResourceId> engines_;
  std::vector<engine::ResourceId> iod_out_;  // per IOD, when spec.dma.iods > 1
  engine::ResourceId power_ = -1;
  engine::ResourceId nic_ = -1;
  engine::ResourceId nic_pcie_ = -1;
  engine::ResourceId spine_ = -1;
  double energy_per_flop_ = 0;
  double energy_per_hbm_byte_ = 0;
  double measured_watts_per_cu_ = 0;
  int peers_ = 0;
};

}  // namespace c3sim::models
