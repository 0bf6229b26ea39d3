#pragma once
// Compute-unit partitions of one GPU: a group of at least `sms` SMs/CUs and the rest, each with
// its own stream, so that work on one group cannot take units from the other.
//   NVIDIA: green contexts (cuDevSmResourceSplitByCount; groups of 8 SMs on compute capability
//           9.0, so a request is rounded up), streams from cuGreenCtxStreamCreate.
//   AMD:    hipExtStreamCreateWithCUMask, the first `cus` CU bits for the group and the others
//           for the rest.
// Partitions are cached per (gpu, size): creating a green context costs milliseconds.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench {

class SmPartition {
public:
  SmPartition(int gpu, int sms, int total_sms, int high_priority);
  ~SmPartition();
  SmPartition(const SmPartition&) = delete;
  SmPartition& operator=(const SmPartition&) = delete;

  [[nodiscard]] int group_sms() const { return group_sms_; }  // >= the size asked for
  [[nodiscard]] int rest_sms() const { return rest_sms_; }
  [[nodiscard]] hipStream_t group_stream(bool high_priority) const {
    return high_priority ? group_high_ : group_normal_;
  }
  [[nodiscard]] hipStream_t rest_stream() const { return rest_stream_; }

private:
  int group_sms_ = 0;
  int rest_sms_ = 0;
  hipStream_t group_normal_ = nullptr;
  hipStream_t group_high_ = nullptr;
  hipStream_t rest_stream_ = nullptr;
#if defined(C3BENCH_NVIDIA)
  CUgreenCtx group_ctx_ = nullptr;
  CUgreenCtx rest_ctx_ = nullptr;
#endif
};

class SmPartitions {
public:
  SmPartitions(int high_priority) : high_priority_(high_priority) {}
  // The partition of `gpu` whose group has at least `sms` of its `total_sms` units.
  const SmPartition& get(int gpu, int sms, int total_sms);

private:
  int high_priority_ = 0;
  std::map<std::pair<int, int>, std::unique_ptr<SmPartition>> cache_;
};

// SMs [first, first + count) of one GPU, in the order of the device's SM resource.
struct SmRange {
  int first = 0;
  int count = 0;
  bool operator<(const SmRange& o) const { return first != o.first ? first < o.first : count < o.count; }
  bool operator==(const SmRange& o) const { return first == o.first && count == o.count; }
};

// Any set of SM ranges of one GPU, overlapping or not, each with its own streams (a program's
// masked streams, program_bench.h). NVIDIA: one split of the device into equal groups
// (cuDevSmResourceSplitByCount; group size = the greatest common divisor of the boundaries) up to
// the last range boundary below the SM count, the rest as its remainder; each range's green context
// combines the groups it covers (cuDevResourceGenerateDesc takes several results of one split), so
// two ranges share exactly the SMs of their shared groups. Every boundary must be a multiple of
// `granularity` (the split's rounding: 8 SMs on compute capability 9.0) or 0 or the SM count
// (else DeviceError).
// AMD: not built (the program path rejects masks there before any GPU call).
class SmLayout {
public:
  SmLayout(int gpu, const std::vector<SmRange>& ranges, int total_sms, int granularity, int high_priority);
  ~SmLayout();
  SmLayout(const SmLayout&) = delete;
  SmLayout& operator=(const SmLayout&) = delete;

  // The SMs range i's green context really has (the remainder may differ from the nominal count).
  [[nodiscard]] int sms(std::size_t i) const { return parts_.at(i).sms; }
  [[nodiscard]] hipStream_t stream(std::size_t i, bool high_priority) const {
    return high_priority ? parts_.at(i).high : parts_.at(i).normal;
  }

private:
  struct Part {
    int sms = 0;
    hipStream_t normal = nullptr;
    hipStream_t high = nullptr;
#if defined(C3BENCH_NVIDIA)
    CUgreenCtx ctx = nullptr;
#endif
  };
  std::vector<Part> parts_;
};

}  // namespace c3sim::bench
