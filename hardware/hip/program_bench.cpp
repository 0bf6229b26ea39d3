#include "hardware/hip/program_bench.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <tuple>
#include <utility>

#include "hardware/hip/check.h"
#include "hardware/hip/device_buffer.h"
#include "hardware/hip/kernels.h"
#include "hardware/hip/records.h"
#include "sim/base/errors.h"

namespace c3sim::bench {
namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// What makes two kernels the same measurement: kind and size (and implementation).
std::string signature(const wl::ProgramKernel& k) {
  switch (k.kind) {
    case wl::KernelKind::gemm:
      return "gemm " + std::to_string(k.gemm.m) + "x" + std::to_string(k.gemm.n) + "x" +
             std::to_string(k.gemm.k);
    case wl::KernelKind::collective:
      return std::string("coll ") + wl::to_string(k.collective.op) + " " +
             std::to_string(k.collective.bytes) + " " + wl::to_string(k.collective.impl) + " " +
             std::to_string(k.collective.max_workgroups.value_or(0));
    case wl::KernelKind::memory:
      return "memory " + std::to_string(k.memory.bytes) + " " +
             std::to_string(k.memory.workgroups.value_or(0));
    case wl::KernelKind::dma_copy:
      return "dma_copy " + std::to_string(k.dma.bytes) + (k.dma.to_peer ? " peer" : " local");
    case wl::KernelKind::measured:
      return "measured " + std::to_string(k.measured.time_us) + " " +
             std::to_string(k.measured.workgroups.value_or(0));
    case wl::KernelKind::fused: return "fused " + k.name;
  }
  return "?";
}

// The kernel alone: one stream, no dependencies, no gap.
wl::Program alone(const wl::ProgramKernel& k, const std::string& program) {
  wl::Program p;
  p.name = program + " iso";
  p.streams.push_back({"iso", 0, std::nullopt, {}});
  wl::ProgramKernel only = k;
  only.stream = "iso";
  only.after.clear();
  only.gap_us.reset();
  p.kernels.push_back(std::move(only));
  return p;
}

double median(std::vector<double> v) { return summarize(std::move(v)).median; }

// Critical path with every kernel at its isolated time: launches at the program's gaps (0 where
// none is written: the launch cost is in the measured times), stream order and `after` kept.
double ideal_step(const wl::Program& p, const std::vector<double>& iso) {
  std::vector<double> end(p.kernels.size(), 0.0);
  std::map<std::string, double> stream_end;
  double launch = 0, step = 0;
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    const wl::ProgramKernel& k = p.kernels[i];
    if (i > 0) launch += k.gap_us.value_or(p.launch_gap_us.value_or(0.0));
    double start = std::max(launch, stream_end[k.stream]);
    for (const std::string& dep : k.after)
      start = std::max(start, end[static_cast<std::size_t>(p.kernel_index(dep))]);
    end[i] = start + iso[i];
    stream_end[k.stream] = end[i];
    step = std::max(step, end[i]);
  }
  return step;
}

}  // namespace

std::vector<std::optional<SmRange>> stream_sm_ranges(const wl::Program& p, int total_sms) {
  std::vector<bool> has_gemm(p.streams.size(), false);
  for (const wl::ProgramKernel& k : p.kernels) {
    if (k.kind == wl::KernelKind::gemm) has_gemm[static_cast<std::size_t>(p.stream_index(k.stream))] = true;
  }
  std::vector<std::optional<SmRange>> out(p.streams.size());
  int low = 0, high = 0;  // SMs used from each end
  for (std::size_t i = 0; i < p.streams.size(); ++i) {
    const std::optional<int> cus = p.streams[i].cus;
    if (!cus) continue;
    int& used = has_gemm[i] ? high : low;
    const int count = std::max(0, std::min(*cus, total_sms - used));
    out[i] = SmRange{has_gemm[i] ? total_sms - used - count : used, count};
    used += *cus;
  }
  return out;
}

void check_program_runnable(const wl::Program& p, const std::string& policy, const hw::NodeSpec& spec) {
  const std::string what = policy.empty() ? p.name : p.name + " under " + policy;
  const int total = spec.compute.total_cus();
  const int granularity = std::max(1, spec.compute.cu_mask_granularity);
  const std::vector<std::optional<SmRange>> ranges = stream_sm_ranges(p, total);
  for (std::size_t i = 0; i < p.streams.size(); ++i) {
    const wl::ProgramStream& s = p.streams[i];
    if (!s.cus) continue;
    const std::string key = p.name + ".streams." + s.name + ".cus";
#if defined(C3BENCH_AMD)
    throw InputError(s.location, key,
                     "c3bench's program path runs CU masks (" + what +
                         "; the rp policies) on NVIDIA green contexts only: not supported on this vendor");
#endif
    if (spec.compute.xcds != 1) {
      throw InputError(s.location, key,
                       "c3bench's program path places CU masks on GPUs of one L2 domain (xcds: 1); " +
                           spec.name + " has " + std::to_string(spec.compute.xcds) + " (" + what + ")");
    }
    const SmRange& r = *ranges[i];
    if (r.count < 1) {
      throw InputError(s.location, key,
                       "no SMs are left for this stream after the streams masked before it (" + what + ")");
    }
    for (int b : {r.first, r.first + r.count}) {
      if (b != 0 && b != total && b % granularity != 0) {
        throw InputError(s.location, key,
                         "SMs " + std::to_string(r.first) + ".." + std::to_string(r.first + r.count - 1) +
                             " (" + what + "): green contexts split " + spec.name + "'s " +
                             std::to_string(total) + " SMs at multiples of " + std::to_string(granularity));
      }
    }
  }
  std::set<std::string> launched;
  for (const wl::ProgramKernel& k : p.kernels) {
    const std::string key = p.name + ".kernels." + k.name;
    for (const std::string& dep : k.after) {
      if (!launched.count(dep)) {
        throw InputError(k.location, key + ".after",
                         "'" + dep + "' is launched after '" + k.name + "' (" + what +
                             "): a stream can only wait for an event already recorded by the host");
      }
    }
    launched.insert(k.name);
    if (k.kind == wl::KernelKind::gemm && k.gemm.dtype != Dtype::bf16) {
      throw InputError(k.location, key + ".gemm.dtype", "c3bench runs bf16 GEMMs only");
    }
    if (k.kind == wl::KernelKind::fused) {
      throw InputError(k.location, key + ".fused",
                       "c3bench's program path has no fused compute + communication kernel (" + what + ")");
    }
    if (k.kind == wl::KernelKind::memory && k.memory.bytes < 32) {
      throw InputError(k.location, key + ".memory.bytes", "c3bench needs at least 32 bytes");
    }
    if (k.kind != wl::KernelKind::collective) continue;
    const wl::Collective& c = k.collective;
    if (c.impl == wl::CollectiveImpl::dma_hybrid) {
      throw InputError(k.location, key + ".collective.impl",
                       std::string("c3bench's program path does not run impl ") + wl::to_string(c.impl) +
                           " (" + what + "): not supported on this platform; use cu, dma or vendor_zero_cta");
    }
    if (c.impl == wl::CollectiveImpl::vendor_zero_cta && !vendor_zero_cta_compiled()) {
      throw InputError(k.location, key + ".collective.impl",
                       "impl vendor_zero_cta (" + what +
                           "): not supported on this platform: the library has no zero-CTA policy "
                           "(NCCL_CTA_POLICY_ZERO, NCCL >= 2.28)");
    }
    const bool reduces = wl::op_traits(c.op).reduces;
    if (reduces && c.impl != wl::CollectiveImpl::cu) {
      throw InputError(
          k.location, key + ".collective.impl",
          "copy engines cannot reduce a " + std::string(wl::to_string(c.op)) + " (" + what + ")");
    }
    if (c.bytes % 4 != 0) {
      throw InputError(k.location, key + ".collective.bytes", "c3bench needs a multiple of 4 bytes");
    }
  }
}

struct ProgramBench::Resources {
  std::map<std::string, std::unique_ptr<BlasGemm>> gemms;  // by signature
  struct Coll {
    std::unique_ptr<CollBuffers> own;  // plain buffers (cu, dma)
    CollBuffers* buffers = nullptr;    // own, or the shared symmetric set (vendor_zero_cta)
    CollShape shape;
    std::uint64_t seed = 0;
  };
  // By (op, bytes, symmetric).
  std::map<std::tuple<int, std::int64_t, bool>, Coll> colls;
  // One symmetric set for every zero-CTA collective, sized for the largest before the first run,
  // so that its NCCL window registration (per communicator set) is made once.
  std::unique_ptr<CollBuffers> symmetric;
  // Green contexts of each GPU per layout (the masked streams' ranges, stream order).
  std::map<std::vector<SmRange>, std::vector<std::unique_ptr<SmLayout>>> layouts;
  std::vector<DeviceBuffer> mem_src, mem_dst, copy_src, copy_dst;
  std::uint64_t next_seed = 0x9406ull;
};

namespace {

std::tuple<int, std::int64_t, bool> coll_key(const wl::Collective& c) {
  return {static_cast<int>(c.op), c.bytes, c.impl == wl::CollectiveImpl::vendor_zero_cta};
}

}  // namespace

ProgramBench::ProgramBench(Bench& bench, DmaOptions dma)
    : bench_(bench), dma_(dma), res_(std::make_unique<Resources>()) {}

ProgramBench::~ProgramBench() = default;

namespace {

void grow(std::vector<DeviceBuffer>& bufs, int gpus, std::size_t bytes) {
  bufs.resize(static_cast<std::size_t>(gpus));
  for (int g = 0; g < gpus; ++g) {
    auto& b = bufs[static_cast<std::size_t>(g)];
    if (b.bytes() < bytes) b = DeviceBuffer(g, bytes);
  }
}

}  // namespace

ProgramBench::Timeline ProgramBench::run_once(const wl::Program& p, bool held) {
  DeviceSet& dev = bench_.devices();
  const int n = dev.count();
  Resources& res = *res_;
  // Operands for every kernel, before anything is timed.
  for (const wl::ProgramKernel& k : p.kernels) {
    if (k.kind == wl::KernelKind::gemm) {
      auto& gemm = res.gemms[signature(k)];
      if (!gemm) {
        gemm = std::make_unique<BlasGemm>(n);
        gemm->prepare(k.gemm);
      }
    } else if (k.kind == wl::KernelKind::collective) {
      auto& c = res.colls[coll_key(k.collective)];
      if (!c.buffers) {
        if (k.collective.impl == wl::CollectiveImpl::vendor_zero_cta) {
          c.buffers = res.symmetric.get();  // run() sized it for every zero-CTA collective
        } else {
          c.own = std::make_unique<CollBuffers>(n, false);
          c.buffers = c.own.get();
        }
        c.shape = {k.collective.op, static_cast<std::size_t>(k.collective.bytes), n};
        c.seed = res.next_seed++;
        c.buffers->prepare(c.shape, c.seed);
      }
    } else if (k.kind == wl::KernelKind::memory) {
      const auto half = static_cast<std::size_t>(k.memory.bytes / 2);
      grow(res.mem_src, n, half);
      grow(res.mem_dst, n, half);
    } else {
      grow(res.copy_src, n, static_cast<std::size_t>(k.dma.bytes));
      grow(res.copy_dst, n, static_cast<std::size_t>(k.dma.bytes));
    }
  }
  C3_HIP(hipSetDevice(0));
  dev.synchronize_all();

  // Masked streams on green contexts of the layout their ranges make (created once per layout).
  const std::vector<std::optional<SmRange>> ranges = stream_sm_ranges(p, bench_.units());
  std::vector<SmRange> masked;
  for (const auto& r : ranges) {
    if (r) masked.push_back(*r);
  }
  std::vector<std::unique_ptr<SmLayout>>* layout = nullptr;
  if (!masked.empty()) {
    layout = &res.layouts[masked];
    for (int g = static_cast<int>(layout->size()); g < n; ++g) {
      layout->push_back(
          std::make_unique<SmLayout>(g, masked, bench_.units(), layout_granularity_, dev.highest_priority()));
    }
  }
  std::vector<std::vector<hipStream_t>> streams;
  std::vector<int> stream_sms(p.streams.size(), 0);  // the masked streams' SMs; 0 = every SM
  std::size_t masked_index = 0;
  for (std::size_t si = 0; si < p.streams.size(); ++si) {
    const wl::ProgramStream& s = p.streams[si];
    const bool urgent = s.priority > 0;
    std::vector<hipStream_t> per_gpu;
    for (int g = 0; g < n; ++g) {
      if (ranges[si]) {
        const SmLayout& l = *(*layout)[static_cast<std::size_t>(g)];
        per_gpu.push_back(l.stream(masked_index, urgent));
        stream_sms[si] = l.sms(masked_index);
      } else {
        per_gpu.push_back(
            dev.stream(g, "prog:" + s.name + (urgent ? ":urgent" : ""), urgent ? dev.highest_priority() : 0));
      }
    }
    if (ranges[si]) ++masked_index;
    streams.push_back(std::move(per_gpu));
  }
  std::vector<std::size_t> next(static_cast<std::size_t>(n), 0);
  auto new_event = [&](int g) { return dev.event(g, next[static_cast<std::size_t>(g)]++); };
  const std::size_t kernels = p.kernels.size();
  std::vector<hipEvent_t> start(static_cast<std::size_t>(n));
  std::vector<std::vector<hipEvent_t>> ready(kernels), end(kernels);
  Timeline out;
  out.launch_us.resize(kernels);

  *dev.timeout_flag() = 0;
  const auto first = static_cast<std::size_t>(p.stream_index(p.kernels.front().stream));
  // The first kernel is queued behind the start hold (start_hold.h) and released once its host
  // call returned: its host cost and launch latency are not timed, the later launches' are.
  StartHold& hold = dev.start_hold();
  hold.arm();
  for (int g = 0; g < n; ++g) {
    if (held) hold.hold(g, streams[first][static_cast<std::size_t>(g)]);
    C3_HIP(hipSetDevice(g));
    start[static_cast<std::size_t>(g)] = new_event(g);
    C3_HIP(hipEventRecord(start[static_cast<std::size_t>(g)], streams[first][static_cast<std::size_t>(g)]));
  }
  const ReleaseOnExit release(hold);
  const Clock::time_point t0 = Clock::now();
  double previous = 0;
  for (std::size_t i = 0; i < kernels; ++i) {
    const wl::ProgramKernel& k = p.kernels[i];
    const double gap = k.gap_us.value_or(p.launch_gap_us.value_or(0.0));
    if (i > 0 && gap > 0) {
      while (us_since(t0) < previous + gap) {}
    }
    previous = us_since(t0);
    out.launch_us[i] = previous;
    const auto si = static_cast<std::size_t>(p.stream_index(k.stream));
    std::vector<StreamRef> refs;
    for (int g = 0; g < n; ++g) {
      hipStream_t s = streams[si][static_cast<std::size_t>(g)];
      refs.push_back({g, s});
      C3_HIP(hipSetDevice(g));
      for (const std::string& dep : k.after) {
        C3_HIP(hipStreamWaitEvent(
            s, end[static_cast<std::size_t>(p.kernel_index(dep))][static_cast<std::size_t>(g)], 0));
      }
      ready[i].push_back(new_event(g));
      C3_HIP(hipEventRecord(ready[i].back(), s));
    }
    switch (k.kind) {
      case wl::KernelKind::gemm: {
        // On a masked stream cuBLAS plans for the stream's SMs (pair mode's rp GEMM).
        BlasGemm& gemm = *res.gemms.at(signature(k));
        for (const StreamRef& r : refs) gemm.enqueue(r.gpu, r.stream, stream_sms[si]);
        break;
      }
      case wl::KernelKind::collective: {
        const Resources::Coll& c = res.colls.at(coll_key(k.collective));
        if (k.collective.impl == wl::CollectiveImpl::cu) {
          // Channel 1 + stream index: one communicator set per program stream; on a masked stream
          // capped at its SMs in CTAs unless the kernel names its own cap (pair mode's rp).
          bench_.vendor().enqueue_on(static_cast<int>(si) + 1, c.shape, *c.buffers, refs,
                                     k.collective.max_workgroups.value_or(stream_sms[si]));
          break;
        }
        if (k.collective.impl == wl::CollectiveImpl::vendor_zero_cta) {
          bench_.vendor().enqueue_zero_cta(c.shape, *c.buffers, refs, static_cast<int>(si) + 1);
          break;
        }
        // The own DMA collective on its copy queues, forked from and joined back to the stream.
        const std::vector<StreamRef> queues = bench_.dma().streams(dma_);
        std::vector<hipEvent_t> fork;
        for (const StreamRef& r : refs) {
          C3_HIP(hipSetDevice(r.gpu));
          fork.push_back(new_event(r.gpu));
          C3_HIP(hipEventRecord(fork.back(), r.stream));
        }
        for (const StreamRef& q : queues) {
          C3_HIP(hipSetDevice(q.gpu));
          C3_HIP(hipStreamWaitEvent(q.stream, fork[static_cast<std::size_t>(q.gpu)], 0));
        }
        bench_.dma().enqueue(c.shape, *c.buffers, dma_);
        // Every GPU's stream waits for every GPU's queues: a push writes into the peers, so this
        // GPU's data is complete when the others' copies are (as a library collective ends).
        std::vector<hipEvent_t> joins;
        for (const StreamRef& q : queues) {
          C3_HIP(hipSetDevice(q.gpu));
          joins.push_back(new_event(q.gpu));
          C3_HIP(hipEventRecord(joins.back(), q.stream));
        }
        for (const StreamRef& r : refs) {
          C3_HIP(hipSetDevice(r.gpu));
          for (hipEvent_t join : joins) C3_HIP(hipStreamWaitEvent(r.stream, join, 0));
        }
        break;
      }
      case wl::KernelKind::memory: {
        const std::size_t half = static_cast<std::size_t>(k.memory.bytes / 2) / 16 * 16;
        const int workgroups = k.memory.workgroups.value_or(bench_.units());
        for (const StreamRef& r : refs) {
          C3_HIP(hipSetDevice(r.gpu));
          const auto g = static_cast<std::size_t>(r.gpu);
          launch_stream_add(r.stream, res.mem_src[g].get(), res.mem_dst[g].get(), half, workgroups);
        }
        break;
      }
      case wl::KernelKind::dma_copy: {
        for (const StreamRef& r : refs) {
          C3_HIP(hipSetDevice(r.gpu));
          const auto g = static_cast<std::size_t>(r.gpu);
          const std::size_t to = k.dma.to_peer ? (g + 1) % static_cast<std::size_t>(n) : g;
          C3_HIP(hipMemcpyAsync(res.copy_dst[to].get(), res.copy_src[g].get(),
                                static_cast<std::size_t>(k.dma.bytes), hipMemcpyDefault, r.stream));
        }
        break;
      }
      case wl::KernelKind::measured: {
        // Known only by its duration: hold min(workgroups, the stream's SMs/CUs) SMs/CUs (default
        // every one) for that long, alone on them, as c3sim's measured-kernel model does. An
        // imported kernel's workgroups is its traced grid (often 10^4-10^5 blocks) while time_us is
        // the whole kernel's: launching the grid would spin time_us once per wave.
        // With blocks_per_cu the grid ran in waves: one occupy launch per wave, each for its share
        // of the time, so another stream's kernel can take SMs/CUs between them, as in the model.
        const int units = stream_sms[si] > 0 ? stream_sms[si] : bench_.units();
        const int workgroups = std::min(k.measured.workgroups.value_or(units), units);
        const std::int64_t waves = wl::measured_waves(k.measured, units);
        const auto ns = static_cast<std::uint64_t>(k.measured.time_us * 1e3 / static_cast<double>(waves));
        for (const StreamRef& r : refs) {
          C3_HIP(hipSetDevice(r.gpu));
          for (std::int64_t w = 0; w < waves; ++w) launch_occupy(r.stream, workgroups, ns);
        }
        break;
      }
      case wl::KernelKind::fused: break;  // refused by check_program_runnable
    }
    for (const StreamRef& r : refs) {
      C3_HIP(hipSetDevice(r.gpu));
      end[i].push_back(new_event(r.gpu));
      C3_HIP(hipEventRecord(end[i].back(), r.stream));
    }
    if (i == 0) hold.release();
  }

  out.ready_us.resize(kernels);
  out.end_us.resize(kernels);
  for (int g = 0; g < n; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    C3_HIP(hipSetDevice(g));
    for (std::size_t i = 0; i < kernels; ++i) {
      C3_HIP(hipEventSynchronize(end[i][gi]));
      float end_ms = 0, ready_ms = 0;
      C3_HIP(hipEventElapsedTime(&end_ms, start[gi], end[i][gi]));
      C3_HIP(hipEventElapsedTime(&ready_ms, start[gi], ready[i][gi]));
      out.step_us = std::max(out.step_us, 1000.0 * static_cast<double>(end_ms));
      if (g == 0) {  // events of other streams may stamp a hair before the start event: clamp
        out.end_us[i] = std::max(0.0, 1000.0 * static_cast<double>(end_ms));
        out.ready_us[i] = std::max(0.0, 1000.0 * static_cast<double>(ready_ms));
      }
    }
  }
  dev.synchronize_all();
  if (*dev.timeout_flag() != 0) {
    throw DeviceError("c3bench: a device-side wait timed out in program " + p.name + "; the trial is void");
  }
  return out;
}

ProgramBench::Timeline ProgramBench::measure(const wl::Program& p, int warmups, int trials, Summary* step) {
  (void)run_once(p, false);  // untimed: library first-call work, communicator setup
  for (int w = 0; w < warmups; ++w) (void)run_once(p);
  std::vector<Timeline> runs;
  for (int t = 0; t < trials; ++t) runs.push_back(run_once(p));
  Timeline out;
  std::vector<double> steps;
  for (const Timeline& r : runs) steps.push_back(r.step_us);
  *step = summarize(steps);
  out.step_us = step->median;
  const std::size_t kernels = p.kernels.size();
  for (std::size_t i = 0; i < kernels; ++i) {
    std::vector<double> launch, ready, end;
    for (const Timeline& r : runs) {
      launch.push_back(r.launch_us[i]);
      ready.push_back(r.ready_us[i]);
      end.push_back(r.end_us[i]);
    }
    out.launch_us.push_back(median(launch));
    out.ready_us.push_back(median(ready));
    out.end_us.push_back(median(end));
  }
  return out;
}

std::vector<wl::Record> ProgramBench::run(const ProgramRunRequest& request) {
  const int gpus = bench_.gpus();
  const wl::Program& base = request.program;
  if (base.gpus && *base.gpus != gpus) {
    throw InputError(base.location, base.name + ".gpus",
                     "c3bench runs on every visible GPU (" + std::to_string(gpus) +
                         "); select GPUs with CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES instead");
  }
  std::vector<wl::Record> out;
  std::vector<const wl::Program*> all{&base};
  for (const wl::Program& t : request.transformed) all.push_back(&t);

  // Masks were checked against the preset's SMs; the layout is built on the GPU's.
  layout_granularity_ = request.mask_granularity;
  // The shared symmetric buffers: room for the largest zero-CTA collective's send and receive.
  std::size_t zero_cta_bytes = 0;
  for (const wl::Program* p : all) {
    const bool masked = std::any_of(p->streams.begin(), p->streams.end(),
                                    [](const wl::ProgramStream& s) { return s.cus.has_value(); });
    if (masked && request.mask_sms != bench_.units()) {
      throw DeviceError("c3bench: program " + base.name + "'s CU masks were checked against " +
                        std::to_string(request.mask_sms) + " SMs per GPU; this GPU has " +
                        std::to_string(bench_.units()) + " (pass the matching --hardware)");
    }
    for (const wl::ProgramKernel& k : p->kernels) {
      if (k.kind != wl::KernelKind::collective || k.collective.impl != wl::CollectiveImpl::vendor_zero_cta)
        continue;
      const CollShape shape{k.collective.op, static_cast<std::size_t>(k.collective.bytes), gpus};
      zero_cta_bytes = std::max({zero_cta_bytes, shape.send_bytes(), shape.recv_bytes()});
    }
  }
  if (zero_cta_bytes > 0 && (!res_->symmetric || res_->symmetric->send_capacity() < zero_cta_bytes ||
                             res_->symmetric->recv_capacity() < zero_cta_bytes)) {
    if (!res_->symmetric) res_->symmetric = std::make_unique<CollBuffers>(gpus, true);
    // all_to_all sends and receives `bytes`: one buffer size covering both sides of every shape.
    res_->symmetric->prepare({wl::CollectiveOp::all_to_all, zero_cta_bytes, gpus}, res_->next_seed++);
  }

  // Every distinct kernel alone: its output checked once (collectives), then timed.
  std::map<std::string, double> iso;
  for (const wl::Program* p : all) {
    for (const wl::ProgramKernel& k : p->kernels) {
      const std::string sig = signature(k);
      if (iso.count(sig)) continue;
      const wl::Program one = alone(k, base.name);
      std::uint64_t wrong = 0;
      if (k.kind == wl::KernelKind::collective) {
        (void)run_once(one, false);  // allocates and fills the buffers, creates the communicators
        Resources::Coll& c = res_->colls.at(coll_key(k.collective));
        c.buffers->prepare(c.shape, c.seed);  // this shape's data (the symmetric set is shared)
        c.buffers->poison_recv(c.shape);
        bench_.devices().synchronize_all();
        (void)run_once(one, false);
        wrong = c.buffers->count_mismatches(c.shape, c.seed);
        if (wrong != 0) {
          throw DeviceError("c3bench: program " + base.name + ": " + sig + " left " + std::to_string(wrong) +
                            " wrong 4-byte words in the receive buffers");
        }
      }
      Summary s;
      (void)measure(one, request.warmups, request.trials, &s);
      iso[sig] = s.median;
      MeasuredTimes t{s, {}, request.trials};
      if (k.kind == wl::KernelKind::gemm) {
        wl::IsoGemmRecord r = iso_gemm_record(k.gemm, bench_.units(), t);
        r.extra["program"] = base.name;
        r.extra["min_us"] = s.min;
        r.extra["max_us"] = s.max;
        out.emplace_back(std::move(r));
      } else if (k.kind == wl::KernelKind::collective) {
        const CollShape shape{k.collective.op, static_cast<std::size_t>(k.collective.bytes), gpus};
        const CollConfig config{k.collective.impl, k.collective.max_workgroups.value_or(0), dma_};
        wl::IsoCollRecord r = iso_coll_record(shape, config, t, gpus, wrong);
        r.extra["program"] = base.name;
        r.extra["min_us"] = s.min;
        r.extra["max_us"] = s.max;
        out.emplace_back(std::move(r));
      }
    }
  }
  auto iso_of = [&](const wl::Program& p) {
    std::vector<double> v;
    for (const wl::ProgramKernel& k : p.kernels) v.push_back(iso.at(signature(k)));
    return v;
  };
  const std::vector<double> base_iso = iso_of(base);
  double serial = 0;
  for (double v : base_iso) serial += v;
  const double ideal = ideal_step(base, base_iso);

  for (std::size_t pi = 0; pi < request.policies.size(); ++pi) {
    const wl::Program& p = request.transformed[pi];
    Summary s;
    const Timeline t = measure(p, request.warmups, request.trials, &s);
    const std::vector<double> p_iso = iso_of(p);
    wl::ProgramRecord r;
    r.program = base.name;
    r.policy = request.policies[pi];
    r.gpus = gpus;
    r.step_us = t.step_us;
    r.serial_us = serial;
    r.ideal_us = ideal;
    if (serial - ideal > 1e-9 * serial) r.overlap_percent = 100.0 * (serial - t.step_us) / (serial - ideal);
    for (std::size_t i = 0; i < p.kernels.size(); ++i) {
      const wl::ProgramKernel& k = p.kernels[i];
      wl::ProgramKernelRecord row;
      row.name = k.name;
      row.kind = wl::to_string(k.kind);
      row.stream = k.stream;
      row.launch_us = t.launch_us[i];
      row.ready_us = t.ready_us[i];
      row.start_us = t.ready_us[i];
      row.end_us = t.end_us[i];
      row.iso_us = p_iso[i];
      r.kernels.push_back(std::move(row));
    }
    r.spread_us = s.spread();
    r.trials = request.trials;
    r.extra["min_us"] = s.min;
    r.extra["max_us"] = s.max;
    r.extra["launch"] = "one host thread; each kernel issued on every GPU in turn, in host order";
    r.extra["kernel_rows"] = "GPU 0; start_us = ready_us (the stream reached the kernel)";
    r.extra["dma"] = dma_.describe();
    const std::vector<std::optional<SmRange>> ranges = stream_sm_ranges(p, bench_.units());
    std::string layout;
    for (std::size_t si = 0; si < ranges.size(); ++si) {
      if (!ranges[si]) continue;
      layout += (layout.empty() ? "" : " ") + p.streams[si].name + ":" + std::to_string(ranges[si]->first) +
                "-" + std::to_string(ranges[si]->first + ranges[si]->count - 1);
    }
    if (!layout.empty()) r.extra["sm_layout"] = "green contexts, SMs per stream: " + layout;
    out.emplace_back(std::move(r));
  }
  return out;
}

}  // namespace c3sim::bench
