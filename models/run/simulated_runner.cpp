#include "models/run/simulated_runner.h"

#include "models/kernels/collective_plan.h"
#include "models/policies/policy.h"
#include "models/policies/transform_registry.h"

namespace c3sim::models {

SimulatedRunner::SimulatedRunner(hw::NodeSpec spec, SimOptions options) : sim_(std::move(spec), options) {}

wl::EnvRecord SimulatedRunner::environment() {
  const hw::NodeSpec& spec = sim_.spec();
  wl::EnvRecord e;
  e.producer = "c3sim";
  e.hardware = spec.name;
  e.gpus = spec.interconnect.gpus;
  e.cus_per_gpu = spec.compute.total_cus();
  e.details = {{"description", spec.description},
               {"hardware_file", spec.source_file},
               {"xcds", spec.compute.xcds},
               {"topology", hw::to_string(spec.interconnect.topology)},
               {"dma_engines", spec.dma.engines}};
  return e;
}

wl::C3Record to_record(const wl::Scenario& s, const C3Result& r, int gpus) {
  wl::C3Record c;
  c.scenario = s.name;
  c.policy = r.policy;
  c.gemm_tag = s.gemm.tag;
  c.m = s.gemm.m;
  c.n = s.gemm.n;
  c.k = s.gemm.k;
  c.dtype = hw::to_string(s.gemm.dtype);
  c.op = wl::to_string(s.collective.op);
  c.bytes = s.collective.bytes;
  c.impl = wl::to_string(r.impl);
  c.gpus = gpus;
  c.time_us = r.total_us;
  c.gemm_time_us = r.gemm_us;
  c.coll_time_us = r.coll_us;
  c.iso_gemm_us = r.iso_gemm_us;
  c.iso_coll_us = r.iso_coll_us;
  c.speedup = r.speedup();
  c.ideal_speedup = r.ideal_speedup();
  c.percent_of_ideal = r.percent_of_ideal();
  if (r.gemm_attribution) c.attribution["gemm"] = to_json(*r.gemm_attribution);
  if (r.coll_attribution) c.attribution["collective"] = to_json(*r.coll_attribution);
  if (!r.chosen.empty()) c.extra["chosen"] = r.chosen;
  return c;
}

std::vector<wl::Record> SimulatedRunner::run(const wl::RunRequest& req) {
  const hw::NodeSpec& spec = sim_.spec();
  const wl::Scenario& s = req.scenario;
  const int gpus = sim_.gpus_of(s);
  std::vector<wl::Record> out;

  auto gemm_record = [&](std::optional<int> cus) {
    const IsoGemmResult g = sim_.iso_gemm(s.gemm, cus);
    wl::IsoGemmRecord r;
    r.tag = s.gemm.tag;
    r.m = s.gemm.m;
    r.n = s.gemm.n;
    r.k = s.gemm.k;
    r.dtype = hw::to_string(s.gemm.dtype);
    r.cus = g.cus;
    r.time_us = g.time_us;
    r.extra = {{"workgroups", g.workgroups},
               {"l2_hit", g.l2_hit},
               {"llc_hit", g.llc_hit},
               {"llc_bytes", g.llc_bytes},
               {"hbm_bytes", g.hbm_bytes}};
    // Where the shape's speed alone came from: the hardware file's library data, when it lists it.
    if (const hw::GemmLibraryEntry* e =
            sim_.spec().gemm_library.find(s.gemm.m, s.gemm.n, s.gemm.k, s.gemm.dtype)) {
      r.extra["gemm_library_efficiency"] = e->efficiency;
    }
    return r;
  };
  auto coll_record = [&](wl::CollectiveImpl impl, std::optional<int> wgs) {
    wl::Collective c = s.collective;
    c.impl = impl;
    const IsoCollResult res = sim_.iso_coll(c, gpus, wgs);
    wl::IsoCollRecord r;
    r.op = wl::to_string(c.op);
    r.bytes = c.bytes;
    r.impl = wl::to_string(impl);
    r.gpus = gpus;
    if (impl == wl::CollectiveImpl::cu)
      r.workgroups = res.workgroups;
    else
      r.engines = res.engines;
    r.time_us = res.time_us;
    r.extra = {{"bytes_sent", res.bytes_sent}, {"llc_bytes", res.llc_bytes}};
    return r;
  };

  out.emplace_back(gemm_record(std::nullopt));
  for (int cus : req.gemm_cu_limits) out.emplace_back(gemm_record(cus));
  out.emplace_back(coll_record(wl::CollectiveImpl::cu, std::nullopt));
  for (int w : req.coll_workgroup_limits) out.emplace_back(coll_record(wl::CollectiveImpl::cu, w));
  std::vector<std::string> policies =
      req.policies.empty() ? standard_policy_names(s.collective.op, spec) : req.policies;
  std::vector<PolicyName> parsed;
  for (const auto& p : policies) {
    parsed.push_back(builtin_registry().parse(p, s.location));
    check_policy_runs(parsed.back(), s, spec, s.location);
  }
  // The copy-engine collective's isolated record, beside the policies that put it on the engines.
  const bool any_dma = std::any_of(parsed.begin(), parsed.end(), [](const PolicyName& p) {
    return find_pair_policy(p.steps.front().head)->impl == wl::CollectiveImpl::dma;
  });
  if (any_dma) out.emplace_back(coll_record(wl::CollectiveImpl::dma, std::nullopt));
  for (const auto& p : parsed) out.emplace_back(to_record(s, sim_.run_named(s, p), gpus));
  return out;
}

}  // namespace c3sim::models
