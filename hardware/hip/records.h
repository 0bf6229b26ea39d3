#pragma once
// Measurement records from c3bench's measured times: the fields every isolated GEMM and
// collective record carries, whether it comes from a scenario run or a calibration sweep (each
// caller adds its own extras).
#include <cstdint>

#include "hardware/hip/bench.h"
#include "workloads/measurement.h"

namespace c3sim::bench {

// `units`: the SMs/CUs the GEMM ran on.
wl::IsoGemmRecord iso_gemm_record(const wl::Gemm& g, int units, const MeasuredTimes& t);
// `wrong_words`: what byte verification found (0 = correct output).
wl::IsoCollRecord iso_coll_record(const CollShape& shape, const CollConfig& config, const MeasuredTimes& t,
                                  int gpus, std::uint64_t wrong_words);

}  // namespace c3sim::bench
