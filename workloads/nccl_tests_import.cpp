#include "workloads/nccl_tests_import.h"

#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "workloads/collective.h"

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

std::optional<int> int_after(const std::vector<std::string>& w, const std::string& key) {
  for (size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == key) return std::atoi(w[i + 1].c_str());
  }
  return std::nullopt;
}

}  // namespace

std::vector<Record> import_nccl_tests(const std::string& text, const std::string& label,
                                      const NcclTestsOptions& options) {
  std::optional<std::string> op = options.op;
  std::optional<int> gpus = options.gpus;
  int size_col = -1, time_col = -1;
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
        if (auto n = int_after(w, "nGpus")) gpus = *n * int_after(w, "nThread").value_or(1);
        if (auto n = int_after(w, "nranks")) gpus = *n;
      }
      // The column header: "#  size  count  type  redop  root  time  algbw  busbw  #wrong ..."
      for (size_t i = 0; i < w.size() && time_col < 0; ++i) {
        if (w[i] == "size") size_col = static_cast<int>(i);
        if (w[i] == "time" && size_col >= 0) time_col = static_cast<int>(i);
      }
      continue;
    }
    if (time_col < 0) continue;  // text before the table (device list, warnings)
    // Data rows have no leading "#": shift the header's indices by one.
    const size_t sc = static_cast<size_t>(size_col - 1), tc = static_cast<size_t>(time_col - 1);
    if (w.size() <= tc) throw InputError(where, "time", "row has fewer columns than the table header");
    char* end = nullptr;
    const long long bytes = std::strtoll(w[sc].c_str(), &end, 10);
    if (*end != '\0' || bytes <= 0) {
      if (line.find("Avg bus bandwidth") != std::string::npos ||
          line.find("Out of bounds") != std::string::npos)
        continue;
      throw InputError(where, "size", fmt::format("'{}' is not a byte count", w[sc]));
    }
    const double t = std::strtod(w[tc].c_str(), &end);
    if (*end != '\0' || !(t > 0))
      throw InputError(where, "time", fmt::format("'{}' is not a time in us", w[tc]));
    if (!op) throw InputError(where, "op", "no 'Collective test starting' line: give the collective (--op)");
    if (!gpus || *gpus < 2) throw InputError(where, "gpus", "no 'nGpus' header: give the GPU count (--gpus)");
    if (!parse_collective_op(*op)) throw InputError(where, "op", fmt::format("unknown collective '{}'", *op));
    IsoCollRecord r;
    r.op = to_string(*parse_collective_op(*op));
    r.bytes = bytes;
    r.impl = "cu";
    r.gpus = *gpus;
    r.time_us = t;
    r.extra = {{"source", "nccl-tests"}};
    out.emplace_back(std::move(r));
  }
  if (out.empty())
    throw InputError(SourceLocation{label, line_no, 0}, "size", "no nccl-tests result table found");
  return out;
}

}  // namespace c3sim::wl
