#include "workloads/nccl_tuning_log.h"

#include <array>
#include <charconv>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "sim/base/errors.h"

namespace c3sim::wl {

namespace {

constexpr std::string_view kMarker = " Bytes -> Algo ";

constexpr std::array<std::pair<std::string_view, CollectiveOp>, 3> kFunctions{{
    {"AllGather", CollectiveOp::all_gather},
    {"ReduceScatter", CollectiveOp::reduce_scatter},
    {"AllReduce", CollectiveOp::all_reduce},
}};

constexpr std::array<std::pair<std::string_view, CollectiveProtocol>, 3> kProtocols{{
    {"LL", CollectiveProtocol::ll},
    {"LL128", CollectiveProtocol::ll128},
    {"SIMPLE", CollectiveProtocol::simple},
}};

// Reads the next whitespace-free word of `s` from `pos`.
std::string_view word(std::string_view s, std::size_t& pos) {
  while (pos < s.size() && s[pos] == ' ') ++pos;
  const std::size_t start = pos;
  while (pos < s.size() && s[pos] != ' ') ++pos;
  return s.substr(start, pos - start);
}

bool expect(std::string_view s, std::size_t& pos, std::string_view text) {
  if (s.substr(pos, text.size()) != text) return false;
  pos += text.size();
  return true;
}

template <typename T>
bool number(std::string_view s, std::size_t& pos, T& out) {
  const auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), out);
  if (ec != std::errc{}) return false;
  pos = static_cast<std::size_t>(end - s.data());
  return true;
}

NcclTuningLine parse_line(std::string_view text, const std::string& file, int line_no) {
  const SourceLocation at{file, line_no, 0};
  const std::size_t marker = text.find(kMarker);
  const std::size_t info = text.rfind("NCCL INFO ", marker);
  if (info == std::string_view::npos) throw InputError(at, "NCCL INFO", "a tuning line without 'NCCL INFO'");
  std::size_t pos = info + std::string_view("NCCL INFO ").size();
  NcclTuningLine l;
  l.line = line_no;
  // "<Function>: <bytes> Bytes -> Algo <ALGO> proto <PROTO> channel{Lo..Hi}={<lo>..<hi>}"
  std::string_view function = word(text, pos);
  if (function.size() < 2 || function.back() != ':')
    throw InputError(at, "function",
                     fmt::format("expected '<Function>:' before the bytes, got '{}'", function));
  function.remove_suffix(1);
  l.function = std::string(function);
  for (const auto& [name, op] : kFunctions) {
    if (function == name) l.op = op;
  }
  while (pos < text.size() && text[pos] == ' ') ++pos;
  if (!number(text, pos, l.bytes) || l.bytes < 0 || !expect(text, pos, kMarker))
    throw InputError(at, "Bytes", "expected '<bytes> Bytes -> Algo'");
  l.nccl_algorithm = std::string(word(text, pos));
  if (l.nccl_algorithm == "RING") l.algorithm = CollectiveAlgorithm::ring;
  if (l.nccl_algorithm == "TREE") l.algorithm = CollectiveAlgorithm::tree;
  if (l.nccl_algorithm.empty()) throw InputError(at, "Algo", "the algorithm is missing");
  if (word(text, pos) != "proto")
    throw InputError(at, "proto", "expected 'proto <PROTOCOL>' after the algorithm");
  const std::string_view proto = word(text, pos);
  bool known = false;
  for (const auto& [name, p] : kProtocols) {
    if (proto == name) {
      l.protocol = p;
      known = true;
    }
  }
  if (!known) throw InputError(at, "proto", fmt::format("unknown protocol '{}' (LL, LL128, SIMPLE)", proto));
  while (pos < text.size() && text[pos] == ' ') ++pos;
  int lo = 0;
  int hi = 0;
  if (!expect(text, pos, "channel{Lo..Hi}={") || !number(text, pos, lo) || !expect(text, pos, "..") ||
      !number(text, pos, hi) || !expect(text, pos, "}") || lo < 0 || hi < lo) {
    throw InputError(at, "channel", "expected 'channel{Lo..Hi}={<lo>..<hi>}' with lo <= hi");
  }
  l.channels = hi - lo + 1;
  return l;
}

}  // namespace

std::vector<NcclTuningLine> parse_nccl_tuning_log(const std::string& text, const std::string& file) {
  std::vector<NcclTuningLine> out;
  std::string_view rest(text);
  int line_no = 0;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find(kMarker) == std::string_view::npos) continue;
    out.push_back(parse_line(line, file, line_no));
  }
  return out;
}

std::string nccl_log_summary(const NcclLogMatch& m) {
  return fmt::format(
      "NCCL tuning log: {} of {} collectives matched (algorithm, protocol, channels), {} unmatched (left to "
      "c3sim's tuner), {} with an algorithm c3sim does not model; {} tuning lines",
      m.matched, m.matched + m.unmatched, m.unmatched, m.algorithm_unmodelled, m.lines);
}

std::int64_t nccl_logged_bytes(CollectiveOp op, std::int64_t bytes, int gpus) {
  // NCCL's count is per rank for an all-gather (the send count); c3sim sizes it by its output.
  return op == CollectiveOp::all_gather && gpus > 0 ? bytes / gpus : bytes;
}

NcclLogMatch apply_nccl_tuning(std::vector<ProgramKernel>& kernels, int gpus,
                               const std::vector<NcclTuningLine>& lines) {
  NcclLogMatch m;
  m.lines = static_cast<int>(lines.size());
  std::size_t next = 0;
  for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
    ProgramKernel& k = kernels[ki];
    if (k.kind != KernelKind::collective || k.collective.impl != CollectiveImpl::cu) continue;
    Collective& c = k.collective;
    const std::int64_t logged = nccl_logged_bytes(c.op, c.bytes, gpus);
    std::size_t i = next;
    while (i < lines.size() && !(lines[i].op == c.op && lines[i].bytes == logged)) ++i;
    if (i == lines.size()) {
      ++m.unmatched;
      continue;
    }
    const NcclTuningLine& l = lines[i];
    next = i + 1;
    ++m.matched;
    m.matched_kernels.push_back(ki);
    if (l.algorithm && algorithm_runs(*l.algorithm, c.op)) {
      c.algorithm = l.algorithm;
    } else {
      ++m.algorithm_unmodelled;
    }
    c.protocol = l.protocol;
    c.channels = l.channels;
  }
  return m;
}

}  // namespace c3sim::wl
