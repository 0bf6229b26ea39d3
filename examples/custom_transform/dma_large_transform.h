#pragma once
// An example user policy written as a program transformation: offload to the copy engines only the
// collectives of at least <MiB> MiB (small ones stay on the CUs, where host submission and sync do
// not dominate). The whole policy is this file; registering it is one line:
//     registry.add(example::dma_large_entry());
// after which "dma_large:256", "dma_large_best" and compositions like "dma_large:256+sp" work
// everywhere the registry is read (program runs, sweeps, help and error text).
#include <fmt/format.h>

#include "models/policies/transform_registry.h"

namespace example {

inline c3sim::models::TransformEntry dma_large_entry() {
  c3sim::models::TransformEntry e;
  e.name = "dma_large";
  e.help = "collectives of at least <mib> MiB on copy engines, smaller ones on CUs";
  e.argument = "mib";
  e.check = [](int mib, const c3sim::hw::NodeSpec&, const c3sim::SourceLocation& where,
               const std::string& full) {
    if (mib <= 0)
      throw c3sim::InputError(where, "policies", fmt::format("policy '{}': MiB must be positive", full));
  };
  e.apply = [](const c3sim::wl::Program& program, std::optional<int> mib, const c3sim::hw::NodeSpec&) {
    c3sim::wl::Program p = program;
    for (auto& k : p.kernels) {
      if (k.kind == c3sim::wl::KernelKind::collective && !c3sim::wl::op_traits(k.collective.op).reduces &&
          k.collective.bytes >= (std::int64_t{*mib} << 20)) {
        k.collective.impl = c3sim::wl::CollectiveImpl::dma;
      }
    }
    return p;
  };
  e.sweep = [](const c3sim::hw::NodeSpec&) {
    return std::vector<std::string>{"dma_large:64", "dma_large:256", "dma_large:1024"};
  };
  return e;
}

}  // namespace example
