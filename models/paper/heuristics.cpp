#include "models/paper/heuristics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/kernels/collective_plan.h"
#include "models/kernels/gemm_kernel.h"
#include "models/policies/policy.h"
#include "workloads/paper_catalog.h"

namespace c3sim::models {

namespace {
constexpr double kRooflineEfficiency = 0.70;  // paper V-C: average of observed peak efficiencies

// Linear interpolation in a CU -> slowdown table (1.0 at 0 CUs for GEMM tables).
double lookup(const std::map<int, double>& table, int cus) {
  if (table.empty()) return 1.0;
  auto hi = table.lower_bound(cus);
  if (hi == table.end()) return std::prev(hi)->second;
  if (hi->first == cus || hi == table.begin()) return hi->second;
  auto lo = std::prev(hi);
  const double t = static_cast<double>(cus - lo->first) / static_cast<double>(hi->first - lo->first);
  return lo->second + t * (hi->second - lo->second);
}
}  // namespace

const char* to_string(GemmClass c) {
  return c == GemmClass::compute_bound ? "compute-bound" : "memory-bound";
}

Heuristics::Heuristics(C3Simulator& sim) : sim_(sim) {
  const hw::NodeSpec& spec = sim_.spec();
  const int total = spec.compute.total_cus();
  tables_.cus = rp_sweep_cus(spec);
  const wl::Gemm cb = *wl::find_paper_gemm("cb1");
  const wl::Gemm mb = *wl::find_paper_gemm("mb1");
  const double cb_full = sim_.iso_gemm(cb).time_us;
  const double mb_full = sim_.iso_gemm(mb).time_us;
  tables_.cb_gemm[0] = 1.0;
  tables_.mb_gemm[0] = 1.0;
  for (int c : tables_.cus) {
    tables_.cb_gemm[c] = sim_.iso_gemm(cb, total - c).time_us / cb_full;
    tables_.mb_gemm[c] = sim_.iso_gemm(mb, total - c).time_us / mb_full;
  }
  tables_.latency_bytes = std::int64_t{1} << 20;
  tables_.bandwidth_bytes = std::int64_t{1} << 30;
  const int gpus = spec.interconnect.gpus;
  for (auto op : {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all}) {
    for (auto [bytes, table] : {std::pair{tables_.latency_bytes, &tables_.coll_latency[op]},
                                std::pair{tables_.bandwidth_bytes, &tables_.coll_bandwidth[op]}}) {
      const wl::Collective coll{op, bytes, wl::CollectiveImpl::cu, {}};
      const double def = sim_.iso_coll(coll, gpus).time_us;
      for (int c : tables_.cus) (*table)[c] = sim_.iso_coll(coll, gpus, c).time_us / def;
    }
  }
}

GemmClass Heuristics::classify(const wl::Gemm& gemm) {
  const hw::NodeSpec& spec = sim_.spec();
  const IsoGemmResult r = sim_.iso_gemm(gemm);
  const double op_to_byte = gemm.flops() / std::max(r.hbm_bytes, gemm.min_bytes());
  const double machine = spec.compute.peak_flops.at(gemm.dtype) / spec.memory.hbm_bw;
  return op_to_byte > machine ? GemmClass::compute_bound : GemmClass::memory_bound;
}

std::string Heuristics::schedule_order(const wl::Scenario& s) const {
  const hw::NodeSpec& spec = sim_.spec();
  const auto gemm_wgs = plan_gemm(s.gemm, spec, spec.compute.total_cus()).workgroups;
  const auto comm_wgs = plan_collective(s.collective, spec, sim_.gpus_of(s), std::nullopt).workgroups;
  return comm_wgs <= gemm_wgs ? "sp" : "base";
}

double Heuristics::roofline_gemm_us(const wl::Gemm& g) const {
  const hw::NodeSpec& spec = sim_.spec();
  const double compute = g.flops() / (spec.compute.peak_flops.at(g.dtype) * kRooflineEfficiency);
  const double memory = g.min_bytes() / (spec.memory.hbm_bw * kRooflineEfficiency);
  return std::max(compute, memory) * 1e6;
}

double Heuristics::roofline_coll_us(const wl::Collective& c, int gpus) const {
  const hw::NodeSpec& spec = sim_.spec();
  const CollectivePlan p = plan_collective(c, spec, gpus, std::nullopt);
  return p.bytes_sent / (p.aggregate_link_rate(spec.interconnect.link_bw) * kRooflineEfficiency) * 1e6;
}

int Heuristics::partition_cus(const wl::Scenario& s) {
  const GemmClass cls = classify(s.gemm);
  const auto& gemm_table = cls == GemmClass::compute_bound ? tables_.cb_gemm : tables_.mb_gemm;
  const bool latency_bound = s.collective.bytes <= tables_.latency_bytes * 32;
  const auto& coll_table =
      (latency_bound ? tables_.coll_latency : tables_.coll_bandwidth)
          .at(s.collective.op == wl::CollectiveOp::all_to_all ? wl::CollectiveOp::all_to_all
                                                              : wl::CollectiveOp::all_gather);
  const double g = roofline_gemm_us(s.gemm);
  const double c = roofline_coll_us(s.collective, sim_.gpus_of(s));
  int best = tables_.cus.front();
  double best_t = std::numeric_limits<double>::infinity();
  for (int cus : tables_.cus) {
    const double t = std::max(g * lookup(gemm_table, cus), c * lookup(coll_table, cus));
    if (t < best_t - 1e-9) {
      best_t = t;
      best = cus;
    }
  }
  return best;
}

int Heuristics::dma_partition_cus(const wl::Scenario& s) {
  if (classify(s.gemm) != GemmClass::memory_bound) return 0;
  int best = 0;
  double best_slow = 1.0;
  for (const auto& [cus, slow] : tables_.mb_gemm) {
    if (cus > 0 && slow < best_slow - 1e-9) {
      best_slow = slow;
      best = cus;
    }
  }
  return best;
}

}  // namespace c3sim::models
