#include "workloads/nccl_tests_import.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "workloads/collective.h"
#include "workloads/input_limits.h"

namespace c3sim::wl {

namespace {

std::vector<std::string> split_ws(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "all_gather_perf" -> all_gather, "alltoall_perf" -> all_to_all.
std::optional<std::string> op_from_program(std::string name) {
  if (auto p = name.rfind("_perf"); p != std::string::npos) name = name.substr(0, p);
  if (name == "alltoall") name = "all_to_all";
  if (name == "reduce_scatter" || name == "all_gather" || name == "all_reduce" || name == "all_to_all")
    return name;
  return std::nullopt;
}

// A whole non-negative decimal integer (no sign, exponent or trailing text), or nullopt; values
// past `max` are nullopt too, so nothing downstream sees a clamped or wrapped count.
std::optional<std::int64_t> whole_number(const std::string& text, std::int64_t max) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v > max) return std::nullopt;
  return v;
}

// A time as nccl-tests prints it ("%7.2f": digits, a point, digits). "inf", "nan", "1e5", "40."
// (a row cut short) and "-1" are not times.
std::optional<double> printed_time(const std::string& text) {
  const auto point = text.find('.');
  if (point == std::string::npos || point == 0 || point + 1 == text.size()) return std::nullopt;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i != point && (text[i] < '0' || text[i] > '9')) return std::nullopt;
  }
  const double t = std::strtod(text.c_str(), nullptr);
  if (!(t > 0) || !std::isfinite(t)) return std::nullopt;
  return t;
}

std::optional<std::int64_t> int_after(const std::vector<std::string>& w, const std::string& key,
                                      const SourceLocation& where) {
  for (size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] != key) continue;
    const auto v = whole_number(w[i + 1], kMaxGpus);
    if (!v) throw InputError(where, key, fmt::format("'{}' is not a count in 0..{}", w[i + 1], kMaxGpus));
    return v;
  }
  return std::nullopt;
}

}  // namespace

std::vector<Record> import_nccl_tests(const std::string& text, const std::string& label,
                                      const NcclTestsOptions& options) {
  std::optional<std::string> op = options.op;
  std::int64_t gpus = options.gpus.value_or(0);  // 0 = not known yet (a plain value: GCC 12 warns
                                                 // maybe-uninitialized on an optional here)
  int rank_lines = 0;  // "#  Rank  0 Group  0 Pid ...": one per GPU in multi-process runs
  int size_col = -1, time_col = -1, header_cols = 0;
  std::vector<Record> out;
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const SourceLocation where{label, line_no, 0};
    const auto w = split_ws(line);
    if (w.empty()) continue;
    if (w[0] == "#" || w[0].front() == '#') {
      if (auto p = line.find("Collective test starting:"); p != std::string::npos && !options.op) {
        const auto rest = split_ws(line.substr(p + 25));
        if (!rest.empty()) op = op_from_program(rest[0]);
      }
      if (!options.gpus) {
        if (auto n = int_after(w, "nGpus", where)) gpus = *n * int_after(w, "nThread", where).value_or(1);
        if (auto n = int_after(w, "nranks", where)) gpus = *n;
        if (w.size() > 3 && w[0] == "#" && w[1] == "Rank" && w[3] == "Group") ++rank_lines;
      }
      // The column header: "#  size  count  type  redop  root  time  algbw  busbw  #wrong ..."
      // Both columns come from the same line: a "size" in one comment line and a "time" in a later
      // one is no header (a fuzzed log indexed rows past their end that way).
      int line_size_col = -1;
      for (size_t i = 0; i < w.size() && time_col < 0; ++i) {
        if (w[i] == "size") line_size_col = static_cast<int>(i);
        if (w[i] == "time" && line_size_col >= 0) {
          size_col = line_size_col;
          time_col = static_cast<int>(i);
          header_cols = static_cast<int>(w.size());
        }
      }
      continue;
    }
    if (time_col < 0) continue;  // text before the table (device list, warnings)
    if (line.find("Avg bus bandwidth") != std::string::npos ||
        line.find("Out of bounds") != std::string::npos)
      continue;
    // Data rows have no leading "#": shift the header's indices by one. A row with fewer cells
    // than the header was cut short (a log copied while the test ran).
    const size_t sc = static_cast<size_t>(size_col - 1), tc = static_cast<size_t>(time_col - 1);
    if (w.size() + 1 < static_cast<size_t>(header_cols)) {
      throw InputError(where, "time",
                       fmt::format("row has {} columns but the table header {}: the row is cut short",
                                   w.size(), header_cols - 1));
    }
    const auto bytes = whole_number(w[sc], kMaxCollectiveBytes);
    // nccl-tests rounds each size down to whole elements per rank: the smallest sizes of a run
    // with many GPUs print as 0 bytes, a row with nothing to calibrate.
    if (bytes && *bytes == 0) continue;
    if (!bytes) {
      throw InputError(where, "size",
                       fmt::format("'{}' is not a byte count in 1..{}", w[sc], kMaxCollectiveBytes));
    }
    const auto t = printed_time(w[tc]);
    if (!t) throw InputError(where, "time", fmt::format("'{}' is not a time in us (digits.digits)", w[tc]));
    if (!op) throw InputError(where, "op", "no 'Collective test starting' line: give the collective (--op)");
    // Every rank prints a "Rank" line: under mpirun each process reports "nGpus 1", so the rank
    // lines count the GPUs; a log trimmed of its device list keeps the header's count.
    if (!options.gpus) gpus = std::max<std::int64_t>(gpus, rank_lines);
    if (gpus == 0) throw InputError(where, "gpus", "no 'nGpus' header: give the GPU count (--gpus)");
    const std::int64_t gpu_count = gpus;
    check_gpu_count(gpu_count, where, "gpus");
    if (!parse_collective_op(*op)) throw InputError(where, "op", fmt::format("unknown collective '{}'", *op));
    check_collective_bytes(*bytes, gpu_count, 1, where, "size");
    IsoCollRecord r;
    r.op = to_string(*parse_collective_op(*op));
    // nccl-tests prints max(send, receive) bytes, the whole tensor: for a reduce-scatter its input,
    // one block per GPU. A record's bytes are the per-GPU output (measurement.h): one block.
    const bool scatter = *parse_collective_op(*op) == CollectiveOp::reduce_scatter;
    r.bytes = scatter ? *bytes / gpu_count : *bytes;
    r.impl = "cu";
    r.gpus = static_cast<int>(gpu_count);
    r.time_us = *t;
    r.extra = {{"source", "nccl-tests"}};
    out.emplace_back(std::move(r));
  }
  if (out.empty())
    throw InputError(SourceLocation{label, line_no, 0}, "size", "no nccl-tests result table found");
  return out;
}

}  // namespace c3sim::wl
