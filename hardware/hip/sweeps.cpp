#include "hardware/hip/sweeps.h"

#include <algorithm>
#include <chrono>

#include "hardware/hip/check.h"
#include "hardware/hip/copy_sweep.h"
#include "hardware/hip/device_buffer.h"
#include "hardware/hip/records.h"

namespace c3sim::bench {
namespace {

const std::vector<std::string>& sweep_names() {
  static const std::vector<std::string> names{"gemm_sms", "gemm_sms_rest", "coll_ctas",   "coll_partition",
                                              "dma_size", "dma_engines",   "dma_latency", "copy_engine",
                                              "launch",   "gemm_launch",   "fused_a2a"};
  return names;
}

bool wants(const SweepRequest& r, const std::string& name) {
  return std::find(r.what.begin(), r.what.end(), name) != r.what.end();
}

const wl::CollectiveOp kCopyOps[] = {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all};

bool reduces(wl::CollectiveOp op) { return wl::op_traits(op).reduces; }

wl::IsoCollRecord coll(const CollShape& s, const CollConfig& c, const MeasuredTimes& t, int gpus,
                       std::uint64_t wrong, const std::string& sweep) {
  wl::IsoCollRecord r = iso_coll_record(s, c, t, gpus, wrong);
  r.extra["sweep"] = sweep;
  return r;
}

void check_bytes(Bench& bench, const CollConfig& c, std::uint64_t& wrong) {
  wrong = bench.verify(c);
  if (wrong != 0) {
    throw DeviceError("c3bench sweep: " + c.describe() + " left " + std::to_string(wrong) +
                      " wrong words at " + std::to_string(bench.collective().bytes) + " bytes");
  }
}

wl::IsoGemmRecord gemm(const wl::Gemm& g, int units, const MeasuredTimes& t, const std::string& sweep) {
  wl::IsoGemmRecord r = iso_gemm_record(g, units, t);
  r.extra["sweep"] = sweep;
  return r;
}

void sweep_gemm_sms(HardwareRunner& runner, const SweepRequest& q, std::vector<wl::Record>& out) {
  Bench& b = runner.bench();
  for (const wl::Gemm& g : q.gemms) {
    b.prepare_gemm(g);
    std::vector<Measurement> list;
    std::vector<int> units;
    for (int limit : q.sm_limits) {
      if (limit >= b.units()) {
        list.push_back({{b.gemm_part()}});
        units.push_back(b.units());
      } else {
        list.push_back({{b.gemm_part(limit)}});
        units.push_back(b.partition_units(limit).first);
      }
    }
    const auto times = b.measure(list, q.warmups, q.trials);
    for (std::size_t i = 0; i < list.size(); ++i) out.emplace_back(gemm(g, units[i], times[i], "gemm_sms"));
  }
}

// The GEMM in the partition left beside a group of each size (what rp:<n> gives the GEMM), with
// the BLAS told the partition's size and, for comparison, not told.
void sweep_gemm_sms_rest(HardwareRunner& runner, const SweepRequest& q, std::vector<wl::Record>& out) {
  Bench& b = runner.bench();
  for (const wl::Gemm& g : q.gemms) {
    b.prepare_gemm(g);
    std::vector<Measurement> list;
    std::vector<std::pair<int, bool>> what;  // (group size, sm target set)
    for (int limit : q.sm_limits) {
      if (limit >= b.units()) continue;
      for (bool target : {true, false}) {
        list.push_back({{b.gemm_part_beside(limit, target)}});
        what.emplace_back(limit, target);
      }
    }
    const auto times = b.measure(list, q.warmups, q.trials);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto [group, rest] = b.partition_units(what[i].first);
      wl::IsoGemmRecord r =
          gemm(g, rest, times[i], what[i].second ? "gemm_sms_rest" : "gemm_sms_rest_no_target");
      r.extra["partition"] = "rest";
      r.extra["group_units"] = group;
      r.extra["sm_target"] = what[i].second ? rest : 0;
      out.emplace_back(std::move(r));
    }
  }
}

void sweep_colls(HardwareRunner& runner, const std::vector<CollConfig>& configs, wl::CollectiveOp op,
                 std::int64_t bytes, const SweepRequest& q, const std::string& name,
                 std::vector<wl::Record>& out) {
  Bench& b = runner.bench();
  b.prepare_collective({op, static_cast<std::size_t>(bytes), b.gpus()});
  std::vector<std::uint64_t> wrong(configs.size());
  std::vector<Measurement> list;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    check_bytes(b, configs[i], wrong[i]);
    list.push_back({{b.coll_part(configs[i])}});
  }
  const auto times = b.measure(list, q.warmups, q.trials);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    out.emplace_back(coll(b.collective(), configs[i], times[i], b.gpus(), wrong[i], name));
  }
}

// The vendor collective alone inside each GPU's partition group (what rp:<n> gives it: a green
// context or CU mask of the group's units, the library capped at as many CTAs), each paired with
// the same call unpartitioned under the same cap, measured in the same trial rounds. calibrate fits
// each op's model.collective.<op>_partition_rate from the pair's ratio (extra.partition: group).
void sweep_coll_partition(HardwareRunner& runner, wl::CollectiveOp op, std::int64_t bytes,
                          const SweepRequest& q, std::vector<wl::Record>& out) {
  Bench& b = runner.bench();
  b.prepare_collective({op, static_cast<std::size_t>(bytes), b.gpus()});
  std::vector<int> groups;
  for (int limit : q.sm_limits) {
    if (limit < b.units()) groups.push_back(limit);
  }
  std::vector<CollConfig> configs;
  std::vector<std::uint64_t> wrong(groups.size());
  std::vector<Measurement> list;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const int cap = b.partition_units(groups[i]).first;  // the group's units, rounded as created
    configs.push_back({wl::CollectiveImpl::cu, cap, runner.dma_options()});
    check_bytes(b, configs.back(), wrong[i]);
    list.push_back({{b.coll_part(configs.back())}});
    list.push_back({{b.coll_part_in(groups[i])}});
  }
  const auto times = b.measure(list, q.warmups, q.trials);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    out.emplace_back(coll(b.collective(), configs[i], times[2 * i], b.gpus(), wrong[i], "coll_partition"));
    // The same communicator (its CTA cap) on the group's stream: the bytes checked above.
    wl::IsoCollRecord r =
        coll(b.collective(), configs[i], times[2 * i + 1], b.gpus(), wrong[i], "coll_partition");
    r.extra["partition"] = "group";
    r.extra["group_units"] = configs[i].max_ctas;
    r.extra["config"] = configs[i].describe() + ",partition=" + std::to_string(configs[i].max_ctas);
    out.emplace_back(std::move(r));
  }
}

void sweep_dma_latency(HardwareRunner& runner, const SweepRequest& q, std::vector<wl::Record>& out) {
  Bench& b = runner.bench();
  DeviceSet& d = b.devices();
  constexpr std::size_t kBytes = 4096;
  const int peer = b.gpus() > 1 ? 1 : 0;
  const DeviceBuffer src(0, kBytes);
  const DeviceBuffer dst(peer, kBytes);
  C3_HIP(hipSetDevice(0));
  hipStream_t s = d.stream(0, "dma0");
  hipEvent_t done = d.event(0, 1);
  std::vector<double> submit;
  std::vector<double> complete;
  const int reps = std::max(1, q.trials) * 20;
  for (int i = 0; i < q.warmups + reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    C3_HIP(hipMemcpyAsync(dst.get(), src.get(), kBytes, hipMemcpyDefault, s));
    const auto t1 = std::chrono::steady_clock::now();
    C3_HIP(hipEventRecord(done, s));
    C3_HIP(hipEventSynchronize(done));
    const auto t2 = std::chrono::steady_clock::now();
    if (i < q.warmups) continue;
    submit.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    complete.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count());
  }
  const Summary sub = summarize(submit);
  const Summary all = summarize(complete);
  // Carried as an iso_coll record (the schema's unit of collective timing): one engine, the
  // smallest all-gather step, with the host-side split in extra.
  wl::IsoCollRecord r;
  r.op = wl::to_string(wl::CollectiveOp::all_gather);
  r.bytes = static_cast<std::int64_t>(kBytes) * b.gpus();
  r.impl = wl::to_string(wl::CollectiveImpl::dma);
  r.gpus = b.gpus();
  r.engines = 1;
  r.time_us = all.median;
  r.spread_us = all.spread();
  r.trials = reps;
  r.extra["sweep"] = "dma_latency";
  r.extra["what"] = "one hipMemcpyAsync of 4096 bytes GPU0 -> GPU" + std::to_string(peer) +
                    "; time_us = submit to host-observed completion (event sync)";
  r.extra["submit_us"] = sub.median;
  r.extra["submit_spread_us"] = sub.spread();
  r.extra["complete_us"] = all.median;
  out.emplace_back(std::move(r));
}

}  // namespace

void validate_sweep(const SweepRequest& request) {
  for (const std::string& w : request.what) {
    if (std::find(sweep_names().begin(), sweep_names().end(), w) == sweep_names().end()) {
      throw InputError({}, "--what",
                       "unknown sweep '" + w +
                           "' (known: gemm_sms, gemm_sms_rest, coll_ctas, coll_partition, dma_size, "
                           "dma_engines, dma_latency, copy_engine, launch, gemm_launch, fused_a2a, all)");
    }
  }
}

std::vector<wl::Record> run_sweeps(HardwareRunner& runner, const SweepRequest& q) {
  std::vector<wl::Record> out;
  const DmaOptions dma = runner.dma_options();
  if (wants(q, "gemm_sms")) sweep_gemm_sms(runner, q, out);
  if (wants(q, "gemm_sms_rest")) sweep_gemm_sms_rest(runner, q, out);
  if (wants(q, "coll_ctas")) {
    for (wl::CollectiveOp op : q.ops) {
      for (std::int64_t bytes : q.sizes) {
        std::vector<CollConfig> configs;
        for (int c : q.cta_limits) configs.push_back({wl::CollectiveImpl::cu, c, dma});
        sweep_colls(runner, configs, op, bytes, q, "coll_ctas", out);
      }
    }
  }
  if (wants(q, "coll_partition")) {
    for (wl::CollectiveOp op : q.ops) {
      for (std::int64_t bytes : q.sizes) sweep_coll_partition(runner, op, bytes, q, out);
    }
  }
  if (wants(q, "dma_size")) {
    for (wl::CollectiveOp op : q.ops) {
      if (reduces(op)) continue;
      for (std::int64_t bytes : q.sizes) {
        sweep_colls(runner,
                    {{wl::CollectiveImpl::dma, 0, dma},
                     {wl::CollectiveImpl::vendor_zero_cta, 0, dma},
                     {wl::CollectiveImpl::cu, 0, dma}},
                    op, bytes, q, "dma_size", out);
      }
    }
  }
  if (wants(q, "dma_engines")) {
    for (wl::CollectiveOp op : kCopyOps) {
      std::vector<CollConfig> configs;
      for (bool pull : {false, true}) {
        for (int engines : {1, 2, 3, 4}) {
          for (int chunks : {1, 4}) {
            configs.push_back({wl::CollectiveImpl::dma, 0, DmaOptions{engines, chunks, pull, true}});
          }
        }
        configs.push_back(
            {wl::CollectiveImpl::dma, 0, DmaOptions{runner.bench().gpus() - 1, 1, pull, false}});
      }
      sweep_colls(runner, configs, op, q.engine_sweep_bytes, q, "dma_engines", out);
    }
  }
  if (wants(q, "dma_latency")) sweep_dma_latency(runner, q, out);
  if (wants(q, "copy_engine")) {
    CopySweepRequest c;
    c.sizes = q.copy_sizes;
    c.shape_sizes = q.copy_shape_sizes;
    c.warmups = q.warmups;
    c.trials = q.trials;
    for (wl::Record& r : sweep_copy_engine(runner.bench(), c)) out.push_back(std::move(r));
  }
  if (wants(q, "fused_a2a")) {
    FusedA2aRequest f = q.fused;
    f.warmups = q.warmups;
    f.trials = q.trials;
    for (wl::Record& r : run_fused_a2a(runner, f)) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace c3sim::bench
