#pragma once
// The measurement schema shared by the simulator (c3sim run) and the hardware runner
// (c3bench run): JSON Lines, one record per line, each with "schema" and "kind".
// Times are microseconds in fields named *_us. Bump kSchemaVersion on incompatible change; a
// reader accepts every version up to its own.
//   1  the records below, without env.c3sim_version
//   2  env records name the c3sim release that wrote them (c3sim_version)
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"
#include "sim/base/version.h"
#include "workloads/collective_protocol.h"

namespace c3sim::wl {

inline constexpr const char* kSchemaName = "c3sim.measurement";
inline constexpr int kSchemaVersion = 2;

// An env record's c3sim_version when the release that wrote it is not known (a schema-1 file).
inline constexpr const char* kUnknownRelease = "unknown";

// {"kind":"env"}: what produced the file.
struct EnvRecord {
  std::string producer;  // "c3sim" or "c3bench"
  std::string hardware;  // preset name or GPU name
  int gpus = 0;
  int cus_per_gpu = 0;  // 0 = not known (nccl-tests logs): the field is then left out
  // The c3sim release whose code wrote the file (c3bench and imports included); empty when read
  // from a schema-1 file, which did not record it, and written again as kUnknownRelease.
  std::string c3sim_version = c3sim::version();
  nlohmann::json details = nlohmann::json::object();  // clocks, driver, library versions, topology
};

// {"kind":"iso_gemm"}: one GEMM alone, with `cus` compute units available to it.
struct IsoGemmRecord {
  std::string tag;
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype = "bf16";
  int cus = 0;  // CUs (SMs) available
  double time_us = 0;
  std::optional<double> spread_us;  // measured: (max - min) or IQR of trials
  int trials = 1;
  nlohmann::json extra = nlohmann::json::object();  // model breakdown, bytes per level, ...
};

// {"kind":"iso_coll"}: one collective alone.
struct IsoCollRecord {
  std::string op;          // "all_gather", ...
  std::int64_t bytes = 0;  // per-GPU output bytes
  std::string impl;        // "cu", "dma", "vendor_zero_cta"
  int gpus = 0;
  std::optional<int> workgroups;  // CU/CTA limit (cu impl)
  std::optional<int> engines;     // engines used (dma impl)
  double time_us = 0;
  std::optional<double> spread_us;
  int trials = 1;
  nlohmann::json extra = nlohmann::json::object();
  // How the library ran the call, where the record says (extra.channels, extra.algorithm,
  // extra.protocol: NCCL's log as c3bench or a trace selection copied it, names in any case). Read
  // from `extra` and checked with it; calibrate simulates the call with them.
  std::optional<int> channels;
  std::optional<CollectiveAlgorithm> algorithm;
  std::optional<CollectiveProtocol> protocol;
};

// {"kind":"iso_copy"}: one copy-engine copy pattern alone (c3bench sweep --what copy_engine): what a
// DMA collective is built from, measured as a function of size, peers, streams, chunks and
// submission, so one copy-engine model can be fitted for any GPU count.
struct IsoCopyRecord {
  std::string pattern;     // "local" (same GPU), "push" (write a peer), "pull" (read a peer),
                           // "bidirectional" (every GPU pushes to every peer at once)
  std::int64_t bytes = 0;  // per destination (per peer), per GPU
  int gpus = 0;            // GPUs issuing copies at once
  int peers = 0;           // destinations per issuing GPU (0 for local)
  int streams = 1;         // streams (queues) per peer
  int chunks = 1;          // pieces per transfer
  bool batched = false;    // one batched call per stream (cudaMemcpyBatchAsync) vs one call a piece
  double time_us = 0;      // first submission to last completion
  std::optional<double> spread_us;
  int trials = 1;
  nlohmann::json extra = nlohmann::json::object();
};

// {"kind":"c3"}: GEMM and collective concurrently under one policy.
struct C3Record {
  std::string scenario;  // scenario name
  std::string policy;    // "base", "sp", "rp:32", ...
  std::string gemm_tag;
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype = "bf16";
  std::string op;
  std::int64_t bytes = 0;
  std::string impl;
  int gpus = 0;
  double time_us = 0;                 // total: first launch to both done
  double gemm_time_us = 0;            // GEMM's own span inside the run
  double coll_time_us = 0;            // collective's own span inside the run
  std::optional<double> iso_gemm_us;  // isolated baselines measured/predicted beside this run
  std::optional<double> iso_coll_us;
  std::optional<double> speedup;        // serial / time
  std::optional<double> ideal_speedup;  // serial / max(iso)
  std::optional<double> percent_of_ideal;
  std::optional<double> spread_us;
  int trials = 1;
  nlohmann::json attribution = nlohmann::json::object();  // per kernel: slowdown causes
  nlohmann::json extra = nlohmann::json::object();
  // The file and line it was read from (not written): later checks of its values (the policy name
  // against the registry, the GPU count against the hardware) name them. Empty when built in code.
  SourceLocation where;
};

// {"kind":"fused_step"}: a producer kernel and the collective that consumes its output, measured
// apart, one after the other (bulk) and as one kernel that stores its results straight into the
// peers' receive buffers (fused) (c3bench sweep --what fused_a2a; docs/c3bench.md). The step is an
// embedding lookup whose pooled vectors are redistributed all-to-all.
struct FusedStepRecord {
  std::string step = "embedding_all_to_all";
  std::string variant;  // "lookup" (the plain lookup alone), "all_to_all" (the library's alone),
                        // "bulk" (lookup, then all-to-all), "fused"
  int gpus = 0;
  std::int64_t batch = 0;    // global batch (samples); each GPU receives batch / gpus of them
  std::int64_t tables = 0;   // embedding tables per GPU
  std::int64_t dim = 0;      // elements per row
  std::int64_t pooling = 0;  // rows pooled (summed) per sample and table
  std::int64_t rows = 0;     // rows per table
  std::string dtype = "fp32";
  std::int64_t bytes = 0;    // per-GPU all-to-all output (batch x tables x dim x element size)
  std::optional<int> chunk;  // samples per completion flag (fused) or per block tile (lookup)
  double time_us = 0;        // median over trials, first launch to the step's end on every GPU
  std::optional<double> spread_us;
  int trials = 1;
  nlohmann::json extra = nlohmann::json::object();  // trial_us, occupancy, verified_wrong_words, ...
};

// One kernel of a program record: when the host launched it, when it could start (dependencies
// and stream order met), its first workgroup (or DMA transfer), its end, and its isolated time.
struct ProgramKernelRecord {
  std::string name;
  std::string kind;  // a wl::KernelKind's name: "gemm", "collective", "memory", "dma_copy", "measured"
  std::string stream;
  double launch_us = 0, ready_us = 0, start_us = 0, end_us = 0;
  std::optional<double> iso_us;
  nlohmann::json attribution = nlohmann::json::object();  // slowdown causes, as a c3 record's per kernel
};

// {"kind":"program"}: one program (workloads/program.h) under one policy (a transformation).
struct ProgramRecord {
  std::string program;
  std::string policy;
  int gpus = 0;
  double step_us = 0;                     // first launch to last kernel end
  std::optional<double> serial_us;        // every kernel of the untransformed program alone, in a row
  std::optional<double> ideal_us;         // its critical path at isolated kernel times
  std::optional<double> overlap_percent;  // (serial - step) / (serial - ideal)
  std::vector<ProgramKernelRecord> kernels;
  std::optional<double> spread_us;
  int trials = 1;
  nlohmann::json extra = nlohmann::json::object();  // e.g. "chosen" for *_best sweeps
  SourceLocation where;                             // as C3Record::where
};

using Record = std::variant<EnvRecord, IsoGemmRecord, IsoCollRecord, C3Record, IsoCopyRecord, ProgramRecord,
                            FusedStepRecord>;

nlohmann::json to_json(const EnvRecord& r);
nlohmann::json to_json(const IsoGemmRecord& r);
nlohmann::json to_json(const IsoCollRecord& r);
nlohmann::json to_json(const C3Record& r);
nlohmann::json to_json(const IsoCopyRecord& r);
nlohmann::json to_json(const ProgramRecord& r);
nlohmann::json to_json(const FusedStepRecord& r);
nlohmann::json to_json(const Record& r);

// Parses one JSON Lines record; throws InputError naming file, line and key on any problem
// (unknown kind, missing field, unknown field, wrong type, negative time, unsupported schema
// version). Every field that is not std::optional is required, except the strings and objects
// that to_json omits when empty (tag, gemm_tag, details, extra, attribution). Collective op and
// impl accept the aliases of parse_collective_op/impl and come back canonical.
// to_json throws ModelError for a non-finite number (a producer bug: JSON cannot hold it).
Record record_from_json(const nlohmann::json& j, const SourceLocation& where);

// Reads a whole .jsonl file (blank lines allowed). Throws InputError on the first bad line.
std::vector<Record> read_measurements(const std::string& path);
// The same over text already in memory (`label` names it in messages; the fuzz target uses this).
std::vector<Record> read_measurements_string(const std::string& text, const std::string& label);
// Writes records as JSON Lines, one per line, deterministic key order (nlohmann sorts keys).
std::string to_jsonl(const std::vector<Record>& records);

// "env", "iso_gemm", "iso_coll", "c3", "iso_copy", "program" or "fused_step".
const char* kind_of(const Record& r);
// Shortest text that reads back as exactly `v` ("0.1", "1e+300"), independent of locale.
std::string format_double(double v);

}  // namespace c3sim::wl

// Optional measurement-state fields live in each record's free-form `extra` object (readers
// accept any keys there). Three of an iso_coll record's are read and checked, and calibrate uses
// them: extra.channels, extra.algorithm, extra.protocol (IsoCollRecord). Nothing in c3sim's fit
// depends on the others:
//   extra.clocks (c3bench iso_gemm, iso_coll, c3 records; absent where no clock source):
//     {"sm_mhz_before": [...], "sm_mhz_after": [...], "power_w_after": [...],
//      "event_reasons_after": [...]}, one value per timed trial in the order run: lowest SM
//     clock over the GPUs just before / after the trial, highest board power after it, NVML
//     clocks-event reasons or-ed over the GPUs (0x4 software power cap). hardware/hip/README.md.
//   env details.trial_conditioning: "idle_ms=..,spin_ms=..,order=rotate|fixed" (how every timed
//     trial was started); details.clock_probe: "nvml" or why clocks are absent.
