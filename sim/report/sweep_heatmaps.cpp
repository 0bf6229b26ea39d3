#include "sim/report/sweep_heatmaps.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

namespace c3sim::report {

namespace {

using nlohmann::json;

struct Variant {
  std::string name;  // empty when the sweep named it itself ("v<index>")
  json settings;     // key -> value text
};

// The sweep's variants by index, in index order (the sweep file's order).
std::map<int, Variant> sweep_variants(const std::vector<const wl::C3Record*>& runs) {
  std::map<int, Variant> out;
  for (const auto* c : runs) {
    if (!c->extra.contains("variant")) continue;
    const json& v = c->extra["variant"];
    const int index = v.value("index", 0);
    if (out.contains(index)) continue;
    std::string name = v.value("name", "");
    if (name == fmt::format("v{}", index)) name.clear();  // sweep_spec's name for an unnamed variant
    out.emplace(index, Variant{name, v.value("settings", json::object())});
  }
  return out;
}

std::string text_of(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string short_key(const std::string& key) {
  const auto dot = key.rfind('.');
  return key.substr(dot == std::string::npos ? 0 : dot + 1);
}

// Where each variant sits: row and column indices, with their labels in first-appearance order.
struct Layout {
  std::vector<std::string> column_keys;
  std::vector<std::string> rows, columns;
  std::map<int, std::pair<std::size_t, std::size_t>> cell;  // variant index -> (row, column)
};

std::size_t slot(std::vector<std::string>& ids, std::vector<std::string>& labels, const std::string& id,
                 const std::string& label) {
  const auto it = std::find(ids.begin(), ids.end(), id);
  if (it != ids.end()) return static_cast<std::size_t>(it - ids.begin());
  ids.push_back(id);
  labels.push_back(label);
  return ids.size() - 1;
}

Layout layout_with(const std::map<int, Variant>& variants, const std::vector<std::string>& column_keys,
                   const std::map<std::string, std::set<std::string>>& values) {
  Layout out;
  out.column_keys = column_keys;
  const auto is_column = [&](const std::string& k) {
    return std::find(column_keys.begin(), column_keys.end(), k) != column_keys.end();
  };
  std::vector<std::string> row_ids, column_ids;
  for (const auto& [index, v] : variants) {
    std::string row_id = v.name + "\n", row_label, column_label;
    for (const auto& [k, val] : v.settings.items()) {
      if (is_column(k)) continue;
      row_id += k + "=" + val.dump() + "\n";
      // Unnamed rows are told apart by the settings that differ between variants.
      if (values.at(k).size() >= 2)
        row_label += (row_label.empty() ? "" : ", ") + short_key(k) + "=" + text_of(val);
    }
    // Values only, in column_keys order: the column title names the keys, and "key=value" pairs
    // overran the cells (a 60-pixel cell under "submit_latency=20 us, engines=14").
    for (const auto& k : column_keys)
      column_label += (column_label.empty() ? "" : ", ") + text_of(v.settings[k]);
    if (column_keys.empty()) column_label = "all";
    if (!v.name.empty()) row_label = v.name;
    if (row_label.empty()) row_label = "base";
    out.cell[index] = {slot(row_ids, out.rows, row_id, row_label),
                       slot(column_ids, out.columns, column_label, column_label)};
  }
  return out;
}

Layout layout_of(const std::map<int, Variant>& variants) {
  std::map<std::string, std::set<std::string>> values;
  std::map<std::string, std::size_t> present;
  for (const auto& [index, v] : variants) {
    for (const auto& [k, val] : v.settings.items()) {
      values[k].insert(val.dump());
      ++present[k];
    }
  }
  std::vector<std::string> column_keys;
  for (const auto& [k, n] : present) {
    if (n == variants.size() && values[k].size() >= 2) column_keys.push_back(k);
  }
  Layout layout = layout_with(variants, column_keys, values);
  if (layout.rows.size() == 1 && column_keys.size() >= 2) {
    column_keys.erase(column_keys.begin());
    layout = layout_with(variants, column_keys, values);
  }
  return layout;
}

// The fastest CU-policy and engine-policy C3 times of one scenario in one cell.
struct Best {
  std::optional<double> cu, engine;
};

void keep_min(std::optional<double>& slot, double t) { slot = slot ? std::min(*slot, t) : t; }

struct Geomean {
  double log_sum = 0;
  int n = 0;
  void add(double ratio) {
    log_sum += std::log(ratio);
    ++n;
  }
  [[nodiscard]] json value() const { return n == 0 ? json(nullptr) : json(std::exp(log_sum / n)); }
};

}  // namespace

std::size_t sweep_variant_count(const std::vector<const wl::C3Record*>& runs) {
  return sweep_variants(runs).size();
}

json sweep_heatmaps(const std::vector<const wl::C3Record*>& runs) {
  const std::map<int, Variant> variants = sweep_variants(runs);
  if (variants.empty()) return nullptr;
  const Layout layout = layout_of(variants);
  const std::size_t rows = layout.rows.size(), columns = layout.columns.size();
  // [row][column] -> scenario -> best times; std::map keeps scenarios in one order.
  std::vector<std::vector<std::map<std::string, Best>>> best(
      rows, std::vector<std::map<std::string, Best>>(columns));
  for (const auto* c : runs) {
    if (!c->extra.contains("variant")) continue;
    const auto [r, col] = layout.cell.at(c->extra["variant"].value("index", 0));
    Best& b = best[r][col][c->scenario];
    keep_min(c->impl == "cu" ? b.cu : b.engine, c->time_us);
  }
  json offload_ratio = json::array(), wins = json::array(), counted = json::array();
  json gain_ratio = json::array(), gain_counted = json::array();
  for (std::size_t r = 0; r < rows; ++r) {
    json o_row = json::array(), w_row = json::array(), n_row = json::array();
    json g_row = json::array(), gn_row = json::array();
    for (std::size_t col = 0; col < columns; ++col) {
      Geomean offload, gain;
      int w = 0;
      for (const auto& [scenario, b] : best[r][col]) {
        if (!b.engine) continue;
        if (b.cu) {
          offload.add(*b.cu / *b.engine);
          w += *b.engine < *b.cu ? 1 : 0;
        }
        const auto base = best[0][col].find(scenario);
        if (base != best[0][col].end() && base->second.engine) gain.add(*base->second.engine / *b.engine);
      }
      o_row.push_back(offload.value());
      w_row.push_back(offload.n == 0 ? json(nullptr) : json(w));
      n_row.push_back(offload.n);
      g_row.push_back(gain.value());
      gn_row.push_back(gain.n);
    }
    offload_ratio.push_back(o_row);
    wins.push_back(w_row);
    counted.push_back(n_row);
    gain_ratio.push_back(g_row);
    gain_counted.push_back(gn_row);
  }
  std::string column_title;
  for (const auto& k : layout.column_keys) column_title += (column_title.empty() ? "" : ", ") + k;
  return json{{"rows", layout.rows},
              {"columns", layout.columns},
              {"column_title", column_title.empty() ? "all variants" : column_title},
              {"baseline", layout.rows.front()},
              {"offload", {{"ratio", offload_ratio}, {"wins", wins}, {"scenarios", counted}}},
              {"gain", {{"ratio", gain_ratio}, {"scenarios", gain_counted}}}};
}

}  // namespace c3sim::report
