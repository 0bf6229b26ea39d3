#pragma once
// Fitting a hardware file's `model:` parameters to isolated measurements (iso_gemm, iso_coll and
// their CU/CTA/size sweeps). Concurrent (c3) records are never used: they are what validation
// predicts. The fit is staged so each stage is small and well conditioned:
//   gemm       - iso_gemm records      -> matrix efficiency, effective L2 and HBM bandwidth
//   collective - iso_coll impl cu      -> per-workgroup copy rate, link rate, protocol efficiency,
//                                         launch and step latency
//   dma        - iso_coll dma / vendor -> engine bandwidth, submit and completion latency
// and then, unless switched off, the library data (hardware/gemm_library.h): each GEMM shape
// measured alone on all CUs gets its own efficiency under the fitted model (models/
// gemm_library_fit.h). The stages fit without library data, so the hardware parameters serve every
// shape, measured or not.
// Each stage is a bounded Levenberg-Marquardt fit (finite-difference Jacobian, Eigen) of the
// residuals log(predicted / measured) over the distinct measured configurations (repeats of one
// configuration are merged by their geometric mean), with every parameter mapped to an unbounded
// variable through a logistic map of its (log-)range.
#include <map>
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "workloads/measurement.h"

namespace c3sim::models {

// One measurement file, as read (its path names it in the output's comments).
struct MeasurementFile {
  std::string path;
  std::vector<wl::Record> records;
};

struct FittedParam {
  std::string key;     // dotted hardware-file key, e.g. "model.dma.engine_bandwidth"
  std::string before;  // the base file's value, as text
  std::string after;   // fitted value, as text (4 significant digits)
  bool at_bound = false;
};

struct StageReport {
  std::string name;
  int points = 0;   // distinct configurations fitted
  int records = 0;  // records fitted (repeats of a configuration count once per record)
  int skipped = 0;  // records of this stage's kind not used, by reason in skipped_why
  std::map<std::string, int> skipped_why;
  double rms_log_before = 0;
  double rms_log_after = 0;
  int iterations = 0;
  std::vector<FittedParam> params;
};

struct CalibrationResult {
  hw::NodeSpec spec;  // base with the fitted values (exactly as written to the file)
  std::vector<StageReport> stages;
  int c3_records_ignored = 0;          // concurrent records: what validation predicts, never fitted
  std::vector<std::string> warnings;   // unused records and parameters at a bound, for stderr
  hw::GemmLibrary gemm_library;        // the entries this calibration derived (spec holds them too,
                                       //   over any the base file had)
  double gemm_library_rms_before = 0;  // RMS of log(predicted / measured) of the GEMMs alone on all
  double gemm_library_rms_after = 0;   //   CUs, without and with the entries
};

// The calibrated file's name: the base's with "-calibrated" appended once (a calibration of a
// calibrated file keeps its name rather than growing "-calibrated-calibrated").
std::string calibrated_name(const std::string& base_name);

struct CalibrationOptions {
  int max_iterations = 25;
  // Records whose GEMM tag is listed are ignored (leave-one-out studies).
  std::vector<std::string> exclude_gemm_tags;
  // Derive the GEMM library data from the isolated GEMM records on all CUs (--no-gemm-library: off).
  bool gemm_library = true;
};

// The base spec's interconnect.gpus should match the measured node (iso_coll records carry their
// own GPU count, which is used for their predictions). Throws InputError when a stage has no
// records to fit. A parameter that ends within 0.1% of its range's end (in the fit's logistic
// variable) is set to the bound itself, so it reads as that value, and is a warning.
CalibrationResult calibrate(const hw::NodeSpec& base, const std::vector<MeasurementFile>& files,
                            const CalibrationOptions& options = {});

// The calibrated hardware file: `extends: <extends>` plus the fitted model keys, with the fit's
// residuals and the measurement files in comments at the top.
std::string calibrated_yaml(const CalibrationResult& result, const std::string& extends,
                            const std::vector<std::string>& measurement_paths);

}  // namespace c3sim::models
