#include "models/paper/paper_beside.h"

#include <algorithm>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "models/paper/paper_report.h"

namespace c3sim::models {

namespace {

using Extract = std::function<std::optional<double>(const PaperReport&)>;

struct Quantity {
  const char* id;
  const char* unit;
  Extract model;
};

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

std::optional<double> percent(const PaperReport& r, const std::string& policy) {
  const auto it = r.summary.find(policy);
  if (it == r.summary.end()) return std::nullopt;
  return it->second.mean_percent_of_ideal;
}

const PolicySummary* by_op(const PaperReport& r, const std::string& policy, const std::string& op) {
  const auto p = r.by_collective.find(policy);
  if (p == r.by_collective.end()) return nullptr;
  const auto o = p->second.find(op);
  return o == p->second.end() ? nullptr : &o->second;
}

Extract percent_of(const std::string& policy) {
  return [policy](const PaperReport& r) { return percent(r, policy); };
}

Extract percent_of(const std::string& policy, const std::string& op) {
  return [policy, op](const PaperReport& r) -> std::optional<double> {
    const PolicySummary* s = by_op(r, policy, op);
    if (s == nullptr) return std::nullopt;
    return s->mean_percent_of_ideal;
  };
}

Extract speedup_of(const std::string& policy, const std::string& op) {
  return [policy, op](const PaperReport& r) -> std::optional<double> {
    const PolicySummary* s = by_op(r, policy, op);
    if (s == nullptr) return std::nullopt;
    return s->mean_speedup;
  };
}

std::optional<double> max_speedup(const PaperReport& r, const std::string& policy) {
  std::optional<double> best;
  for (const C3Result& run : r.runs) {
    if (run.policy == policy) best = std::max(best.value_or(0.0), run.speedup());
  }
  return best;
}

// The ideal speedups of Figure 7: min, mean or max over the scenarios.
Extract ideal(const char* which) {
  const std::string w = which;
  return [w](const PaperReport& r) -> std::optional<double> {
    if (r.fig7.empty()) return std::nullopt;
    if (w == "mean") return r.mean_ideal;
    const auto [lo, hi] = std::minmax_element(
        r.fig7.begin(), r.fig7.end(), [](const Fig7Row& a, const Fig7Row& b) { return a.ideal < b.ideal; });
    return w == "min" ? lo->ideal : hi->ideal;
  };
}

// The largest DMA/CU time ratio of Figure 9 over the rows `keep` selects.
Extract dma_over_cu(const std::function<bool(const Fig9Row&)>& keep) {
  return [keep](const PaperReport& r) -> std::optional<double> {
    std::optional<double> most;
    for (const Fig9Row& row : r.fig9) {
      if (keep(row)) most = std::max(most.value_or(0.0), row.dma_us / row.cu_us);
    }
    return most;
  };
}

Extract default_cus(wl::CollectiveOp op) {
  return [op](const PaperReport& r) -> std::optional<double> {
    for (const Fig5Coll& c : r.fig5_coll) {
      if (c.op == op)
        return static_cast<double>(c.default_cus);  // the smallest size (rows come in size order)
    }
    return std::nullopt;
  };
}

// Figure 6 names a collective's rows "<short op>_<size>"; the ratio of the two collectives' LLC
// bandwidths at each size they share, averaged over those sizes.
std::optional<double> all_gather_over_all_to_all_llc(const PaperReport& r) {
  const std::string ag = std::string(wl::short_name(wl::CollectiveOp::all_gather)) + "_";
  const std::string a2a = std::string(wl::short_name(wl::CollectiveOp::all_to_all)) + "_";
  double sum = 0;
  int n = 0;
  for (const Fig6Row& g : r.fig6) {
    if (g.kernel.rfind(ag, 0) != 0) continue;
    const std::string other = a2a + g.kernel.substr(ag.size());
    for (const Fig6Row& a : r.fig6) {
      if (a.kernel == other && a.llc_bw_gbps > 0) {
        sum += g.llc_bw_gbps / a.llc_bw_gbps;
        ++n;
      }
    }
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

std::optional<double> when_heuristics(const PaperReport& r, double v) {
  if (r.heuristics.empty()) return std::nullopt;
  return v;
}

const std::vector<Quantity>& quantities() {
  static const std::vector<Quantity> kQuantities = {
      {"fig5.default_cus.all_gather", "CUs", default_cus(wl::CollectiveOp::all_gather)},
      {"fig5.default_cus.all_to_all", "CUs", default_cus(wl::CollectiveOp::all_to_all)},
      {"fig6.llc_bw.all_gather_over_all_to_all", "ratio", all_gather_over_all_to_all_llc},
      {"fig7.ideal_speedup.mean", "x", ideal("mean")},
      {"fig7.ideal_speedup.min", "x", ideal("min")},
      {"fig7.ideal_speedup.max", "x", ideal("max")},
      {"fig8.percent_of_ideal.base", "points", percent_of("base")},
      {"fig8.percent_of_ideal.base.all_gather", "points", percent_of("base", "all_gather")},
      {"fig8.percent_of_ideal.base.all_to_all", "points", percent_of("base", "all_to_all")},
      {"fig8.percent_of_ideal.sp", "points", percent_of("sp")},
      {"fig8.percent_of_ideal.sp.all_gather", "points", percent_of("sp", "all_gather")},
      {"fig8.percent_of_ideal.sp.all_to_all", "points", percent_of("sp", "all_to_all")},
      {"fig8.percent_of_ideal.rp_best", "points", percent_of("rp_best")},
      {"fig8.speedup.base", "x",
       [](const PaperReport& r) -> std::optional<double> {
         const auto it = r.summary.find("base");
         if (it == r.summary.end()) return std::nullopt;
         return it->second.mean_speedup;
       }},
      {"fig10.percent_of_ideal.c3_best", "points", percent_of("c3_best")},
      {"fig10.percent_of_ideal.dma", "points", percent_of("dma")},
      {"fig10.percent_of_ideal.dma_rp_best", "points", percent_of("dma_rp_best")},
      {"fig10.speedup.base.all_to_all", "x", speedup_of("base", "all_to_all")},
      {"fig10.speedup.dma.all_to_all", "x", speedup_of("dma", "all_to_all")},
      {"fig10.max_speedup.dma_rp_best", "x",
       [](const PaperReport& r) { return max_speedup(r, "dma_rp_best"); }},
      {"fig9.dma_over_cu.max_below_32MiB", "ratio",
       dma_over_cu([](const Fig9Row& f) { return f.bytes < 32 * kMiB; })},
      {"fig9.dma_over_cu.all_gather_from_128MiB", "ratio", dma_over_cu([](const Fig9Row& f) {
         return f.op == wl::CollectiveOp::all_gather && f.bytes >= 128 * kMiB;
       })},
      {"heuristics.rp_correct", "scenarios",
       [](const PaperReport& r) { return when_heuristics(r, static_cast<double>(r.rp_heuristic_correct)); }},
      {"heuristics.rp_max_loss_pct", "%",
       [](const PaperReport& r) { return when_heuristics(r, r.rp_heuristic_max_loss_pct); }},
  };
  return kQuantities;
}

const Quantity& quantity(const std::string& id) {
  const auto& q = quantities();
  const auto it = std::find_if(q.begin(), q.end(), [&](const Quantity& x) { return id == x.id; });
  if (it == q.end()) throw ModelError(fmt::format("paper value '{}' has no reproduced quantity", id));
  return *it;
}

}  // namespace

std::string paper_value_unit(const std::string& id) { return quantity(id).unit; }

double difference_from_paper(double model, const wl::PaperValue& paper) {
  return model - std::clamp(model, paper.low, paper.high);
}

std::vector<PaperComparison> compare_with_paper(const PaperReport& report,
                                                const std::vector<wl::PaperValue>& values) {
  std::vector<PaperComparison> out;
  out.reserve(values.size());
  for (const wl::PaperValue& v : values) {
    const Quantity& q = quantity(v.id);
    PaperComparison c{v, q.unit, q.model(report), std::nullopt};
    if (c.model) c.difference = difference_from_paper(*c.model, v);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace c3sim::models
