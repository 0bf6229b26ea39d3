// Every preset parameter with a cited public or committed measurement lies within the tolerance
// (15%) of it, and the presets' predictions of isolated kernels the sources measured do too; the
// citations are data (hardware/citations.yaml). An entry marked known_gap must be OUTSIDE
// the tolerance (fixing it means deleting the mark). Prints one "cite" line per entry, which
// docs/fidelity.sh collects into docs/fidelity.md's table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_loader.h"
#include "models/program/program_simulator.h"
#include "models/run/c3_simulator.h"
#include "sim/base/strict_yaml.h"
#include "workloads/measurement.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

const std::string kRoot = std::string(C3SIM_SOURCE_DIR);

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// `measured` in SI units (dimensionless when the unit is empty).
double measured_si(StrictMap& e, Dimension dim) {
  const double v = e.number("measured");
  const std::string unit = e.string("unit");
  if (unit.empty()) return v;
  std::string why;
  const auto q = parse_quantity(fmt::format("{} {}", v, unit), dim, &why);
  if (!q) e.fail("unit", why);
  return *q;
}

double coll_rate(const std::vector<wl::Record>& records, const std::string& op, std::int64_t bytes,
                 const std::string& config) {
  std::vector<double> rates;
  for (const auto& rec : records) {
    const auto* c = std::get_if<wl::IsoCollRecord>(&rec);
    if (!c || c->op != op || c->bytes != bytes || !c->extra.contains("config") ||
        c->extra["config"] != config) {
      continue;
    }
    rates.push_back(double(c->bytes) / (c->time_us * 1e-6));
  }
  return median(rates);
}

// The value a committed measurement gives for `record`, in the parameter's SI units.
double from_record(StrictMap r, const hw::NodeSpec& spec) {
  const auto records = wl::read_measurements(kRoot + "/hardware/measurements/" + r.string("file"));
  const std::string type = r.string("type");
  double out = std::nan("");
  if (type == "gemm_efficiency") {
    // `tags`: the median over several shapes (one record each per dtype), else the one `tag`.
    std::vector<std::string> tags;
    if (r.has("tags")) {
      for (const YAML::Node& t : r.sequence("tags")) tags.push_back(t.as<std::string>());
    } else {
      tags.push_back(r.string("tag"));
    }
    const std::string dtype_name = r.optional_string("dtype").value_or("bf16");
    const auto dtype = hw::parse_dtype(dtype_name);
    if (!dtype) r.fail("dtype", "unknown dtype");
    const auto cus = r.integer("cus");
    std::vector<double> rates;
    for (const auto& rec : records) {
      const auto* g = std::get_if<wl::IsoGemmRecord>(&rec);
      if (g && g->dtype == dtype_name && std::find(tags.begin(), tags.end(), g->tag) != tags.end() &&
          g->cus == cus && !g->extra.contains("partition")) {
        rates.push_back(2.0 * double(g->m) * double(g->n) * double(g->k) / (g->time_us * 1e-6));
      }
    }
    out = median(rates) / spec.compute.peak_flops.at(*dtype);
  } else if (type == "coll_rate") {
    out = coll_rate(records, r.string("op"), r.integer("bytes"), r.string("config")) * r.number("scale");
  } else if (type == "coll_ratio") {
    // `over_op` (default: op) compares two collectives; `scale` (default 1) turns the ratio of their
    // bytes / time into one of sent bytes.
    const std::string op = r.string("op");
    const auto bytes = r.integer("bytes");
    const std::string over_op = r.optional_string("over_op").value_or(op);
    out = coll_rate(records, op, bytes, r.string("config")) /
          coll_rate(records, over_op, bytes, r.string("over")) * r.optional_number("scale").value_or(1.0);
  } else {
    r.fail("type", "unknown record type");
  }
  r.finish();
  return out;
}

struct Check {
  std::string what;
  double value = 0;     // the preset's parameter or prediction, in `unit`
  double measured = 0;  // in `unit`
  std::string unit;
  std::string source;
  std::optional<std::string> known_gap;
  [[nodiscard]] double error() const { return value / measured - 1.0; }
};

// SI -> the entry's unit, for printing: the unit's own scale.
double in_unit(double si, const std::string& unit, Dimension dim) {
  if (unit.empty()) return si;
  return si / *parse_quantity("1 " + unit, dim, nullptr);
}

class PresetCitations : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    const YamlDocument doc = load_yaml_file(kRoot + "/hardware/citations.yaml");
    StrictMap root(doc.root, doc.file, "");
    tolerance_ = root.number("tolerance");
    std::map<std::string, hw::NodeSpec> presets;
    const auto preset = [&](const std::string& name) -> const hw::NodeSpec& {
      auto it = presets.find(name);
      // A name ending in .yaml is a hardware file relative to the repository root.
      const bool is_file = name.size() > 5 && name.ends_with(".yaml");
      if (it == presets.end())
        it = presets.emplace(name, hw::load_hardware(is_file ? kRoot + "/" + name : name)).first;
      return it->second;
    };
    for (const YAML::Node& n : root.sequence("parameters")) {
      StrictMap e(n, doc.file, "parameters");
      Check c;
      const std::string name = e.string("preset");
      const std::string field = e.string("field");
      hw::NodeSpec spec = preset(name);
      const hw::FieldDef* f = hw::find_field(field);
      if (f == nullptr) e.fail("field", "not a hardware field");
      c.what = fmt::format("{} {}", name, field);
      const double measured = measured_si(e, f->dim);
      c.unit = e.string("unit");
      c.value = in_unit(*std::get<double*>(f->ref(spec)), c.unit, f->dim);
      c.measured = in_unit(measured, c.unit, f->dim);
      (void)e.optional_string("derivation");
      if (auto r = e.optional_map("record")) {
        const double derived = from_record(*r, spec);
        EXPECT_NEAR(derived / measured, 1.0, 0.01)
            << c.what << ": citations.yaml says " << measured << ", the records give " << derived;
      }
      c.source = e.string("source");
      c.known_gap = e.optional_string("known_gap");
      e.finish();
      checks_.push_back(c);
    }
    for (const YAML::Node& n : root.sequence("predictions")) {
      StrictMap e(n, doc.file, "predictions");
      Check c;
      const std::string name = e.string("preset");
      C3Simulator sim(preset(name));
      const std::string kind = e.string("kind");
      if (kind == "iso_gemm") {
        const std::string dtype = e.string("dtype");
        wl::Gemm g{"cited", e.integer("m"), e.integer("n"), e.integer("k"), *hw::parse_dtype(dtype), ""};
        const double t = sim.iso_gemm(g).time_us * 1e-6;
        const double measured = measured_si(e, Dimension::flop_rate);
        c.unit = e.string("unit");
        c.value = in_unit(2.0 * double(g.m) * double(g.n) * double(g.k) / t, c.unit, Dimension::flop_rate);
        c.measured = in_unit(measured, c.unit, Dimension::flop_rate);
        c.what = fmt::format("{} iso_gemm {} {}", name, g.shape_string(), dtype);
      } else if (kind == "iso_coll") {
        wl::Collective coll;
        coll.op = *wl::parse_collective_op(e.string("op"));
        coll.bytes = static_cast<std::int64_t>(e.quantity("bytes", Dimension::bytes));
        coll.impl = wl::CollectiveImpl::cu;
        const auto gpus = static_cast<int>(e.integer("gpus"));
        // workgroups: the library's channels capped (NCCL_MAX_CTAS), as the sweep that measured it.
        std::optional<int> workgroups;
        if (const auto w = e.optional_integer("workgroups")) workgroups = static_cast<int>(*w);
        const double measured = measured_si(e, Dimension::time);
        c.unit = e.string("unit");
        c.value = in_unit(sim.iso_coll(coll, gpus, workgroups).time_us * 1e-6, c.unit, Dimension::time);
        c.measured = in_unit(measured, c.unit, Dimension::time);
        c.what = fmt::format("{} iso_coll {} {} x{}{}", name, wl::to_string(coll.op),
                             format_bytes_binary(coll.bytes), gpus,
                             workgroups ? fmt::format(" {} CTA", *workgroups) : std::string());
      } else if (kind == "dma_over_cu") {
        // The DMA collective's time over the CU (library) collective's, both alone, as Fig. 9 of the
        // main paper and AMD-DMA-Latte compare them.
        wl::Collective coll;
        coll.op = *wl::parse_collective_op(e.string("op"));
        coll.bytes = static_cast<std::int64_t>(e.quantity("bytes", Dimension::bytes));
        const auto gpus = static_cast<int>(e.integer("gpus"));
        coll.impl = wl::CollectiveImpl::cu;
        const double cu_us = sim.iso_coll(coll, gpus).time_us;
        coll.impl = wl::CollectiveImpl::dma;
        const double dma_us = sim.iso_coll(coll, gpus).time_us;
        c.unit = e.string("unit");
        c.value = dma_us / cu_us;
        c.measured = e.number("measured");
        c.what = fmt::format("{} dma/cu {} {} x{}", name, wl::to_string(coll.op),
                             format_bytes_binary(coll.bytes), gpus);
      } else if (kind == "dma_copy_overhead") {
        // One host-driven copy to a peer on one engine, alone: the share of its time the engine is
        // not moving bytes (engine start plus bytes at the engine's rate), as AMD-DMA-Latte's phase
        // breakdown of a single copy reports it.
        const auto bytes = static_cast<std::int64_t>(e.quantity("bytes", Dimension::bytes));
        const wl::Program copy = wl::load_programs_string(
            fmt::format("program:\n  name: copy\n  streams: [{{name: s}}]\n  kernels:\n"
                        "    - {{name: cp, stream: s, dma_copy: {{bytes: {}, to_peer: true}}}}\n",
                        bytes),
            "copy.yaml")[0];
        const hw::NodeSpec& spec = preset(name);
        ProgramSimulator program_sim(spec);
        const double total_s = program_sim.isolated_us(copy, 0) * 1e-6;
        const double copying_s =
            spec.model.dma.engine_start_latency + double(bytes) / spec.model.dma.engine_bw;
        c.unit = e.string("unit");
        c.value = 1.0 - copying_s / total_s;
        c.measured = e.number("measured");
        c.what = fmt::format("{} dma copy to a peer {}, not copying", name, format_bytes_binary(bytes));
      } else {
        e.fail("kind", "iso_gemm, iso_coll, dma_over_cu or dma_copy_overhead");
      }
      c.source = e.string("source");
      c.known_gap = e.optional_string("known_gap");
      e.finish();
      checks_.push_back(c);
    }
    root.finish();
  }
  static inline double tolerance_ = 0;
  static inline std::vector<Check> checks_;
};

TEST_F(PresetCitations, EveryCitedValueIsWithinToleranceOrAKnownGap) {
  ASSERT_GT(checks_.size(), 10U);
  for (const Check& c : checks_) {
    const bool inside = std::fabs(c.error()) <= tolerance_;
    std::printf("cite | %-55s | %10.4g | %10.4g %-7s | %+7.1f%% | %s\n", c.what.c_str(), c.value, c.measured,
                c.unit.c_str(), 100.0 * c.error(),
                inside ? "ok" : ("GAP: " + c.known_gap.value_or("")).c_str());
    if (c.known_gap) {
      EXPECT_FALSE(inside) << c.what << " is now within " << tolerance_ << " of " << c.source
                           << ": delete its known_gap mark";
    } else {
      EXPECT_TRUE(inside) << c.what << " = " << c.value << " " << c.unit << ", measured " << c.measured
                          << " (" << c.source << "): " << 100.0 * c.error() << "%";
    }
  }
}

}  // namespace
}  // namespace c3sim::models
