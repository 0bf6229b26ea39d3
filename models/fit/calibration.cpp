#include "models/fit/calibration.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>

#include <fmt/format.h>
#include <Eigen/Dense>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_validate.h"
#include "models/fit/gemm_library_fit.h"
#include "models/kernels/collective_plan.h"
#include "models/run/c3_simulator.h"
#include "sim/base/errors.h"

namespace c3sim::models {

namespace {

enum class StageKind { gemm, gemm_beside_partition, collective, collective_in_partition, dma };

// One fitted parameter: its hardware field (key, and where its value lives in a spec), range, and
// the unit its value is written in (display scale: value_SI / scale).
struct ParamDef {
  std::string key;
  double lo = 0, hi = 1;
  bool log_scale = false;
  double scale = 1;
  const char* unit = "";
  const hw::FieldDef* field = nullptr;
  // A per-op parameter's value where the op has none of its own (the model's rule); nullptr for
  // every other parameter.
  double (*absent_value)(wl::CollectiveOp, const hw::CollectiveModel&) = nullptr;

  [[nodiscard]] double& value(hw::NodeSpec& s) const { return *std::get<double*>(field->ref(s)); }
};

ParamDef param(const hw::FieldDef* field, double lo, double hi, bool log_scale = false, double scale = 1,
               const char* unit = "") {
  if (field == nullptr) throw ModelError("calibration: a fitted parameter is not a hardware field");
  return ParamDef{std::string(field->key), lo, hi, log_scale, scale, unit, field, nullptr};
}

ParamDef param(std::string_view key, double lo, double hi, bool log_scale = false, double scale = 1,
               const char* unit = "") {
  return param(hw::find_field(key), lo, hi, log_scale, scale, unit);
}

struct StageDef {
  StageKind kind;
  std::string name;
  std::vector<ParamDef> params;
};

// A distinct measured configuration; repeats are merged (geometric mean of their times).
struct Point {
  StageKind stage = StageKind::gemm;
  wl::Gemm gemm;
  int cus = 0;
  bool beside_partition = false;  // measured in the units left beside a partition (extra.partition: rest)
  // iso_coll: the CUs of the partition it ran alone in (extra.partition: group), 0 = unmasked
  int partition_cus = 0;
  // A partitioned collective's unpartitioned twin (same op, bytes, GPUs and CTA cap, unmasked):
  // the stage fits the measured ratio between the two, so the model's own error at a size (its
  // unpartitioned rate, fitted by the CU stage) does not pass for a partition effect.
  const Point* twin = nullptr;
  wl::Collective coll;
  int gpus = 0;
  double sum_log_us = 0;
  int n = 0;
  [[nodiscard]] double log_measured() const { return sum_log_us / n; }
};

// The per-op parameters (hw::PerOp) calibration fits, one line each: for every op with records in
// the parameter's stage, that op's own value (an op without records keeps the base file's value).
struct PerOpFit {
  StageKind stage;
  std::string_view parameter;  // as hardware_fields.cpp declares it
  double lo, hi;
  double (*model_value)(wl::CollectiveOp, const hw::CollectiveModel&);  // what the model reads
};
constexpr std::string_view kProtocolEfficiency = "model.collective.protocol_efficiency";
constexpr PerOpFit kPerOpFits[] = {
    // The payload share of the link bytes: the common one (the all-gather's, and the default of every
    // op without its own) where all-gather records are present, an op's own where its records are
    // (NCCL's ops saturate the link at different shares, hw::CollectiveModel).
    {StageKind::collective, kProtocolEfficiency, 0.3, 1.0, simple_protocol_efficiency},
    // The library's rate inside a partition of its own: from iso_coll records measured in one
    // (`c3sim sweep` of c3bench's coll_partition), after the CU stage has fixed the unpartitioned
    // rates. NCCL in a 32-SM green context runs 0.93-1.02x its unpartitioned rate on 2 x H200 (by
    // op), so half to one and a half brackets any library.
    {StageKind::collective_in_partition, "model.collective.partition_rate", 0.5, 1.5, partition_rate},
};

// The per-op parameters of `stage` for the ops of its records, in op order.
std::vector<ParamDef> per_op_params(StageKind stage, const std::set<wl::CollectiveOp>& ops) {
  std::vector<ParamDef> out;
  for (const PerOpFit& fit : kPerOpFits) {
    if (fit.stage != stage) continue;
    for (const wl::CollectiveOp op : wl::kAllCollectiveOps) {
      if (!ops.count(op)) continue;
      out.push_back(param(hw::find_per_op_field(fit.parameter, op), fit.lo, fit.hi));
      out.back().absent_value = fit.model_value;
    }
  }
  return out;
}

// `link_from_dma`: copy-engine records are present. They measure the link itself (a copy stream
// fills a GPU's port, hardware/measurements/README.md), so the DMA stage fits the link rate too.
// CU collective records alone determine only the payload rates link x each op's protocol
// efficiency (a CU kernel is bound by one or by its CTAs), so after the DMA stage the efficiencies
// are rescaled to keep the rates the CU stage found (calibrate below).
// `cu_ops`: the ops of the CU collective records.
std::vector<StageDef> stage_defs(const hw::NodeSpec& base, bool link_from_dma,
                                 const std::set<wl::CollectiveOp>& cu_ops,
                                 const std::set<wl::CollectiveOp>& partition_ops) {
  constexpr double GB = 1e9, US = 1e-6;
  const ParamDef link = param("model.collective.link_bandwidth", 50 * GB,
                              std::max(base.interconnect.link_bw, 60 * GB), true, GB, "GB/s");
  std::vector<StageDef> st;
  st.push_back({StageKind::gemm,
                "gemm",
                {param("model.gemm.matrix_efficiency", 0.3, 1.0),
                 param("model.memory.l2_bandwidth_per_xcd", 1000 * GB, 50000 * GB, true, GB, "GB/s"),
                 // HBM is physics: within 15% below the base file's measured rate (H200: 4.3 TB/s
                 // device-to-device copy), up to the datasheet. With the exposed store it would
                 // otherwise trade against the store share (927 GB/s on the 4 x H200 files).
                 param("model.memory.hbm_bandwidth",
                       std::min(0.85 * base.model.memory.hbm_bw, 0.99 * base.memory.hbm_bw),
                       std::max(base.memory.hbm_bw, 600 * GB), true, GB, "GB/s"),
                 // Short GEMMs: the exposed output store (small K). Without it one matrix_efficiency must
                 // fit 20 us and 20 ms GEMMs alike and fits neither (hardware/measurements/conditioned/:
                 // 0.70 against 0.79 from the long ones). No start cost is fitted: the ~40 us a fit finds
                 // on c3bench's records is the host's cuBLAS call reaching an idle GPU (a PyTorch loop on
                 // one H200 shows none, hardware/measurements/gemm_k/), a harness cost, not the GPU's.
                 param("model.gemm.epilogue_exposed", 0, 1.0)}});
  // After the GEMM stage, from iso_gemm records measured beside a partition (`c3bench sweep --what
  // gemm_sms_rest`): what that placement costs beyond the units it lacks. Optional.
  st.push_back({StageKind::gemm_beside_partition,
                "gemm beside a partition",
                {param("model.gemm.beside_partition_efficiency", 0.3, 1.0)}});
  // A copy queue's own rate can reach a local copy's (HBM read + write, 2.14 TB/s on H200), hence
  // the wide range.
  StageDef collective{StageKind::collective, "collective", {}};
  collective.params.push_back(
      param("model.collective.workgroup_copy_bandwidth", 2 * GB, 200 * GB, true, GB, "GB/s"));
  collective.params.push_back(link);
  for (ParamDef& p : per_op_params(StageKind::collective, cu_ops)) collective.params.push_back(std::move(p));
  collective.params.push_back(param("model.collective.launch_latency", 0, 100 * US, false, US, "us"));
  collective.params.push_back(param("model.collective.step_latency", 0, 100 * US, false, US, "us"));
  st.push_back(std::move(collective));
  st.push_back({StageKind::collective_in_partition, "collective in a partition",
                per_op_params(StageKind::collective_in_partition, partition_ops)});
  // A copy queue's own rate can reach a local copy's (HBM read + write, 2.14 TB/s on H200), hence
  // the wide range.
  st.push_back({StageKind::dma,
                "dma",
                {param("model.dma.engine_bandwidth", 10 * GB, 10000 * GB, true, GB, "GB/s"),
                 param("model.dma.submit_latency", 0, 100 * US, false, US, "us"),
                 param("model.dma.completion_latency", 0, 100 * US, false, US, "us")}});
  if (link_from_dma) st.back().params.insert(st.back().params.begin() + 1, link);
  return st;
}

double sigmoid(double u) { return 1.0 / (1.0 + std::exp(-u)); }

double to_value(const ParamDef& p, double u) {
  const double s = sigmoid(u);
  if (p.log_scale) return std::exp(std::log(p.lo) + (std::log(p.hi) - std::log(p.lo)) * s);
  return p.lo + (p.hi - p.lo) * s;
}

double to_unbounded(const ParamDef& p, double v) {
  double s = p.log_scale ? (std::log(v) - std::log(p.lo)) / (std::log(p.hi) - std::log(p.lo))
                         : (v - p.lo) / (p.hi - p.lo);
  s = std::clamp(s, 0.02, 0.98);  // start inside the range, where the map has slope
  return std::log(s / (1 - s));
}

// DMA records are fitted only in the configuration the c3 runs use (env details.dma_collective,
// e.g. "push,e1,c1,batch"); pull, single-submit and multi-queue variants are other algorithms.
bool dma_config_matches(const wl::IsoCollRecord& r, const std::string& env_config) {
  if (r.impl != "dma") return true;
  if (!r.extra.contains("config") || !r.extra["config"].is_string()) return false;
  return r.extra["config"].get<std::string>() == "dma," + env_config;
}

struct Collected {
  std::map<std::string, Point> points;
  std::map<StageKind, std::map<std::string, int>> skipped;  // stage -> reason -> records
  std::map<StageKind, int> used;
  int c3 = 0;
};

// `total_cus`: the base node's CUs per GPU (a partition must be smaller).
Collected collect(const std::vector<MeasurementFile>& files, const CalibrationOptions& o, int total_cus) {
  Collected c;
  auto add = [&](const std::string& key, Point p, double time_us) {
    ++c.used[p.stage];
    auto [it, fresh] = c.points.emplace(key, std::move(p));
    it->second.sum_log_us += std::log(time_us);
    ++it->second.n;
  };
  for (const auto& f : files) {
    std::string env_dma;
    for (const auto& rec : f.records) {
      if (const auto* e = std::get_if<wl::EnvRecord>(&rec)) {
        if (e->details.contains("dma_collective") && e->details["dma_collective"].is_string()) {
          env_dma = e->details["dma_collective"].get<std::string>();
        }
      } else if (std::holds_alternative<wl::C3Record>(rec)) {
        ++c.c3;
      } else if (const auto* g = std::get_if<wl::IsoGemmRecord>(&rec)) {
        Point p;
        p.beside_partition = g->extra.contains("partition") && g->extra["partition"] == "rest";
        p.stage = p.beside_partition ? StageKind::gemm_beside_partition : StageKind::gemm;
        if (g->time_us <= 0) {
          ++c.skipped[p.stage]["time is not positive"];
          continue;
        }
        if (std::find(o.exclude_gemm_tags.begin(), o.exclude_gemm_tags.end(), g->tag) !=
            o.exclude_gemm_tags.end()) {
          ++c.skipped[p.stage][fmt::format("GEMM tag excluded ({})", g->tag)];
          continue;
        }
        p.gemm = wl::Gemm{g->tag, g->m, g->n, g->k, hw::parse_dtype(g->dtype).value_or(hw::Dtype::bf16), ""};
        p.cus = g->cus;
        // The key first: argument evaluation order is unspecified, and p is moved into add().
        const std::string key =
            fmt::format("g|{}|{}|{}|{}", p.gemm.shape_string(), g->dtype, g->cus, p.beside_partition);
        add(key, std::move(p), g->time_us);
      } else if (const auto* r = std::get_if<wl::IsoCollRecord>(&rec)) {
        const bool in_group = r->extra.contains("partition") && r->extra["partition"] == "group";
        const StageKind k = r->impl != "cu" ? StageKind::dma
                            : in_group      ? StageKind::collective_in_partition
                                            : StageKind::collective;
        if (in_group && r->impl != "cu") {
          ++c.skipped[k]["a partitioned collective that is not a CU kernel"];
          continue;
        }
        int partition_cus = 0;
        if (in_group) {
          const auto units = r->extra.find("group_units");
          if (units != r->extra.end() && units->is_number_integer()) partition_cus = units->get<int>();
          if (partition_cus <= 0) {
            ++c.skipped[k]["in a partition without a positive extra.group_units"];
            continue;
          }
          if (partition_cus >= total_cus) {
            ++c.skipped[k][fmt::format("in a partition of at least the GPU's {} CUs", total_cus)];
            continue;
          }
        }
        if (r->time_us <= 0) {
          ++c.skipped[k]["time is not positive"];
          continue;
        }
        if (!dma_config_matches(*r, env_dma)) {
          ++c.skipped[k][fmt::format("another DMA configuration than the c3 runs' ('dma,{}')", env_dma)];
          continue;
        }
        Point p;
        p.stage = k;
        p.coll.op = wl::parse_collective_op(r->op).value();
        p.coll.bytes = r->bytes;
        p.coll.impl = wl::parse_collective_impl(r->impl).value();
        p.coll.max_workgroups = r->workgroups;
        // The library's logged choices (the channels it ran, its algorithm and protocol): the rate
        // fitted is then the rate at what ran, not at what the model's tuner would pick.
        p.coll.channels = r->channels;
        p.coll.algorithm = r->algorithm;
        p.coll.protocol = r->protocol;
        p.gpus = r->gpus;
        p.partition_cus = partition_cus;
        // The key is built before `p` moves: argument evaluation order is unspecified.
        const std::string key =
            fmt::format("c|{}|{}|{}|{}|{}|{}|{}", r->op, r->bytes, r->impl, r->gpus,
                        r->workgroups.value_or(-1), partition_cus, wl::library_choice_text(p.coll));
        add(key, std::move(p), r->time_us);
      }
    }
  }
  // Pair every partitioned collective with its unpartitioned twin; one without is not used.
  for (auto it = c.points.begin(); it != c.points.end();) {
    Point& p = it->second;
    if (p.stage != StageKind::collective_in_partition) {
      ++it;
      continue;
    }
    const auto twin =
        c.points.find(fmt::format("c|{}|{}|cu|{}|{}|0|{}", wl::to_string(p.coll.op), p.coll.bytes, p.gpus,
                                  p.coll.max_workgroups.value_or(-1), wl::library_choice_text(p.coll)));
    if (twin != c.points.end()) {
      p.twin = &twin->second;
      ++it;
      continue;
    }
    c.used[p.stage] -= p.n;
    c.skipped[p.stage]["no unpartitioned record of the same op, bytes, GPUs and CTA cap to compare with"] +=
        p.n;
    it = c.points.erase(it);
  }
  return c;
}

double predict_us(C3Simulator& sim, const Point& p) {
  if (p.stage == StageKind::gemm || p.stage == StageKind::gemm_beside_partition) {
    const int total = sim.spec().compute.total_cus();
    return sim.iso_gemm(p.gemm, p.cus >= total ? std::nullopt : std::optional<int>(p.cus), p.beside_partition)
        .time_us;
  }
  return sim
      .iso_coll(p.coll, p.gpus, p.coll.max_workgroups,
                p.partition_cus > 0 ? std::optional<int>(p.partition_cus) : std::nullopt)
      .time_us;
}

class StageFit {
public:
  StageFit(hw::NodeSpec& spec, const StageDef& def, std::vector<const Point*> points)
      : spec_(spec), def_(def), points_(std::move(points)) {}

  Eigen::VectorXd residuals(const Eigen::VectorXd& u) {
    for (size_t i = 0; i < def_.params.size(); ++i) {
      def_.params[i].value(spec_) = to_value(def_.params[i], u[static_cast<Eigen::Index>(i)]);
    }
    return residuals_here();
  }

  // At the spec's current values.
  Eigen::VectorXd residuals_here() {
    SimOptions o;
    o.attribution = false;
    C3Simulator sim(spec_, o);
    Eigen::VectorXd r(static_cast<Eigen::Index>(points_.size()));
    for (size_t i = 0; i < points_.size(); ++i) {
      const Point& p = *points_[i];
      double e = std::log(predict_us(sim, p)) - p.log_measured();
      if (p.twin != nullptr) e -= std::log(predict_us(sim, *p.twin)) - p.twin->log_measured();
      r[static_cast<Eigen::Index>(i)] = e;
    }
    return r;
  }

  // Levenberg-Marquardt with Marquardt's diagonal scaling; returns iterations used.
  int solve(Eigen::VectorXd& u, int max_iterations) {
    constexpr double kMaxStep = 1.5;  // in the unbounded coordinate: sigmoid 0.18 -> 0.5 -> 0.82
    const Eigen::Index n = u.size();
    Eigen::VectorXd r = residuals(u);
    double cost = r.squaredNorm();
    double lambda = 1e-2;
    int it = 0;
    for (; it < max_iterations; ++it) {
      constexpr double h = 1e-4;
      Eigen::MatrixXd J(r.size(), n);
      for (Eigen::Index j = 0; j < n; ++j) {
        Eigen::VectorXd up = u;
        up[j] += h;
        J.col(j) = (residuals(up) - r) / h;
      }
      const Eigen::MatrixXd A = J.transpose() * J;
      const Eigen::VectorXd g = J.transpose() * r;
      bool improved = false;
      for (int tries = 0; tries < 8 && !improved; ++tries) {
        Eigen::MatrixXd M = A;
        for (Eigen::Index j = 0; j < n; ++j) M(j, j) += lambda * (A(j, j) + 1e-9);
        // A Gauss-Newton step can jump across the sigmoid's range into a saturated end, where the
        // slope vanishes and the fit sticks at a bound the data does not ask for (a GEMM start
        // latency of 100 us from 0, first seen on the conditioned files): limit each parameter's
        // move to a third of the range per step, and let the next iterations walk on.
        const Eigen::VectorXd step = M.ldlt().solve(-g).cwiseMax(-kMaxStep).cwiseMin(kMaxStep);
        const Eigen::VectorXd trial = u + step;
        const Eigen::VectorXd rt = residuals(trial);
        const double ct = rt.squaredNorm();
        if (std::isfinite(ct) && ct < cost) {
          const double gain = cost - ct;
          u = trial;
          r = rt;
          cost = ct;
          lambda = std::max(lambda / 3, 1e-9);
          improved = true;
          if (gain < 1e-8 * std::max(cost, 1e-12)) return it + 1;
        } else {
          lambda *= 4;
        }
      }
      if (!improved) break;
    }
    residuals(u);  // leave the spec at the accepted point
    return it;
  }

private:
  hw::NodeSpec& spec_;
  const StageDef& def_;
  std::vector<const Point*> points_;
};

double rms(const Eigen::VectorXd& r) {
  return r.size() ? std::sqrt(r.squaredNorm() / double(r.size())) : 0.0;
}

std::string display(const ParamDef& p, double v) {
  const std::string num = wl::format_double(std::stod(fmt::format("{:.4g}", v / p.scale)));
  return *p.unit ? num + " " + p.unit : num;
}

// A parameter's value as the file writes it; an optional field at its off value (0: the GEMM's
// start latency, its exposed store) reads back empty and is written as that value.
std::string field_text(const hw::NodeSpec& spec, const ParamDef& p) {
  std::string text = hw::get_field(spec, p.key);
  if (!text.empty()) return text;
  hw::NodeSpec copy = spec;  // the field's ref() gives write access; read through a copy
  return display(p, p.value(copy));
}

// The DMA stage has refitted the link the CU stage fitted with it: the CU records determine only
// their payload rates (link x each fitted efficiency), so each efficiency is set to keep its rate on
// the new link, and the link is reported once, by the DMA stage. (Exact for the simple protocol; the
// LL protocol's efficiency is a preset constant and moves with the link.)
void keep_cu_payload_rates(CalibrationResult& result, const std::map<std::string, double>& cu_payload_rates) {
  hw::NodeSpec& spec = result.spec;
  constexpr const char* kLink = "model.collective.link_bandwidth";
  std::map<std::string, std::string> written;
  for (const auto& [key, rate] : cu_payload_rates) {
    if (rate <= 0) continue;
    const double wanted = rate / spec.model.collective.link_bw;
    const double efficiency = std::clamp(wanted, 0.3, 1.0);
    if (efficiency != wanted) {
      result.warnings.push_back(fmt::format(
          "stage 'collective': {} would be {:.4g} to keep the CU collectives' payload rate on the link the "
          "copy engines measured; set to {}",
          key, wanted, efficiency));
    }
    hw::set_field(spec, key, wl::format_double(std::stod(fmt::format("{:.4g}", efficiency))));
    written[key] = hw::get_field(spec, key);
  }
  if (written.empty()) return;
  for (StageReport& s : result.stages) {
    if (s.name != "collective") continue;
    std::erase_if(s.params, [&](const FittedParam& p) { return p.key == kLink; });
    for (FittedParam& p : s.params) {
      if (auto it = written.find(p.key); it != written.end()) p.after = it->second;
    }
  }
}

// Library data from the GEMM stage's points on all CUs (models/fit/gemm_library_fit.h), over the
// base's entries. Its warnings go to stderr with the stages'.
void fit_library(CalibrationResult& result, const Collected& data) {
  hw::NodeSpec& spec = result.spec;
  const int total = spec.compute.total_cus();
  std::vector<MeasuredGemmAlone> shapes;
  for (const auto& [key, p] : data.points) {
    if (p.stage != StageKind::gemm || p.cus < total) continue;
    shapes.push_back(MeasuredGemmAlone{p.gemm, std::exp(p.log_measured()), p.n});
  }
  if (shapes.empty()) return;
  GemmLibraryFit fit = fit_gemm_library(spec, shapes);
  // Through the text the file will hold, so the spec is exactly what loading the file gives.
  const YamlDocument doc = load_yaml_string(hw::gemm_library_yaml(fit.library), "<calibrated gemm_library>");
  StrictMap root(doc.root, doc.file, "");
  hw::GemmLibrary written;
  hw::parse_gemm_library(root, written);
  for (const hw::GemmLibraryEntry& e : written.entries()) spec.gemm_library.set(e);
  result.gemm_library = std::move(written);
  result.gemm_library_rms_before = fit.rms_log_before;
  result.gemm_library_rms_after = fit.rms_log_after;
  for (auto& w : fit.warnings) result.warnings.push_back(std::move(w));
}

}  // namespace

std::string calibrated_name(const std::string& base_name) {
  constexpr std::string_view suffix = "-calibrated";
  const bool already = base_name.size() >= suffix.size() &&
                       base_name.compare(base_name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return already ? base_name : base_name + std::string(suffix);
}

CalibrationResult calibrate(const hw::NodeSpec& base, const std::vector<MeasurementFile>& files,
                            const CalibrationOptions& options) {
  const Collected data = collect(files, options, base.compute.total_cus());
  CalibrationResult result;
  result.spec = base;
  hw::NodeSpec& spec = result.spec;
  spec.gemm_library = {};  // the hardware stages fit without library data (calibration.h)
  const bool link_from_dma = std::any_of(data.points.begin(), data.points.end(),
                                         [](const auto& kv) { return kv.second.stage == StageKind::dma; });
  std::set<wl::CollectiveOp> cu_ops, partition_ops;
  for (const auto& [key, p] : data.points) {
    if (p.stage == StageKind::collective) cu_ops.insert(p.coll.op);
    if (p.stage == StageKind::collective_in_partition) partition_ops.insert(p.coll.op);
  }
  // link x each efficiency the CU stage fitted (empty: it did not run)
  std::map<std::string, double> cu_payload_rates;
  for (const StageDef& def : stage_defs(base, link_from_dma, cu_ops, partition_ops)) {
    std::vector<const Point*> pts;
    for (const auto& [key, p] : data.points) {
      if (p.stage == def.kind) pts.push_back(&p);
    }
    StageReport rep;
    rep.name = def.name;
    rep.points = static_cast<int>(pts.size());
    if (auto it = data.used.find(def.kind); it != data.used.end()) rep.records = it->second;
    if (auto it = data.skipped.find(def.kind); it != data.skipped.end()) {
      rep.skipped_why = it->second;
      for (const auto& [why, n] : it->second) {
        rep.skipped += n;
        result.warnings.push_back(
            fmt::format("stage '{}': {} of {} records not used: {}", def.name, n, rep.records + n, why));
      }
    }
    // A stage without records keeps the base's values: `c3sim import` of an nccl-tests log gives
    // collective records only, and fitting just those is a common first step.
    if (pts.empty()) continue;
    StageFit fit(spec, def, pts);
    Eigen::VectorXd u(static_cast<Eigen::Index>(def.params.size()));
    for (size_t i = 0; i < def.params.size(); ++i) {
      const ParamDef& p = def.params[i];
      std::string before = field_text(base, p);
      // A per-op parameter's op without its own value (0) starts where the model reads it: the
      // all-gather's (protocol_efficiency, the common key) or the parameter's default.
      if (p.absent_value != nullptr && p.value(spec) == 0) {
        p.value(spec) = p.absent_value(p.field->op, spec.model.collective);
        const hw::FieldDef* common = hw::find_field(p.field->per_op_parameter);
        before = common != nullptr
                     ? fmt::format("{}'s {}", common->leaf(), hw::get_field(base, std::string(common->key)))
                     : fmt::format("{} (absent)", display(p, p.value(spec)));
      }
      rep.params.push_back(FittedParam{p.key, before, "", false});
      u[static_cast<Eigen::Index>(i)] = to_unbounded(p, p.value(spec));
    }
    rep.rms_log_before = rms(fit.residuals(u));
    rep.iterations = fit.solve(u, options.max_iterations);
    // Round to 4 significant digits through set_field, so the spec is exactly what the file says.
    for (size_t i = 0; i < def.params.size(); ++i) {
      const ParamDef& p = def.params[i];
      const double s = sigmoid(u[static_cast<Eigen::Index>(i)]);
      rep.params[i].at_bound = s < 1e-3 || s > 1 - 1e-3;
      if (rep.params[i].at_bound) p.value(spec) = s < 0.5 ? p.lo : p.hi;
      hw::set_field(spec, p.key, display(p, p.value(spec)));
      rep.params[i].after = field_text(spec, p);
      if (rep.params[i].at_bound) {
        result.warnings.push_back(fmt::format(
            "stage '{}': {} ended at its {} bound, {} (range {} .. {}): the records do not determine it "
            "within the range, or the model lacks a mechanism they show",
            def.name, p.key, s < 0.5 ? "lower" : "upper", rep.params[i].after, display(p, p.lo),
            display(p, p.hi)));
      }
    }
    rep.rms_log_after = rms(fit.residuals_here());  // at the rounded values
    result.stages.push_back(std::move(rep));
    if (def.kind == StageKind::dma && link_from_dma) keep_cu_payload_rates(result, cu_payload_rates);
    if (def.kind == StageKind::collective) {
      for (const ParamDef& p : def.params) {
        if (p.field->per_op_parameter == kProtocolEfficiency) {
          cu_payload_rates[p.key] = spec.model.collective.link_bw * p.value(spec);
        }
      }
    }
  }
  spec.gemm_library = base.gemm_library;
  if (options.gemm_library) fit_library(result, data);
  if (data.c3 > 0) {
    result.c3_records_ignored = data.c3;
    result.warnings.push_back(fmt::format(
        "{} c3 records not used: calibration fits isolated records only (validate predicts them)", data.c3));
  }
  if (result.stages.empty()) {
    throw InputError(SourceLocation{files.empty() ? std::string("<measurements>") : files.front().path, 0, 0},
                     "kind", "no isolated records (iso_gemm, iso_coll) to fit");
  }
  spec.name = calibrated_name(base.name);
  hw::validate(spec);
  return result;
}

std::string calibrated_yaml(const CalibrationResult& result, const std::string& extends,
                            const std::vector<std::string>& measurement_paths) {
  std::string out = fmt::format(
      "# Calibrated by `c3sim calibrate` from isolated records only (iso_gemm, iso_coll).\n"
      "# Base: {}. Measurements:\n",
      extends);
  for (const auto& p : measurement_paths) out += fmt::format("#   {}\n", p);
  out += "# Fit residuals, RMS of log(predicted / measured) over distinct configurations:\n";
  for (const auto& s : result.stages) {
    out += fmt::format("#   {:<10} {:>3} points ({} records skipped), {:.4f} -> {:.4f} in {} iterations\n",
                       s.name, s.points, s.skipped, s.rms_log_before, s.rms_log_after, s.iterations);
    for (const auto& [why, n] : s.skipped_why) out += fmt::format("#     skipped {}: {}\n", n, why);
  }
  if (!result.gemm_library.empty()) {
    out += fmt::format(
        "# GEMM library data (gemm_library below): {} shapes measured alone on all CUs, each at its own\n"
        "#   efficiency under the fitted model; their RMS {:.4f} -> {:.4f}\n",
        result.gemm_library.size(), result.gemm_library_rms_before, result.gemm_library_rms_after);
  }
  out += fmt::format("extends: {}\nname: {}\n", extends, result.spec.name);
  std::map<std::string, std::vector<std::pair<std::string, const FittedParam*>>> sections;
  std::vector<std::string> order;
  for (const auto& s : result.stages) {
    for (const auto& p : s.params) {
      const std::string key = p.key.substr(std::string("model.").size());
      const std::string section = key.substr(0, key.find('.'));
      if (!sections.count(section)) order.push_back(section);
      sections[section].emplace_back(key.substr(section.size() + 1), &p);
    }
  }
  out += "model:\n";
  for (const auto& section : order) {
    out += fmt::format("  {}:\n", section);
    for (const auto& [leaf, p] : sections[section]) {
      const std::string line = fmt::format("    {}: {}", leaf, p->after);
      out +=
          fmt::format("{:<48}# fitted (base {}){}\n", line, p->before, p->at_bound ? ", AT ITS BOUND" : "");
    }
  }
  out += hw::gemm_library_yaml(result.gemm_library);
  return out;
}

}  // namespace c3sim::models
