#pragma once
// Deriving library data (hardware/gemm_library.h) from isolated GEMM records: each measured shape's
// compute efficiency, found so that the simulated GEMM alone on all CUs takes the measured time
// under the already fitted hardware model. Run after the hardware stages of `c3sim calibrate`, so an
// entry holds only the library's per-shape difference, never a hardware parameter.
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "workloads/gemm.h"

namespace c3sim::models {

// One shape as measured alone on all CUs: the geometric mean of its records' times.
struct MeasuredGemmAlone {
  wl::Gemm gemm;
  double time_us = 0;
  int records = 0;
};

struct GemmLibraryFit {
  hw::GemmLibrary library;            // one entry per shape, efficiency rounded to 4 significant digits
  double rms_log_before = 0;          // RMS of log(predicted / measured) alone, without the entries
  double rms_log_after = 0;           // and with them
  std::vector<std::string> warnings;  // shapes whose efficiency would leave (0, 1]
};

// `spec` is the fitted hardware model; its own gemm_library is ignored (every listed shape gets a
// fresh entry). Deterministic: shapes are fitted in the order given, each independently.
GemmLibraryFit fit_gemm_library(const hw::NodeSpec& spec, const std::vector<MeasuredGemmAlone>& shapes);

}  // namespace c3sim::models
