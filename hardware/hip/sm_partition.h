#pragma once
// Compute-unit partitions of one GPU: a group of at least `sms` SMs/CUs and the rest, each with
// its own stream, so that work on one group cannot take units from the other.
//   NVIDIA: green contexts (cuDevSmResourceSplitByCount; groups of 8 SMs on compute capability
//           9.0, so a request is rounded up), streams from cuGreenCtxStreamCreate.
//   AMD:    hipExtStreamCreateWithCUMask, the first `cus` CU bits for the group and the others
//           for the rest.
// Partitions are cached per (gpu, size): creating a green context costs milliseconds.
#include <map>
#include <memory>
#include <utility>

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

}  // namespace c3sim::bench
