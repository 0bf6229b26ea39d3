#include "workloads/dlrm_generator.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "workloads/input_limits.h"
#include "workloads/program_builder.h"

namespace c3sim::wl {

namespace {

// Bounds on single options; the products they form are checked in validate().
constexpr std::int64_t kMaxTables = 4096;
constexpr std::int64_t kMaxRows = std::int64_t{1} << 40;
constexpr std::int64_t kMaxPooling = std::int64_t{1} << 16;
constexpr std::int64_t kMaxEmbeddingDim = std::int64_t{1} << 16;
constexpr std::int64_t kMaxLayers = 64;
// FBGEMM's embedding forward: blocks of kForwardMaxThreads = 512 threads, a 32-thread warp per bag.
constexpr std::int64_t kBagsPerBlock = 16;
// The grid's limit here (an int workgroup count).
constexpr std::int64_t kMaxLookupWorkgroups = std::int64_t{1} << 30;
// Resident threads per SM of the one embedding lookup measured (c3bench's fused_a2a lookup on H200:
// 4 blocks of 256 threads, hardware/measurements/fused_2gpu); FBGEMM's own occupancy is not measured.
constexpr int kLookupThreadsPerCu = 1024;

[[noreturn]] void option_error(const SourceLocation& where, const std::string& option,
                               const std::string& why) {
  throw InputError(where, option, why);
}

std::int64_t parse_size(const std::string& text, const SourceLocation& where, const std::string& option,
                        std::int64_t max) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc{} || at != end) {
    option_error(where, option, fmt::format("'{}' is not a whole number", text));
  }
  if (v < 1 || v > max) option_error(where, option, fmt::format("{} is outside 1..{}", v, max));
  return v;
}

std::vector<std::int64_t> parse_sizes(const std::string& text, const SourceLocation& where,
                                      const std::string& option, std::int64_t max, std::int64_t max_count) {
  std::vector<std::int64_t> out;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = text.find(',', from);
    out.push_back(parse_size(text.substr(from, comma - from), where, option, max));
    if (static_cast<std::int64_t>(out.size()) > max_count) {
      option_error(where, option, fmt::format("more than {} values", max_count));
    }
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

std::string interaction_name(DlrmInteraction i) { return i == DlrmInteraction::dcn ? "dcnv2" : "dot"; }

// Parameter elements of linear layers in -> widths[0] -> widths[1] ... (weights and biases).
std::int64_t mlp_parameters(std::int64_t in, const std::vector<std::int64_t>& widths) {
  std::int64_t n = 0;
  for (const std::int64_t w : widths) {
    n += in * w + w;
    in = w;
  }
  return n;
}

}  // namespace

std::int64_t DlrmConfig::interaction_width() const {
  const std::int64_t features = static_cast<std::int64_t>(tables()) + 1;
  if (interaction == DlrmInteraction::dcn) return features * dim;
  return dim + features * (features - 1) / 2;
}

DlrmConfig mlperf_dlrm_dcnv2() {
  DlrmConfig c;
  // --num_embeddings_per_feature and --multi_hot_sizes of the reference's MLPerf v2 command.
  c.rows = {40000000, 39060,    17295,    7424,     20265,  3,     7122, 1543, 63,
            40000000, 3067956,  405282,   10,       2209,   11938, 155,  4,    976,
            14,       40000000, 40000000, 40000000, 590152, 12973, 108,  36};
  c.pooling = {3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1};
  c.bottom_mlp = {512, 256, 128};
  c.top_mlp = {1024, 1024, 512, 256, 1};
  return c;
}

const std::vector<std::string>& dlrm_option_names() {
  static const std::vector<std::string> names{"gpus",   "nodes",      "sharding", "batch",
                                              "tables", "rows",       "pooling",  "dim",
                                              "dtype",  "bottom-mlp", "top-mlp",  "interaction"};
  return names;
}

DlrmConfig dlrm_config(const std::vector<DlrmOption>& options, const SourceLocation& where) {
  DlrmConfig c = mlperf_dlrm_dcnv2();
  const auto given = [&](const std::string& name) -> const DlrmOption* {
    const DlrmOption* found = nullptr;
    for (const auto& o : options) {
      if (o.name != name) continue;
      if (found != nullptr) option_error(where, name, "given twice");
      found = &o;
    }
    return found;
  };
  const auto& names = dlrm_option_names();
  for (const auto& o : options) {
    if (std::find(names.begin(), names.end(), o.name) == names.end()) {
      option_error(where, o.name,
                   fmt::format("unknown dlrm option '{}' (known: {})", o.name, fmt::join(names, ", ")));
    }
  }
  if (const auto* o = given("gpus")) {
    c.gpus = static_cast<int>(parse_size(o->value, where, o->name, kMaxGpus));
    check_gpu_count(c.gpus, where, o->name);
  }
  if (const auto* o = given("nodes"))
    c.nodes = static_cast<int>(parse_size(o->value, where, o->name, kMaxNodes));
  c.sharding = c.nodes > 1 ? DlrmSharding::column : DlrmSharding::table;
  if (const auto* o = given("sharding")) {
    if (o->value == "table") {
      c.sharding = DlrmSharding::table;
    } else if (o->value == "column") {
      c.sharding = DlrmSharding::column;
    } else {
      option_error(where, o->name, fmt::format("unknown sharding '{}' (table, column)", o->value));
    }
  }
  if (const auto* o = given("batch")) c.batch_per_gpu = parse_size(o->value, where, o->name, kMaxGemmDim);
  if (const auto* o = given("dim")) c.dim = parse_size(o->value, where, o->name, kMaxEmbeddingDim);
  if (const auto* o = given("dtype")) {
    const auto d = parse_dtype(o->value);
    if (!d || *d == Dtype::tf32) {
      option_error(where, o->name,
                   fmt::format("'{}' is not a storage dtype (fp32, bf16, fp16, fp8)", o->value));
    }
    c.dtype = *d;
  }
  if (const auto* o = given("interaction")) {
    if (o->value == "dcn") {
      c.interaction = DlrmInteraction::dcn;
    } else if (o->value == "dot") {
      c.interaction = DlrmInteraction::dot;
    } else {
      option_error(where, o->name, fmt::format("unknown interaction '{}' (dcn, dot)", o->value));
    }
  }
  if (const auto* o = given("bottom-mlp"))
    c.bottom_mlp = parse_sizes(o->value, where, o->name, kMaxGemmDim, kMaxLayers);
  if (const auto* o = given("top-mlp"))
    c.top_mlp = parse_sizes(o->value, where, o->name, kMaxGemmDim, kMaxLayers);
  // Tables: a count, then rows and pooling, each one value for every table or one per table.
  const DlrmOption* tables = given("tables");
  std::int64_t count = c.tables();
  if (tables != nullptr) count = parse_size(tables->value, where, tables->name, kMaxTables);
  const auto per_table = [&](const char* name, std::vector<std::int64_t>& field, std::int64_t max) {
    const DlrmOption* o = given(name);
    if (o == nullptr) {
      if (count != static_cast<std::int64_t>(field.size())) {
        option_error(
            where, name,
            fmt::format("{} tables need --{} (one value for every table, or {})", count, name, count));
      }
      return;
    }
    std::vector<std::int64_t> v = parse_sizes(o->value, where, o->name, max, kMaxTables);
    if (v.size() == 1) v.assign(static_cast<std::size_t>(count), v.front());
    if (static_cast<std::int64_t>(v.size()) != count) {
      option_error(where, name,
                   fmt::format("{} values for {} tables (give one, or one per table)", v.size(), count));
    }
    field = std::move(v);
  };
  per_table("rows", c.rows, kMaxRows);
  per_table("pooling", c.pooling, kMaxPooling);
  validate(c, where);
  return c;
}

void validate(const DlrmConfig& c, const SourceLocation& where) {
  check_gpu_count(c.gpus, where, "gpus");
  if (c.batch_per_gpu < 1 || c.batch_per_gpu > kMaxGemmDim) {
    option_error(where, "batch", fmt::format("{} is outside 1..{}", c.batch_per_gpu, kMaxGemmDim));
  }
  if (c.dim < 1 || c.dim > kMaxEmbeddingDim)
    option_error(where, "dim", fmt::format("{} is outside 1..{}", c.dim, kMaxEmbeddingDim));
  if (c.nodes < 1 || c.nodes > kMaxNodes)
    option_error(where, "nodes", fmt::format("{} is outside 1..{}", c.nodes, kMaxNodes));
  const bool table_wise = c.sharding == DlrmSharding::table;
  if (table_wise && c.tables() < c.ranks()) {
    option_error(
        where, "tables",
        fmt::format("{} tables leave a GPU of {} without one (table-wise sharding; --sharding column "
                    "splits every table over the GPUs)",
                    c.tables(), c.ranks()));
  }
  if (c.tables() > kMaxTables) option_error(where, "tables", fmt::format("more than {}", kMaxTables));
  if (c.pooling.size() != c.rows.size()) {
    option_error(where, "pooling",
                 fmt::format("{} pooling factors for {} tables", c.pooling.size(), c.rows.size()));
  }
  for (std::size_t t = 0; t < c.rows.size(); ++t) {
    if (c.rows[t] < 1 || c.rows[t] > kMaxRows)
      option_error(where, "rows", fmt::format("table {}: {} rows", t, c.rows[t]));
    if (c.pooling[t] < 1 || c.pooling[t] > kMaxPooling) {
      option_error(where, "pooling", fmt::format("table {}: pooling factor {}", t, c.pooling[t]));
    }
  }
  if (c.bottom_mlp.empty() || c.bottom_mlp.back() != c.dim) {
    option_error(where, "bottom-mlp",
                 fmt::format("the bottom MLP must end at the embedding dimension {} (the interaction joins "
                             "its output with the embeddings)",
                             c.dim));
  }
  if (c.top_mlp.empty()) option_error(where, "top-mlp", "empty");
  // Sizes the step is built from, in double (exact enough to compare; no int64 overflow): every
  // kernel's bytes within a collective's limit, every GEMM within the GEMM limits.
  const auto at_most = [&](double value, std::int64_t limit, const char* option, const char* what) {
    if (value > static_cast<double>(limit)) {
      option_error(where, option, fmt::format("{} ({:.3g}) exceed {}", what, value, limit));
    }
  };
  const double e = dtype_bytes(c.dtype);
  const double b = static_cast<double>(c.batch_per_gpu);
  // Column-wise, a GPU gathers the column share of every row: the batch per GPU's worth.
  const double samples = table_wise ? b * c.ranks() : b;
  const double d = static_cast<double>(c.dim);
  double rows = 0;
  for (const std::int64_t p : c.pooling) rows += 2.0 * static_cast<double>(p) + 1;  // the backward's
  at_most(samples * d * e * rows, kMaxCollectiveBytes, "batch", "embedding bytes per GPU");
  at_most(b * c.tables() * d * e, kMaxCollectiveBytes, "batch", "all-to-all bytes");
  const std::int64_t width = c.interaction_width();
  if (width > kMaxGemmDim) {
    option_error(where, "tables", fmt::format("interaction width {} exceeds {}", width, kMaxGemmDim));
  }
  const double w = static_cast<double>(width);
  const double features = (c.tables() + 1.0) * d;  // the interaction's inputs per sample
  at_most(b * e * std::max(6 * w, w + 2 * features), kMaxCollectiveBytes, "batch", "interaction bytes");
  // The all-to-all's output splits into one whole-element block per GPU.
  const std::int64_t elements = c.batch_per_gpu * c.tables() * c.dim;
  if (elements % c.ranks() != 0) {
    option_error(where, "batch",
                 fmt::format("the all-to-all's {} elements (batch x tables x dim) do not split over {} GPUs",
                             elements, c.ranks()));
  }
  // Each linear layer in -> out: forward out x batch, input gradient in x batch, weight gradient
  // in x out output elements.
  const auto linear = [&](double in, double out, const char* option) {
    at_most(std::max({out * b, in * b, in * out}), kMaxGemmOutputElements, option, "GEMM output elements");
  };
  double in = static_cast<double>(c.dense_features);
  for (const std::int64_t layer : c.bottom_mlp) {
    linear(in, static_cast<double>(layer), "bottom-mlp");
    in = static_cast<double>(layer);
  }
  in = w;
  for (const std::int64_t layer : c.top_mlp) {
    linear(in, static_cast<double>(layer), "top-mlp");
    in = static_cast<double>(layer);
  }
  if (c.interaction == DlrmInteraction::dcn) linear(w, static_cast<double>(c.dcn_rank), "batch");
  // On several nodes one node's GPUs run, every node taken alike: table-wise needs equal lookups.
  if (c.nodes > 1 && table_wise) {
    const auto shards = dlrm_table_shards(c);
    const std::int64_t first = dlrm_lookup_bytes(c, shards.front());
    for (std::size_t r = 1; r < shards.size(); ++r) {
      if (dlrm_lookup_bytes(c, shards[r]) != first) {
        option_error(where, "sharding",
                     fmt::format("table-wise over {} GPUs on {} nodes gives GPU 0 {} B of lookups and GPU {} "
                                 "{} B; a program on several nodes needs equal GPUs (equal pooling and a "
                                 "table count that is a multiple of the GPUs, or --sharding column)",
                                 c.ranks(), c.nodes, first, r, dlrm_lookup_bytes(c, shards[r])));
      }
    }
  }
}

std::vector<std::vector<int>> dlrm_table_shards(const DlrmConfig& c) {
  std::vector<int> order(static_cast<std::size_t>(c.tables()));
  std::iota(order.begin(), order.end(), 0);
  if (c.sharding == DlrmSharding::column)
    return std::vector<std::vector<int>>(static_cast<std::size_t>(c.ranks()), order);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return c.pooling[static_cast<std::size_t>(a)] > c.pooling[static_cast<std::size_t>(b)];
  });
  std::vector<std::vector<int>> shards(static_cast<std::size_t>(c.ranks()));
  std::vector<std::int64_t> load(static_cast<std::size_t>(c.ranks()), 0);
  for (const int t : order) {
    const auto g = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shards[g].push_back(t);
    load[g] += c.pooling[static_cast<std::size_t>(t)];
  }
  for (auto& s : shards) std::sort(s.begin(), s.end());
  return shards;
}

namespace {

// Samples whose rows a GPU gathers, each a full row of its tables (table-wise) or the GPU's
// 1 / ranks column share of one (column-wise: the global batch / ranks).
std::int64_t lookup_samples(const DlrmConfig& c) {
  return c.sharding == DlrmSharding::column ? c.batch_per_gpu : c.global_batch();
}

}  // namespace

std::int64_t dlrm_lookup_bytes(const DlrmConfig& c, const std::vector<int>& tables) {
  std::int64_t rows = 0;
  for (const int t : tables) rows += c.pooling[static_cast<std::size_t>(t)] + 1;
  return lookup_samples(c) * c.dim * dtype_bytes(c.dtype) * rows;
}

std::int64_t dlrm_embedding_backward_bytes(const DlrmConfig& c, const std::vector<int>& tables) {
  std::int64_t rows = 0;
  for (const int t : tables) rows += 2 * c.pooling[static_cast<std::size_t>(t)] + 1;
  return lookup_samples(c) * c.dim * dtype_bytes(c.dtype) * rows;
}

std::int64_t dlrm_all_to_all_bytes(const DlrmConfig& c) {
  return c.batch_per_gpu * c.tables() * c.dim * dtype_bytes(c.dtype);
}

Program dlrm_step_program(const DlrmConfig& c) {
  const SourceLocation where{"dlrm", 0, 0};
  validate(c, where);
  const std::int64_t e = dtype_bytes(c.dtype);
  const std::int64_t b = c.batch_per_gpu;
  const std::int64_t width = c.interaction_width();
  const std::string source = c.interaction == DlrmInteraction::dcn ? "DLRM-DCNv2" : "DLRM";
  const auto gemm = [&](const std::string& tag, std::int64_t m, std::int64_t n, std::int64_t k) {
    return Gemm{tag, m, n, k, c.dtype, source};
  };
  const bool column = c.sharding == DlrmSharding::column;
  const std::string gpus_name =
      c.nodes > 1 ? fmt::format("{}x{}gpu", c.nodes, c.gpus) : fmt::format("{}gpu", c.gpus);
  ProgramBuilder pb(fmt::format("dlrm_{}_{}_b{}{}", interaction_name(c.interaction), gpus_name, b,
                                column && c.nodes == 1 ? "_cw" : ""),
                    fmt::format("{} training step, {} tables {} over {} GPUs{}, batch {} per GPU", source,
                                c.tables(), column ? "column-wise" : "table-wise", c.ranks(),
                                c.nodes > 1 ? fmt::format(" ({} nodes)", c.nodes) : "", b),
                    c.gpus, {"emb", "a2a", "bottom", "top", "ar"});
  const std::vector<std::vector<int>> shards = dlrm_table_shards(c);
  const std::int64_t a2a = dlrm_all_to_all_bytes(c);

  // Forward: the lookup, the bottom MLP beside it (launched first, as the framework issues the
  // dense forward while the lookup runs), then the all-to-all of the pooled rows.
  pb.memory("emb_lookup", "emb", dlrm_lookup_bytes(c, shards[0]));
  // FBGEMM's table-batched forward grid: a 512-thread block per 16 bags (a warp per sample and
  // table); a GPU pools batch x tables bags on average under either sharding. The grid is what a
  // fused kernel sends by: each block's pooled rows leave when it ends.
  pb.program().kernels.back().memory.workgroups = static_cast<int>(std::min<std::int64_t>(
      (c.batch_per_gpu * c.tables() + kBagsPerBlock - 1) / kBagsPerBlock, kMaxLookupWorkgroups));
  // A gather of the tables' mean pooling factor of rows per pooled row (memory_kernel.h).
  std::int64_t rows = 0;
  for (const std::int64_t p : c.pooling) rows += p;
  const auto tables = static_cast<std::int64_t>(c.pooling.size());
  GatherAccess gather;
  gather.rows_per_item = static_cast<int>(std::max<std::int64_t>(1, (rows + tables / 2) / tables));
  gather.threads_per_cu = kLookupThreadsPerCu;
  pb.program().kernels.back().memory.gather = gather;
  std::int64_t in = c.dense_features;
  for (std::size_t i = 0; i < c.bottom_mlp.size(); ++i) {
    const std::string n = fmt::format("bottom_fc{}", i);
    pb.gemm(n, "bottom", gemm(n, c.bottom_mlp[i], b, in));
    in = c.bottom_mlp[i];
  }
  const std::string bottom_out = fmt::format("bottom_fc{}", c.bottom_mlp.size() - 1);
  pb.collective("a2a_fwd", "a2a", CollectiveOp::all_to_all, a2a, {"emb_lookup"});

  // Interaction on the top stream, once both inputs are there.
  std::string grad_to_inputs;  // the backward kernel that finishes the interaction's input gradient
  std::string last_top_wgrad;  // the backward kernel that finishes the interaction and top gradients
  std::int64_t interaction_params = 0;
  if (c.interaction == DlrmInteraction::dcn) {
    pb.memory("concat", "top", 2 * b * width * e, {"a2a_fwd", bottom_out});
    for (int l = 0; l < c.dcn_layers; ++l) {
      pb.gemm(fmt::format("cross{}_down", l), "top",
              gemm(fmt::format("cross{}_down", l), c.dcn_rank, b, width));
      pb.gemm(fmt::format("cross{}_up", l), "top", gemm(fmt::format("cross{}_up", l), width, b, c.dcn_rank));
      pb.memory(fmt::format("cross{}_mix", l), "top", 4 * b * width * e);
    }
    interaction_params = c.dcn_layers * (2 * width * c.dcn_rank + width);
  } else {
    const std::int64_t features = static_cast<std::int64_t>(c.tables()) + 1;
    pb.memory("interaction", "top", (b * features * c.dim + b * width) * e, {"a2a_fwd", bottom_out});
  }
  in = width;
  for (std::size_t i = 0; i < c.top_mlp.size(); ++i) {
    const std::string n = fmt::format("top_fc{}", i);
    pb.gemm(n, "top", gemm(n, c.top_mlp[i], b, in));
    in = c.top_mlp[i];
  }

  // Backward: top MLP in reverse, input gradient then weight gradient.
  for (std::size_t j = c.top_mlp.size(); j-- > 0;) {
    const std::int64_t layer_in = j == 0 ? width : c.top_mlp[j - 1];
    const std::string n = fmt::format("top_fc{}", j);
    pb.gemm(n + "_dgrad", "top", gemm(n + "_dgrad", layer_in, b, c.top_mlp[j]));
    pb.gemm(n + "_wgrad", "top", gemm(n + "_wgrad", layer_in, c.top_mlp[j], b));
  }
  last_top_wgrad = "top_fc0_wgrad";
  if (c.interaction == DlrmInteraction::dcn) {
    for (int l = c.dcn_layers; l-- > 0;) {
      const std::string x = fmt::format("cross{}", l);
      pb.memory(x + "_mix_bwd", "top", 6 * b * width * e);
      pb.gemm(x + "_up_dgrad", "top", gemm(x + "_up_dgrad", c.dcn_rank, b, width));
      pb.gemm(x + "_up_wgrad", "top", gemm(x + "_up_wgrad", c.dcn_rank, width, b));
      pb.gemm(x + "_down_dgrad", "top", gemm(x + "_down_dgrad", width, b, c.dcn_rank));
      pb.gemm(x + "_down_wgrad", "top", gemm(x + "_down_wgrad", width, c.dcn_rank, b));
    }
    grad_to_inputs = "cross0_down_dgrad";
    last_top_wgrad = "cross0_down_wgrad";
  } else {
    const std::int64_t features = static_cast<std::int64_t>(c.tables()) + 1;
    pb.memory("interaction_bwd", "top", (b * width + 2 * b * features * c.dim) * e);
    grad_to_inputs = "interaction_bwd";
  }
  // The bottom MLP's backward on its stream, beside the embeddings' all-to-all.
  for (std::size_t j = c.bottom_mlp.size(); j-- > 0;) {
    const std::int64_t layer_in = j == 0 ? c.dense_features : c.bottom_mlp[j - 1];
    const std::string n = fmt::format("bottom_fc{}", j);
    const std::vector<std::string> after =
        j + 1 == c.bottom_mlp.size() ? std::vector<std::string>{grad_to_inputs} : std::vector<std::string>{};
    if (j > 0) {
      pb.gemm(n + "_dgrad", "bottom", gemm(n + "_dgrad", layer_in, b, c.bottom_mlp[j]), after);
      pb.gemm(n + "_wgrad", "bottom", gemm(n + "_wgrad", layer_in, c.bottom_mlp[j], b));
    } else {
      pb.gemm(n + "_wgrad", "bottom", gemm(n + "_wgrad", layer_in, c.bottom_mlp[j], b), after);
    }
  }
  pb.collective("a2a_bwd", "a2a", CollectiveOp::all_to_all, a2a, {grad_to_inputs});
  // DDP's all-reduce buckets. Elements padded to a multiple of 8 x ranks (at most 8 x ranks x e bytes
  // more), so that each GPU's shard, and FiCCO's chunkings up to 8, hold whole elements.
  const auto padded = [&](std::int64_t elements) {
    const std::int64_t unit = 8 * std::int64_t{c.ranks()};
    return (elements + unit - 1) / unit * unit * e;
  };
  pb.collective("ar_top", "ar", CollectiveOp::all_reduce,
                padded(interaction_params + mlp_parameters(width, c.top_mlp)), {last_top_wgrad});
  pb.memory("emb_bwd", "emb", dlrm_embedding_backward_bytes(c, shards[0]), {"a2a_bwd"});
  pb.collective("ar_bottom", "ar", CollectiveOp::all_reduce,
                padded(mlp_parameters(c.dense_features, c.bottom_mlp)), {"bottom_fc0_wgrad"});

  // Other ranks' own lookups (on several nodes validate() made every GPU alike).
  Program& p = pb.program();
  if (c.nodes > 1) p.nodes = c.nodes;
  for (int r = 1; r < c.gpus && c.nodes == 1; ++r) {
    const auto& mine = shards[static_cast<std::size_t>(r)];
    const std::int64_t lookup = dlrm_lookup_bytes(c, mine);
    if (lookup == dlrm_lookup_bytes(c, shards[0])) continue;
    RankOverride o;
    o.rank = r;
    o.kernel = "emb_lookup";
    o.bytes = lookup;
    p.rank_overrides.push_back(o);
    o.kernel = "emb_bwd";
    o.bytes = dlrm_embedding_backward_bytes(c, mine);
    p.rank_overrides.push_back(o);
  }
  return pb.done();
}

std::string dlrm_program_comment(const DlrmConfig& c) {
  std::string out = fmt::format(
      "# {} training step per GPU (c3sim generate dlrm; workloads/dlrm_generator.h has the formulas).\n"
      "# Defaults: MLPerf Training DLRM-dcnv2 reference, github.com/mlcommons/training\n"
      "# recommendation_v2/torchrec_dlrm/README.MD (26 tables, dim 128, multi-hot sizes, bottom MLP\n"
      "# 13-512-256-128, DCN v2 3 x rank 512, top MLP 1024-1024-512-256-1, 65536 / 8 GPUs, fp32).\n"
      "# This step: {} GPUs, batch {} per GPU, {} tables, dim {}, {}, bottom {}-{}, top {}-{}.\n",
      c.interaction == DlrmInteraction::dcn ? "DLRM-DCNv2" : "DLRM (dot interaction)",
      c.nodes > 1 ? fmt::format("{} nodes x {}", c.nodes, c.gpus) : fmt::format("{}", c.gpus),
      c.batch_per_gpu, c.tables(), c.dim, to_string(c.dtype), c.dense_features, fmt::join(c.bottom_mlp, "-"),
      c.interaction_width(), fmt::join(c.top_mlp, "-"));
  const auto shards = dlrm_table_shards(c);
  if (c.sharding == DlrmSharding::column) {
    out += fmt::format(
        "# Tables sharded column-wise: every GPU holds 1/{} of every table's columns, lookup {} B.\n",
        c.ranks(), dlrm_lookup_bytes(c, shards.front()));
    return out;
  }
  out += "# Tables sharded table-wise (largest pooling first onto the least loaded GPU):\n";
  for (std::size_t g = 0; g < shards.size(); ++g) {
    std::int64_t pooling = 0;
    double table_gib = 0;
    for (const int t : shards[g]) {
      pooling += c.pooling[static_cast<std::size_t>(t)];
      table_gib += static_cast<double>(c.rows[static_cast<std::size_t>(t)]) * static_cast<double>(c.dim) *
                   dtype_bytes(c.dtype) / static_cast<double>(1 << 30);
    }
    out += fmt::format("#   GPU {}: tables {} (pooling {}, {:.2f} GiB of rows), lookup {} B\n", g,
                       fmt::join(shards[g], ","), pooling, table_gib, dlrm_lookup_bytes(c, shards[g]));
  }
  return out;
}

}  // namespace c3sim::wl
