#include "workloads/paper_catalog.h"

#include <cmath>

#include <fmt/format.h>

namespace c3sim::wl {

namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;
constexpr std::int64_t kBf16 = 2;

// x GiB for the synthetic sizes, which the paper prints as round binary values; `quarters`
// keeps 2.5G and 26.5G exact in integers.
constexpr std::int64_t quarter_gib(std::int64_t quarters) { return quarters * kGiB / 4; }

// The LLaMA sizes are weight matrices (REFERENCE.md): printed rounded, so derive them from the
// matrix, not from the label. 1.63G is 16384 x 53248 x 2 B = 1.625 GiB.
constexpr std::int64_t k896M = 8192LL * 57344 * kBf16;     // LLaMA-70B gate+up weight
constexpr std::int64_t k3_25G = 16384LL * 106496 * kBf16;  // LLaMA-405B gate+up weight
constexpr std::int64_t k1_63G = 16384LL * 53248 * kBf16;   // LLaMA-405B down weight
constexpr std::int64_t k512M = 16384LL * 16384 * kBf16;    // LLaMA-405B attention output weight
static_assert(k896M == 896 * kMiB && k3_25G == quarter_gib(13) && k512M == 512 * kMiB);

Gemm table1_row(const char* tag, std::int64_t m, std::int64_t n, std::int64_t k, const char* source) {
  Gemm g;
  g.tag = tag;
  g.m = m;
  g.n = n;
  g.k = k;
  g.dtype = Dtype::bf16;
  g.source = source;
  return g;
}

C3Combination row(const char* gemm_tag, const char* size_label, std::int64_t bytes, const char* source,
                  Taxonomy taxonomy) {
  return C3Combination{
      fmt::format("{}_{}", gemm_tag, size_label), gemm_tag, size_label, bytes, source, taxonomy};
}

}  // namespace

const std::vector<Gemm>& table1_gemms() {
  static const std::vector<Gemm> rows{
      table1_row("cb1", 8192, 8192, 8192, "LLaMA-70B"),
      table1_row("cb2", 16384, 8192, 16384, "LLaMA-405B"),
      table1_row("cb3", 16384, 16384, 8192, "LLaMA-405B"),
      table1_row("cb4", 18432, 8192, 16384, "LLaMA-405B"),
      table1_row("cb5", 106496, 8192, 16384, "LLaMA-405B"),
      table1_row("mb1", 8192, 57344, 8192, "LLaMA-70B"),
      table1_row("mb2", 16384, 106496, 8192, "LLaMA-405B"),
  };
  return rows;
}

const std::vector<C3Combination>& table2_combinations() {
  using T = Taxonomy;
  static const std::vector<C3Combination> rows{
      row("mb1", "896M", k896M, "LLaMA-70B", T::g_long),
      row("mb2", "3.25G", k3_25G, "LLaMA-405B", T::g_long),
      row("mb1", "4G", quarter_gib(16), "synthetic", T::g_long),
      row("mb1", "6G", quarter_gib(24), "synthetic", T::g_long),
      row("cb3", "512M", k512M, "LLaMA-405B", T::g_long),
      row("cb4", "512M", k512M, "LLaMA-405B", T::g_long),
      row("cb5", "1.63G", k1_63G, "LLaMA-405B", T::g_long),
      row("cb4", "1G", quarter_gib(4), "synthetic", T::g_long),
      row("mb1", "13G", quarter_gib(52), "synthetic", T::c_long),
      row("cb2", "3.25G", k3_25G, "LLaMA-405B", T::c_long),
      row("cb4", "2.5G", quarter_gib(10), "synthetic", T::c_long),
      row("cb1", "896M", k896M, "LLaMA-70B", T::c_long),
      row("cb5", "20G", quarter_gib(80), "synthetic", T::c_long),
      row("mb2", "26.5G", quarter_gib(106), "synthetic", T::gc_equal),
      row("cb5", "13G", quarter_gib(52), "synthetic", T::gc_equal),
  };
  return rows;
}

Scenario make_paper_scenario(const C3Combination& combination, CollectiveOp op) {
  const std::optional<Gemm> gemm = find_paper_gemm(combination.gemm_tag);
  if (!gemm) throw ModelError(fmt::format("catalog: no Table I GEMM '{}'", combination.gemm_tag));
  Scenario s;
  s.name = fmt::format("{}_{}", combination.tag, short_name(op));
  s.tag = combination.tag;
  s.source = combination.source;
  s.paper_taxonomy = combination.taxonomy;
  s.gpus = kPaperGpus;
  s.gemm = *gemm;
  s.collective.op = op;
  s.collective.bytes = combination.bytes;
  s.collective.impl = CollectiveImpl::cu;  // the paper's baseline is RCCL
  return s;
}

const std::vector<Scenario>& paper_scenarios() {
  static const std::vector<Scenario> all = [] {
    std::vector<Scenario> out;
    for (CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::all_to_all}) {
      for (const C3Combination& c : table2_combinations()) out.push_back(make_paper_scenario(c, op));
    }
    return out;
  }();
  return all;
}

std::string paper_size_label(std::int64_t bytes) {
  constexpr std::int64_t kKiB = 1024;
  const char* suffix = "G";
  std::int64_t unit = kGiB;
  if (bytes < kKiB) return fmt::format("{}B", bytes);
  if (bytes < kMiB) {
    suffix = "K";
    unit = kKiB;
  } else if (bytes < kGiB) {
    suffix = "M";
    unit = kMiB;
  }
  // Dividing by a power of two is exact, so a printed half (1.625) is exactly a half here.
  const double q = static_cast<double>(bytes) / static_cast<double>(unit);
  const int decimals = q >= 100 ? 0 : q >= 10 ? 1 : 2;
  const double scale = std::pow(10.0, decimals);
  std::string text = fmt::format("{:.{}f}", std::floor(q * scale + 0.5) / scale, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text + suffix;
}

std::optional<Gemm> find_paper_gemm(std::string_view tag) {
  for (const Gemm& g : table1_gemms()) {
    if (g.tag == tag) return g;
  }
  return std::nullopt;
}

std::optional<C3Combination> find_paper_combination(std::string_view tag) {
  for (const C3Combination& c : table2_combinations()) {
    if (c.tag == tag) return c;
  }
  return std::nullopt;
}

std::optional<Scenario> find_paper_scenario(std::string_view name) {
  for (const Scenario& s : paper_scenarios()) {
    if (s.name == name) return s;
  }
  return std::nullopt;
}

}  // namespace c3sim::wl
