#pragma once
// One copy on a copy engine (a program's dma_copy kernel): the host submits it
// (model.dma.submit_latency), the engine moves the bytes at most at its achieved bandwidth over
// its link (to a peer) and local memory (a read here plus, by symmetry, a peer's write, or a local
// read and write), and the host sees completion model.dma.completion_latency later.
#include <functional>
#include <string>

#include "hardware/node_spec.h"
#include "models/node/node_resources.h"
#include "sim/engine/simulation.h"
#include "workloads/program.h"

namespace c3sim::models {

class DmaCopy {
public:
  DmaCopy(engine::Simulation& sim, const NodeResources& res, const hw::NodeSpec& spec, wl::DmaCopy copy,
          std::string label, engine::FlowOwner owner);
  // Submits now; `done` runs when the host has seen completion.
  void start(std::function<void(TimePs)> done);

private:
  engine::Simulation& sim_;
  const NodeResources& res_;
  const hw::NodeSpec& spec_;
  wl::DmaCopy copy_;
  std::string label_;
  engine::FlowOwner owner_;
  std::function<void(TimePs)> done_;
};

}  // namespace c3sim::models
