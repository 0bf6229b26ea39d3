// Reading workloads/paper_values.yaml (format in its header comment) with the strict YAML reader.
#include "workloads/paper_values.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/base/strict_yaml.h"

namespace c3sim::wl {

namespace {

PaperValueRead parse_read(StrictMap& m) {
  const std::string s = m.string("read");
  if (s == "stated") return PaperValueRead::stated;
  if (s == "read_off_figure") return PaperValueRead::read_off_figure;
  m.fail("read", fmt::format("must be 'stated' or 'read_off_figure', got '{}'", s));
}

double finite(StrictMap& m, const std::string& key) {
  const double v = m.number(key);
  if (!std::isfinite(v)) m.fail(key, fmt::format("must be a finite number, got {}", v));
  return v;
}

std::string non_empty(StrictMap& m, const std::string& key) {
  std::string s = m.string(key);
  if (s.empty()) m.fail(key, "must not be empty");
  return s;
}

PaperValue parse_value(StrictMap m) {
  PaperValue v;
  v.where = m.location("id");
  v.id = non_empty(m, "id");
  const auto& ids = paper_value_ids();
  if (std::find(ids.begin(), ids.end(), v.id) == ids.end()) {
    m.fail("id",
           fmt::format("unknown id '{}' (workloads/paper_values.h lists the reproduced quantities)", v.id));
  }
  v.figure = non_empty(m, "figure");
  v.section = non_empty(m, "section");
  v.quote = non_empty(m, "quote");
  v.read = parse_read(m);
  if (m.has("value")) {
    if (m.has("low") || m.has("high")) m.fail("value", "give either value or low and high, not both");
    v.low = v.high = finite(m, "value");
  } else {
    if (!m.has("low") && !m.has("high")) m.fail("value", "missing (give value, or low and high for a range)");
    v.low = finite(m, "low");
    v.high = finite(m, "high");
    if (!(v.low < v.high)) m.fail("high", fmt::format("must be above low ({}), got {}", v.low, v.high));
  }
  v.precision = finite(m, "precision");
  if (v.precision < 0) m.fail("precision", fmt::format("must be >= 0, got {}", v.precision));
  v.note = m.optional_string("note").value_or("");
  m.finish();
  return v;
}

std::vector<PaperValue> parse(const YamlDocument& doc) {
  StrictMap root(doc.root, doc.file, "");
  std::vector<PaperValue> out;
  std::map<std::string, int> first_line;
  const std::vector<YAML::Node> items = root.sequence("values");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string path = fmt::format("values[{}]", i);
    if (!items[i].IsMap()) throw InputError(location_of(items[i], doc.file), path, "expected a mapping");
    PaperValue v = parse_value(StrictMap(items[i], doc.file, path));
    const auto [it, fresh] = first_line.emplace(v.id, v.where.line);
    if (!fresh) {
      throw InputError(v.where, path + ".id",
                       fmt::format("id '{}' already given at line {}", v.id, it->second));
    }
    out.push_back(std::move(v));
  }
  root.finish();
  return out;
}

}  // namespace

std::string to_string(PaperValueRead read) {
  return read == PaperValueRead::stated ? "stated" : "read_off_figure";
}

const std::vector<std::string>& paper_value_ids() {
  static const std::vector<std::string> kIds = {
      "fig5.default_cus.all_gather",
      "fig5.default_cus.all_to_all",
      "fig6.llc_bw.all_gather_over_all_to_all",
      "fig7.ideal_speedup.mean",
      "fig7.ideal_speedup.min",
      "fig7.ideal_speedup.max",
      "fig8.percent_of_ideal.base",
      "fig8.percent_of_ideal.base.all_gather",
      "fig8.percent_of_ideal.base.all_to_all",
      "fig8.percent_of_ideal.sp",
      "fig8.percent_of_ideal.sp.all_gather",
      "fig8.percent_of_ideal.sp.all_to_all",
      "fig8.percent_of_ideal.rp_best",
      "fig8.speedup.base",
      "fig10.percent_of_ideal.c3_best",
      "fig10.percent_of_ideal.dma",
      "fig10.percent_of_ideal.dma_rp_best",
      "fig10.speedup.base.all_to_all",
      "fig10.speedup.dma.all_to_all",
      "fig10.max_speedup.dma_rp_best",
      "fig9.dma_over_cu.max_below_32MiB",
      "fig9.dma_over_cu.all_gather_from_128MiB",
      "heuristics.rp_correct",
      "heuristics.rp_max_loss_pct",
  };
  return kIds;
}

std::vector<PaperValue> load_paper_values_from_string(const std::string& text, const std::string& label) {
  return parse(load_yaml_string(text, label));
}

std::vector<PaperValue> load_paper_values_file(const std::string& path) {
  return parse(load_yaml_file(path));
}

std::vector<PaperValue> published_paper_values() {
  return load_paper_values_from_string(std::string(embedded_paper_values_text()),
                                       "workloads/paper_values.yaml");
}

}  // namespace c3sim::wl
