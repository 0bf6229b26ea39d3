#include "hardware/gemm_library.h"

#include <charconv>
#include <set>

#include <fmt/format.h>

#include "sim/base/errors.h"

namespace c3sim::hw {

namespace {

// "8192x8192x8192" -> {8192, 8192, 8192}; nullopt unless three positive integers joined by 'x'.
std::optional<std::tuple<std::int64_t, std::int64_t, std::int64_t>> parse_shape(std::string_view text) {
  std::int64_t v[3] = {0, 0, 0};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    const auto [next, ec] = std::from_chars(p, end, v[i]);
    if (ec != std::errc() || v[i] <= 0) return std::nullopt;
    p = next;
    if (i < 2) {
      if (p == end || *p != 'x') return std::nullopt;
      ++p;
    }
  }
  if (p != end) return std::nullopt;
  return std::tuple{v[0], v[1], v[2]};
}

// Four significant digits for the efficiency, the way calibrate rounds every fitted value.
std::string short_number(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

void GemmLibrary::set(const GemmLibraryEntry& e) {
  entries_[Key{e.m, e.n, e.k, static_cast<int>(e.dtype)}] = e;
}

const GemmLibraryEntry* GemmLibrary::find(std::int64_t m, std::int64_t n, std::int64_t k, Dtype dtype) const {
  const auto it = entries_.find(Key{m, n, k, static_cast<int>(dtype)});
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<GemmLibraryEntry> GemmLibrary::entries() const {
  std::vector<GemmLibraryEntry> out;
  out.reserve(entries_.size());
  for (const auto& [key, e] : entries_) out.push_back(e);
  return out;
}

void parse_gemm_library(StrictMap& root, GemmLibrary& into) {
  if (!root.has("gemm_library")) return;
  const std::vector<YAML::Node> items = root.sequence("gemm_library");
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, int>> seen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string path = fmt::format("gemm_library[{}]", i);
    if (!items[i].IsMap()) {
      throw InputError(location_of(items[i], root.file()), path,
                       "expected a mapping {shape: MxNxK, efficiency: ...}");
    }
    StrictMap m(items[i], root.file(), path);
    GemmLibraryEntry e;
    const std::string shape = m.string("shape");
    const auto dims = parse_shape(shape);
    if (!dims) {
      throw InputError(m.location("shape"), m.qualified("shape"),
                       fmt::format("'{}' is not a GEMM shape MxNxK of positive integers", shape));
    }
    std::tie(e.m, e.n, e.k) = *dims;
    if (const auto d = m.optional_string("dtype")) {
      const auto parsed = parse_dtype(*d);
      if (!parsed)
        throw InputError(m.location("dtype"), m.qualified("dtype"), fmt::format("unknown dtype '{}'", *d));
      e.dtype = *parsed;
    }
    e.efficiency = m.number("efficiency");
    if (!(e.efficiency > 0 && e.efficiency <= 1)) {
      throw InputError(m.location("efficiency"), m.qualified("efficiency"),
                       fmt::format("{} is outside (0, 1]: a share of the peak FLOP rate", e.efficiency));
    }
    e.time_alone = m.optional_quantity("time_alone", Dimension::time).value_or(0.0);
    if (e.time_alone < 0) {
      throw InputError(m.location("time_alone"), m.qualified("time_alone"), "a time cannot be negative");
    }
    e.records = m.optional_integer("records").value_or(0);
    if (e.records < 0)
      throw InputError(m.location("records"), m.qualified("records"), "a count cannot be negative");
    m.finish();
    if (!seen.emplace(e.m, e.n, e.k, static_cast<int>(e.dtype)).second) {
      throw InputError(m.location("shape"), m.qualified("shape"),
                       fmt::format("{} {} is listed twice", shape, to_string(e.dtype)));
    }
    into.set(e);
  }
}

std::string gemm_library_yaml(const GemmLibrary& lib) {
  if (lib.empty()) return "";
  std::string out = "gemm_library:\n";
  for (const GemmLibraryEntry& e : lib.entries()) {
    out += fmt::format("  - {{shape: {}x{}x{}, dtype: {}, efficiency: {}", e.m, e.n, e.k, to_string(e.dtype),
                       short_number(e.efficiency));
    if (e.time_alone > 0) out += fmt::format(", time_alone: {:.6g} us", e.time_alone * 1e6);
    if (e.records > 0) out += fmt::format(", records: {}", e.records);
    out += "}\n";
  }
  return out;
}

}  // namespace c3sim::hw
