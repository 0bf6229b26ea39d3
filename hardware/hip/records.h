#pragma once
// Measurement records from c3bench's measured times: the fields every isolated GEMM and
// collective record carries, whether it comes from a scenario run or a calibration sweep (each
// caller adds its own extras).
#include <cstdint>

#include "hardware/hip/bench.h"
#include "workloads/measurement.h"

namespace c3sim::bench {

// extra["clocks"]: the GPUs' state around each timed trial, in the order the trials ran (absent
// without a clock source): sm_mhz_before / sm_mhz_after (lowest SM clock over the GPUs),
// power_w_after (highest board power), event_reasons_after (NVML clocks-event reasons, or-ed over
// the GPUs; 0x4 = software power cap). Each an array with one value per trial.
void add_clocks(nlohmann::json& extra, const MeasuredTimes& t);

// `units`: the SMs/CUs the GEMM ran on.
wl::IsoGemmRecord iso_gemm_record(const wl::Gemm& g, int units, const MeasuredTimes& t);
// `wrong_words`: what byte verification found (0 = correct output).
wl::IsoCollRecord iso_coll_record(const CollShape& shape, const CollConfig& config, const MeasuredTimes& t,
                                  int gpus, std::uint64_t wrong_words);

}  // namespace c3sim::bench
