#include "workloads/workload_yaml_fields.h"

#include <cmath>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/base/units.h"
#include "workloads/input_limits.h"
#include "workloads/paper_catalog.h"

namespace c3sim::wl {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::int64_t positive_integer(StrictMap& m, const std::string& key, std::int64_t max) {
  const std::int64_t v = m.integer(key);
  if (v <= 0) m.fail(key, fmt::format("must be positive, got {}", v));
  if (v > max) m.fail(key, fmt::format("must be at most {}, got {}", max, v));
  return v;
}

std::string nonempty_string(StrictMap& m, const std::string& key) {
  std::string s = m.string(key);
  if (s.empty()) m.fail(key, "must not be empty");
  return s;
}

std::int64_t byte_count(StrictMap& m, const std::string& key, BoundInMessage bound) {
  const std::string text = m.string(key);
  double value = 0;
  if (all_digits(text)) {
    // More than 16 digits is over the bound and might not fit stoll.
    if (text.size() > 16)
      m.fail(key, fmt::format("'{}' is too large (at most {} bytes)", text, kMaxCollectiveBytes));
    value = static_cast<double>(std::stoll(text));
  } else {
    std::string why;
    const std::optional<double> q = parse_quantity(text, Dimension::bytes, &why);
    if (!q) m.fail(key, why);
    value = *q;
  }
  if (!(value > 0)) m.fail(key, fmt::format("must be positive, got '{}'", text));
  if (value > static_cast<double>(kMaxCollectiveBytes)) {
    m.fail(key, bound == BoundInMessage::named
                    ? fmt::format("'{}' is too large (at most {} bytes)", text, kMaxCollectiveBytes)
                    : fmt::format("'{}' is too large", text));
  }
  if (value != std::floor(value)) m.fail(key, fmt::format("'{}' is not a whole number of bytes", text));
  return static_cast<std::int64_t>(value);
}

std::string byte_count_text(std::int64_t bytes) {
  constexpr std::int64_t kKiB = 1024;
  for (auto [unit, name] :
       {std::pair{kKiB * kKiB * kKiB, "GiB"}, std::pair{kKiB * kKiB, "MiB"}, std::pair{kKiB, "KiB"}}) {
    if (bytes >= unit && bytes % (unit / 64) == 0) {
      return fmt::format("{} {}", static_cast<double>(bytes) / static_cast<double>(unit), name);
    }
  }
  return fmt::format("{}", bytes);
}

Gemm gemm_field(StrictMap& m, const GemmCheck& check) {
  const YAML::Node node = m.raw("gemm");
  if (!node) m.fail("gemm", "required key is missing");
  if (node.IsScalar()) {
    const std::optional<Gemm> g = find_paper_gemm(node.Scalar());
    if (!g) m.fail("gemm", fmt::format("'{}' is not a Table I tag (cb1..cb5, mb1, mb2)", node.Scalar()));
    return *g;
  }
  if (!node.IsMap()) m.fail("gemm", "expected a Table I tag or a mapping {m, n, k, dtype}");
  StrictMap g = m.map("gemm");
  Gemm gemm;
  gemm.tag = g.optional_string("tag").value_or("");
  gemm.m = positive_integer(g, "m", kMaxGemmDim);
  gemm.n = positive_integer(g, "n", kMaxGemmDim);
  gemm.k = positive_integer(g, "k", kMaxGemmDim);
  if (auto d = g.optional_string("dtype")) {
    const std::optional<Dtype> dtype = parse_dtype(*d);
    if (!dtype) g.fail("dtype", fmt::format("unknown dtype '{}' (bf16, fp16, fp8, fp32, tf32)", *d));
    gemm.dtype = *dtype;
  }
  gemm.source = g.optional_string("source").value_or("");
  g.finish();
  // Every file that names a GEMM shape (scenario, program, sweep) gets the same output bound.
  check_gemm_shape(gemm.m, gemm.n, gemm.k, g.location("n"), g.path());
  if (check) check(gemm, g);
  return gemm;
}

CollectiveField collective_field(StrictMap c, std::int64_t max_workgroups, BoundInMessage bound) {
  CollectiveField out;
  const std::string op = c.string("op");
  const std::optional<CollectiveOp> parsed_op = parse_collective_op(op);
  if (!parsed_op) {
    c.fail("op",
           fmt::format("unknown collective '{}' (all_gather, all_to_all, reduce_scatter, all_reduce)", op));
  }
  out.collective.op = *parsed_op;
  out.collective.bytes = byte_count(c, "bytes", bound);
  out.bytes_location = c.location("bytes");
  out.bytes_key = c.qualified("bytes");
  if (auto impl = c.optional_string("impl")) {
    const std::optional<CollectiveImpl> parsed = parse_collective_impl(*impl);
    if (!parsed) c.fail("impl", fmt::format("unknown implementation '{}' (cu, dma, vendor_zero_cta)", *impl));
    out.collective.impl = *parsed;
  }
  if (c.has("max_workgroups"))
    out.collective.max_workgroups = static_cast<int>(positive_integer(c, "max_workgroups", max_workgroups));
  out.collective.in_place = c.optional_boolean("in_place").value_or(false);
  if (auto algorithm = c.optional_string("algorithm")) {
    const std::optional<CollectiveAlgorithm> parsed = parse_collective_algorithm(*algorithm);
    if (!parsed) c.fail("algorithm", fmt::format("unknown algorithm '{}' (ring, tree, direct)", *algorithm));
    if (!algorithm_runs(*parsed, out.collective.op)) {
      c.fail("algorithm", fmt::format("{} does not run as {} ({})", to_string(out.collective.op), *algorithm,
                                      algorithms_of(out.collective.op)));
    }
    out.collective.algorithm = *parsed;
  }
  if (auto protocol = c.optional_string("protocol")) {
    const std::optional<CollectiveProtocol> parsed = parse_collective_protocol(*protocol);
    if (!parsed) c.fail("protocol", fmt::format("unknown protocol '{}' (ll, ll128, simple)", *protocol));
    out.collective.protocol = *parsed;
  }
  if (c.has("channels"))
    out.collective.channels = static_cast<int>(positive_integer(c, "channels", max_workgroups));
  c.finish();
  return out;
}

void emit_collective_field(YAML::Emitter& out, const Collective& c) {
  out << YAML::Key << "collective" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "op" << YAML::Value << to_string(c.op);
  out << YAML::Key << "bytes" << YAML::Value << byte_count_text(c.bytes);
  out << YAML::Key << "impl" << YAML::Value << to_string(c.impl);
  if (c.max_workgroups) out << YAML::Key << "max_workgroups" << YAML::Value << *c.max_workgroups;
  if (c.in_place) out << YAML::Key << "in_place" << YAML::Value << true;
  if (c.algorithm) out << YAML::Key << "algorithm" << YAML::Value << to_string(*c.algorithm);
  if (c.protocol) out << YAML::Key << "protocol" << YAML::Value << to_string(*c.protocol);
  if (c.channels) out << YAML::Key << "channels" << YAML::Value << *c.channels;
  out << YAML::EndMap;
}

}  // namespace c3sim::wl
