#include "hardware/hip/sm_partition.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "hardware/hip/check.h"

namespace c3sim::bench {

#if defined(C3BENCH_NVIDIA)

namespace {

CUgreenCtx make_green_context(CUdevice dev, CUdevResource resource) {
  CUdevResourceDesc desc = nullptr;
  C3_CU(cuDevResourceGenerateDesc(&desc, &resource, 1));
  CUgreenCtx ctx = nullptr;
  C3_CU(cuGreenCtxCreate(&ctx, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
  return ctx;
}

hipStream_t make_green_stream(CUgreenCtx ctx, int priority) {
  CUstream s = nullptr;
  C3_CU(cuGreenCtxStreamCreate(&s, ctx, CU_STREAM_NON_BLOCKING, priority));
  return s;
}

}  // namespace

SmPartition::SmPartition(int gpu, int sms, int total_sms, int high_priority) {
  if (sms < 1 || sms >= total_sms) {
    throw DeviceError("c3bench: cannot split " + std::to_string(total_sms) + " SMs into a group of " +
                      std::to_string(sms) + " and a non-empty rest");
  }
  C3_HIP(hipSetDevice(gpu));
  CUdevice dev = 0;
  C3_CU(cuDeviceGet(&dev, gpu));
  CUdevResource all{};
  C3_CU(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  CUdevResource group{};
  CUdevResource rest{};
  unsigned int groups = 1;
  C3_CU(cuDevSmResourceSplitByCount(&group, &groups, &all, &rest, 0, static_cast<unsigned>(sms)));
  if (groups != 1 || rest.sm.smCount == 0) {
    throw DeviceError("c3bench: green-context split of " + std::to_string(sms) + " SMs on GPU " +
                      std::to_string(gpu) + " left no SMs for the rest");
  }
  group_sms_ = static_cast<int>(group.sm.smCount);
  rest_sms_ = static_cast<int>(rest.sm.smCount);
  group_ctx_ = make_green_context(dev, group);
  rest_ctx_ = make_green_context(dev, rest);
  group_normal_ = make_green_stream(group_ctx_, 0);
  group_high_ = make_green_stream(group_ctx_, high_priority);
  rest_stream_ = make_green_stream(rest_ctx_, 0);
}

SmPartition::~SmPartition() {
  (void)cuStreamDestroy(group_normal_);
  (void)cuStreamDestroy(group_high_);
  (void)cuStreamDestroy(rest_stream_);
  (void)cuGreenCtxDestroy(group_ctx_);
  (void)cuGreenCtxDestroy(rest_ctx_);
}

SmLayout::SmLayout(int gpu, const std::vector<SmRange>& ranges, int total_sms, int granularity,
                   int high_priority) {
  const auto fail = [&](const std::string& why) {
    throw DeviceError("c3bench: SM layout on GPU " + std::to_string(gpu) + " (" + std::to_string(total_sms) +
                      " SMs, groups of " + std::to_string(granularity) + "): " + why);
  };
  if (granularity < 1) fail("no group size");
  // One split into equal groups of `unit` SMs (the greatest common divisor of the boundaries below
  // the SM count) up to the last such boundary, the remainder after it: a two-range layout is
  // then exactly pair mode's group and rest, and rp's stacked collective streams one group each.
  int split_end = 0;
  int unit = 0;
  for (const SmRange& r : ranges) {
    if (r.count < 1 || r.first < 0 || r.first + r.count > total_sms) {
      fail("range " + std::to_string(r.first) + "+" + std::to_string(r.count) + " is outside the GPU");
    }
    for (int b : {r.first, r.first + r.count}) {
      if (b == total_sms || b == 0) continue;
      if (b % granularity != 0)
        fail("boundary " + std::to_string(b) + " is not a multiple of the group size");
      split_end = std::max(split_end, b);
      unit = std::gcd(unit, b);
    }
  }
  C3_HIP(hipSetDevice(gpu));
  CUdevice dev = 0;
  C3_CU(cuDeviceGet(&dev, gpu));
  CUdevResource all{};
  C3_CU(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  if (static_cast<int>(all.sm.smCount) != total_sms) {
    fail("the device has " + std::to_string(all.sm.smCount) + " SMs");
  }
  const int wanted = unit > 0 ? split_end / unit : 0;
  std::vector<CUdevResource> groups(static_cast<std::size_t>(std::max(wanted, 1)));
  CUdevResource rest{};
  if (wanted > 0) {
    auto got = static_cast<unsigned int>(wanted);
    C3_CU(cuDevSmResourceSplitByCount(groups.data(), &got, &all, &rest, 0, static_cast<unsigned>(unit)));
    if (static_cast<int>(got) != wanted) fail("the split gave " + std::to_string(got) + " groups");
    for (const CUdevResource& g : groups) {
      if (static_cast<int>(g.sm.smCount) != unit)
        fail("a group has " + std::to_string(g.sm.smCount) + " SMs");
    }
  } else {
    rest = all;
  }
  for (const SmRange& r : ranges) {
    std::vector<CUdevResource> parts;
    const int end = r.first + r.count;
    for (int g = r.first / std::max(unit, 1); g < std::min(end, split_end) / std::max(unit, 1); ++g) {
      parts.push_back(groups[static_cast<std::size_t>(g)]);
    }
    if (end == total_sms && total_sms > split_end) parts.push_back(rest);
    Part p;
    for (const CUdevResource& x : parts) p.sms += static_cast<int>(x.sm.smCount);
    CUdevResourceDesc desc = nullptr;
    C3_CU(cuDevResourceGenerateDesc(&desc, parts.data(), static_cast<unsigned>(parts.size())));
    C3_CU(cuGreenCtxCreate(&p.ctx, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    p.normal = make_green_stream(p.ctx, 0);
    p.high = make_green_stream(p.ctx, high_priority);
    parts_.push_back(p);
  }
}

SmLayout::~SmLayout() {
  for (Part& p : parts_) {
    (void)cuStreamDestroy(p.normal);
    (void)cuStreamDestroy(p.high);
    (void)cuGreenCtxDestroy(p.ctx);
  }
}

#else  // AMD: CU masks

SmPartition::SmPartition(int gpu, int cus, int total_cus, int high_priority) {
  if (cus < 1 || cus >= total_cus) {
    throw DeviceError("c3bench: cannot split " + std::to_string(total_cus) + " CUs into a group of " +
                      std::to_string(cus) + " and a non-empty rest");
  }
  C3_HIP(hipSetDevice(gpu));
  const int words = (total_cus + 31) / 32;
  std::vector<std::uint32_t> group(static_cast<std::size_t>(words), 0u);
  std::vector<std::uint32_t> rest(static_cast<std::size_t>(words), 0u);
  // Logical CU i belongs to XCD i % 8 on MI300X, so the first `cus` bits spread the group evenly
  // over the XCDs (the paper's smallest allocation, 8 CUs, is one per XCD).
  for (int cu = 0; cu < total_cus; ++cu) {
    auto& mask = cu < cus ? group : rest;
    mask[static_cast<std::size_t>(cu / 32)] |= 1u << (cu % 32);
  }
  group_sms_ = cus;
  rest_sms_ = total_cus - cus;
  C3_HIP(hipExtStreamCreateWithCUMask(&group_normal_, static_cast<std::uint32_t>(words), group.data()));
  // HIP has no priority argument for CU-masked streams; a masked high-priority queue is emulated
  // by the same mask (documented in README: prio inside rp is NVIDIA-only).
  (void)high_priority;
  group_high_ = group_normal_;
  C3_HIP(hipExtStreamCreateWithCUMask(&rest_stream_, static_cast<std::uint32_t>(words), rest.data()));
}

SmPartition::~SmPartition() {
  (void)hipStreamDestroy(group_normal_);
  (void)hipStreamDestroy(rest_stream_);
}

// The program path checks masks away on AMD before any GPU call (program_bench.h); this is the
// guard behind that check.
SmLayout::SmLayout(int gpu, const std::vector<SmRange>& /*ranges*/, int /*total_sms*/, int /*granularity*/,
                   int /*high_priority*/) {
  throw DeviceError("c3bench: CU-masked program streams are not supported on this vendor (GPU " +
                    std::to_string(gpu) + ")");
}

SmLayout::~SmLayout() = default;

#endif

const SmPartition& SmPartitions::get(int gpu, int sms, int total_sms) {
  auto key = std::make_pair(gpu, sms);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    it = cache_.emplace(key, std::make_unique<SmPartition>(gpu, sms, total_sms, high_priority_)).first;
  }
  return *it->second;
}

}  // namespace c3sim::bench
