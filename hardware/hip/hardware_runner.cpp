#include "hardware/hip/hardware_runner.h"

#include <algorithm>
#include <set>
#include <string>

#include "hardware/hip/blas_gemm.h"
#include "hardware/hip/device_error.h"
#include "hardware/hip/env_probe.h"
#include "hardware/hip/gemm_launch_probe.h"
#include "hardware/hip/launch_probe.h"
#include "hardware/hip/records.h"
#include "workloads/scenario_io.h"

namespace c3sim::bench {
namespace {

// A scenario run's records also keep the fastest and slowest trial.
template <typename Record>
Record with_range(Record r, const MeasuredTimes& t) {
  r.extra["min_us"] = t.total.min;
  r.extra["max_us"] = t.total.max;
  return r;
}

}  // namespace

HardwareRunner::HardwareRunner(DmaOptions dma) : dma_(dma) {}

wl::EnvRecord HardwareRunner::environment() {
  wl::EnvRecord env = probe_environment(bench_.devices());
  env.details["dma_collective"] = dma_.describe();
  try {
    env.details["launch"] = probe_launch_latencies(bench_.devices(), launch_reps_);
  } catch (const DeviceError& e) {
    // The scenario measurements do not depend on the probe; say why it is missing instead.
    env.details["launch"] = {{"error", e.what()}};
  }
  if (!gemm_launch_.empty())
    env.details["gemm_launch"] = probe_gemm_launch(bench_, gemm_launch_, gemm_launch_reps_);
  // How c3 records' parts were started (trial.h): in order from one host thread, nothing held
  // back. Files without this key held every stream behind one gate and released them together.
  env.details["launch_semantics"] = "ordered";
  // Where each trial's timed region starts (trial.h, start_hold.h). Files without this key
  // started it on an idle stream before the first part's host call, so that call's host work and
  // launch latency were timed (about 40 us for a cublasGemmEx on H200, issue 14).
  env.details["trial_start"] = "held";
  env.details["gemm_call"] =
      std::string(blas_library()) + (C3BENCH_GEMM_LT
                                         ? ": algorithm chosen once per shape and SM target before timing"
                                         : ": hipblasGemmEx, stream and workspace set per call");
  // How every timed trial was started (bench.h Conditioning) and whether clocks were read. Files
  // without this key ran all trials back to back in a fixed order, unconditioned.
  env.details["trial_conditioning"] = bench_.conditioning().describe();
  env.details["clock_probe"] = bench_.clocks().available() ? "nvml" : bench_.clocks().unavailable_reason();
  return env;
}

std::vector<wl::Record> HardwareRunner::run(const wl::RunRequest& request) {
  const wl::Scenario& sc = request.scenario;
  const int gpus = bench_.gpus();
  const int units = bench_.units();
  wl::check_scenario_fits(sc, gpus);
  if (sc.gpus && *sc.gpus != gpus) {
    throw InputError(sc.location, sc.name + ".gpus",
                     "c3bench runs on every visible GPU (" + std::to_string(gpus) +
                         "); select GPUs with CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES instead");
  }
  std::vector<Policy> policies;
  for (std::size_t i = 0; i < request.policies.size(); ++i) {
    const SourceLocation where = i < sc.policy_locations.size() ? sc.policy_locations[i] : sc.location;
    policies.push_back(parse_policy(request.policies[i], where, units));
  }

  bench_.prepare_gemm(sc.gemm);
  CollShape shape{sc.collective.op, static_cast<std::size_t>(sc.collective.bytes), gpus};
  bench_.prepare_collective(shape);

  // Collective configurations for the isolated baselines, each checked byte for byte first.
  // Copy engines cannot reduce: reduce-scatter and all-reduce have the CU (NCCL kernel) path only.
  const bool reduction = shape.reduces();
  for (const Policy& p : policies) {
    if (reduction && p.impl != wl::CollectiveImpl::cu) {
      throw InputError(sc.location, sc.name + ".policies",
                       "policy '" + p.name + "' needs copy engines, which cannot reduce a " +
                           wl::to_string(shape.op) + "; use the CU policies");
    }
  }
  const int default_ctas = sc.collective.max_workgroups.value_or(0);
  std::vector<CollConfig> colls{{wl::CollectiveImpl::cu, default_ctas, dma_}};
  for (int w : request.coll_workgroup_limits) colls.push_back({wl::CollectiveImpl::cu, w, dma_});
  const std::size_t dma_index = colls.size();
  const std::size_t zero_index = colls.size() + 1;
  if (!reduction) {
    colls.push_back({wl::CollectiveImpl::dma, 0, dma_});
    if (vendor_zero_cta_compiled()) colls.push_back({wl::CollectiveImpl::vendor_zero_cta, 0, dma_});
  }
  std::vector<std::uint64_t> wrong;
  for (const CollConfig& c : colls) {
    wrong.push_back(bench_.verify(c));
    if (wrong.back() != 0) {
      throw DeviceError("c3bench: " + c.describe() + " " + wl::to_string(shape.op) + " of " +
                        std::to_string(shape.bytes) + " bytes left " + std::to_string(wrong.back()) +
                        " wrong 4-byte words in the receive buffers");
    }
  }

  std::vector<Measurement> list;
  std::vector<int> gemm_units{units};
  list.push_back({{bench_.gemm_part()}});
  std::vector<int> beside_group{0};  // > 0: the GEMM ran in what a group of this size left
  for (int limit : request.gemm_cu_limits) {
    if (limit >= units) continue;
    gemm_units.push_back(bench_.partition_units(limit).first);
    beside_group.push_back(0);
    list.push_back({{bench_.gemm_part(limit)}});
  }
  // The rp policies' GEMM alone, in the partition it gets there: their isolated baseline.
  std::set<int> split_sizes;
  for (const Policy& p : policies) {
    if (p.partition_units > 0) split_sizes.insert(p.partition_units);
  }
  for (int group : split_sizes) {
    const auto [group_units, rest_units] = bench_.partition_units(group);
    gemm_units.push_back(rest_units);
    beside_group.push_back(group_units);
    list.push_back({{bench_.gemm_part_beside(group)}});
  }
  const std::size_t coll_begin = list.size();
  for (const CollConfig& c : colls) list.push_back({{bench_.coll_part(c)}});
  const std::size_t c3_begin = list.size();
  for (const Policy& p : policies) {
    Part gemm = p.partition_units > 0 ? bench_.gemm_part_beside(p.partition_units) : bench_.gemm_part();
    Part coll = p.partition_units > 0
                    ? bench_.coll_part_in(p.partition_units, p.collective_high_priority)
                    : bench_.coll_part({p.impl, default_ctas, dma_}, p.collective_high_priority);
    Measurement m;
    if (p.collective_first) {
      m.parts = {coll, gemm};
    } else {
      m.parts = {gemm, coll};
    }
    list.push_back(std::move(m));
  }

  const std::vector<MeasuredTimes> times = bench_.measure(list, request.warmups, request.trials);

  std::vector<wl::Record> out;
  for (std::size_t i = 0; i < coll_begin; ++i) {
    wl::IsoGemmRecord r = with_range(iso_gemm_record(sc.gemm, gemm_units[i], times[i]), times[i]);
    r.extra["scenario"] = sc.name;
    if (beside_group[i] > 0) {
      r.extra["partition"] = "rest";
      r.extra["group_units"] = beside_group[i];
    }
    out.emplace_back(std::move(r));
  }
  for (std::size_t i = 0; i < colls.size(); ++i) {
    wl::IsoCollRecord r = with_range(iso_coll_record(shape, colls[i], times[coll_begin + i], gpus, wrong[i]),
                                     times[coll_begin + i]);
    r.extra["scenario"] = sc.name;
    out.emplace_back(std::move(r));
  }
  const double iso_gemm = times[0].total.median;
  const double iso_cu = times[coll_begin].total.median;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const Policy& p = policies[i];
    const MeasuredTimes& t = times[c3_begin + i];
    const std::size_t gemm_at = p.collective_first ? 1 : 0;
    const std::size_t coll_at = 1 - gemm_at;
    double iso_coll = iso_cu;
    if (p.impl == wl::CollectiveImpl::dma) iso_coll = times[coll_begin + dma_index].total.median;
    if (p.impl == wl::CollectiveImpl::vendor_zero_cta) iso_coll = times[coll_begin + zero_index].total.median;
    wl::C3Record r;
    r.scenario = sc.name;
    r.policy = p.name;
    r.gemm_tag = sc.gemm.tag;
    r.m = sc.gemm.m;
    r.n = sc.gemm.n;
    r.k = sc.gemm.k;
    r.dtype = c3sim::to_string(sc.gemm.dtype);
    r.op = wl::to_string(shape.op);
    r.bytes = static_cast<std::int64_t>(shape.bytes);
    r.impl = wl::to_string(p.impl);
    r.gpus = gpus;
    r.time_us = t.total.median;
    r.gemm_time_us = t.parts[gemm_at].median;
    r.coll_time_us = t.parts[coll_at].median;
    r.iso_gemm_us = iso_gemm;
    r.iso_coll_us = iso_coll;
    const double serial = iso_gemm + iso_coll;
    r.speedup = serial / t.total.median;
    r.ideal_speedup = serial / std::max(iso_gemm, iso_coll);
    // As the paper and c3sim define it: the share of the possible gain realized.
    r.percent_of_ideal = *r.ideal_speedup > 1.0 ? 100.0 * (*r.speedup - 1.0) / (*r.ideal_speedup - 1.0) : 0.0;
    r.spread_us = t.total.spread();
    r.trials = t.trials;
    r.extra["launch_order"] = p.collective_first ? "collective,gemm" : "gemm,collective";
    r.extra["launch"] = "ordered";  // the second part launched by the host right after the first
    r.extra["collective_high_priority"] = p.collective_high_priority;
    r.extra["speedup_vs_cu_serial"] = (iso_gemm + iso_cu) / t.total.median;
    r.extra["iso_coll_cu_us"] = iso_cu;
    r.extra["gemm_spread_us"] = t.parts[gemm_at].spread();
    r.extra["coll_spread_us"] = t.parts[coll_at].spread();
    if (p.partition_units > 0) {
      const auto [group, rest] = bench_.partition_units(p.partition_units);
      r.extra["collective_units"] = group;
      r.extra["gemm_units"] = rest;
    }
    if (p.impl == wl::CollectiveImpl::dma) r.extra["dma"] = dma_.describe();
    add_clocks(r.extra, t);
    if (sc.paper_taxonomy) r.extra["paper_taxonomy"] = wl::to_string(*sc.paper_taxonomy);
    out.emplace_back(std::move(r));
  }
  return out;
}

}  // namespace c3sim::bench
