#pragma once
// One DLRM training step per GPU (`c3sim generate dlrm`), the structure of the MLPerf Training
// DLRM-dcnv2 reference (github.com/mlcommons/training, recommendation_v2/torchrec_dlrm/README.MD,
// "Running the MLPerf DLRM v2 benchmark"): 26 embedding tables of dimension 128 with the
// reference's row counts and multi-hot sizes (pooling factors), bottom MLP 13-512-256-128, DCN v2
// interaction (3 cross layers of rank 512), top MLP 1024-1024-512-256-1, global batch 65536 on 8
// GPUs (8192 per GPU), fp32 (the reference enables no mixed precision). `--interaction dot` gives
// the classic DLRM pairwise-dot interaction instead.
//
// Parallelism as TorchRec runs it: tables model parallel (table-wise: each table whole on one GPU,
// tables placed largest lookup cost first on the least loaded GPU, as a greedy planner does),
// MLPs data parallel. Per GPU (G = batch per GPU x GPUs, the global batch; D = dim; e = dtype
// bytes; P_t = table t's pooling factor; the sums run over the GPU's own tables):
//   emb_lookup   memory kernel, bytes = sum_t G x D x e x (P_t + 1): P_t rows gathered per sample,
//                one pooled row written (the lookup indices, 8 B against D x e per row, are left out);
//                workgroups = batch x tables / 16, FBGEMM's forward grid (a 512-thread block per 16
//                bags, a warp per sample and table) for the bags an average GPU pools
//   a2a_fwd      all-to-all, after emb_lookup: every GPU receives its batch's pooled rows of every
//                table, output bytes = batch x tables x D x e
//   bottom_fc*   bottom MLP GEMMs on their own stream, beside the lookup and the all-to-all
//   interaction  DCN v2: concat of [batch x (tables + 1) D] (a copy), per cross layer a down GEMM
//                to the rank, an up GEMM back and the elementwise mix x0 * (up + b) + x (4 passes);
//                dot: one memory kernel reading the (tables + 1) features, writing the pairwise
//                dots and the dense feature
//   top_fc*      top MLP GEMMs
//   backward     top MLP and interaction input- and weight-gradient GEMMs in reverse (mix backward 6
//                passes); a2a_bwd (the embeddings' gradients back to their tables' GPUs, same
//                bytes as a2a_fwd) after the interaction's input gradient, emb_bwd after it (bytes =
//                sum_t G x D x e x (2 P_t + 1): the pooled gradient read, each gathered row read and
//                written back by the fused optimizer update; row-wise optimizer state, 4 B per row,
//                left out), the bottom MLP backward beside them, and the MLP gradients' all-reduces
//                (DDP buckets: ar_top for the interaction and top MLP once their gradients are
//                done, ar_bottom for the bottom MLP), elements padded to a multiple of 8 x GPUs.
// The sparse features' own all-to-all (the lookup indices) is not in the step: TorchRec's
// TrainPipelineSparseDist runs it for the next batch during this one.
// GEMMs as the column-major BLAS sees y = x W^T (workloads/fsdp_generator.h): forward M = out,
// N = batch, K = in; weight gradient M = in, N = out, K = batch; input gradient M = in, N = batch,
// K = out. The bottom MLP's first layer has no input gradient (its input is data).
//
// Tables of unequal lookup cost make the GPUs' lookups unequal: the program then carries per-rank
// byte overrides of emb_lookup and emb_bwd and runs every rank (docs/programs.md, all-GPU mode);
// equal shares give a symmetric program.
//
// On N > 1 nodes (`--nodes`, the program's `nodes:`) the ranks are N x gpus and the global batch
// batch x ranks. The reference's 26 tables cannot go table-wise over more than 26 GPUs, and a
// program on N nodes must be symmetric (one node runs, every node taken alike), so the default
// there is column-wise sharding (TorchRec's ShardingType.COLUMN_WISE, whose pooled outputs reach
// their samples' GPUs by the same all-to-all as table-wise): every GPU holds 1 / ranks of every
// table's columns, balanced as a cost-based planner places column shards, so it gathers for the
// global batch 1 / ranks of each row: emb_lookup = batch x D x e x sum_t (P_t + 1), emb_bwd
// likewise, and the all-to-all's bytes per GPU as table-wise. The GPUs are then alike and the step
// is simulated once per distinct rank at any scale. `--sharding table` keeps table-wise, which on
// several nodes needs equal lookups on every GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/dtype.h"
#include "sim/base/errors.h"
#include "workloads/program.h"

namespace c3sim::wl {

enum class DlrmInteraction { dcn, dot };
// table: each table whole on one GPU; column: every GPU 1 / ranks of every table's columns.
enum class DlrmSharding { table, column };

struct DlrmConfig {
  int gpus = 8;   // per node
  int nodes = 1;  // the program's nodes (`nodes:` when > 1)
  DlrmSharding sharding = DlrmSharding::table;
  std::int64_t batch_per_gpu = 8192;
  std::vector<std::int64_t> rows;     // one per table
  std::vector<std::int64_t> pooling;  // one per table: rows gathered per sample
  std::int64_t dim = 128;
  Dtype dtype = Dtype::fp32;
  std::int64_t dense_features = 13;
  std::vector<std::int64_t> bottom_mlp;  // layer widths after the dense features; the last = dim
  std::vector<std::int64_t> top_mlp;     // layer widths after the interaction
  DlrmInteraction interaction = DlrmInteraction::dcn;
  int dcn_layers = 3;
  std::int64_t dcn_rank = 512;

  [[nodiscard]] int tables() const { return static_cast<int>(rows.size()); }
  [[nodiscard]] int ranks() const { return gpus * nodes; }
  [[nodiscard]] std::int64_t global_batch() const { return batch_per_gpu * ranks(); }
  // The top MLP's input width: (tables + 1) x dim for DCN; dim + F (F - 1) / 2 with F = tables + 1
  // features for the dot interaction.
  [[nodiscard]] std::int64_t interaction_width() const;
};

// The MLPerf Training DLRM-dcnv2 reference configuration (header comment).
DlrmConfig mlperf_dlrm_dcnv2();

// One `--name value` option of `c3sim generate dlrm` (also a sweep entry's key).
struct DlrmOption {
  std::string name;   // "batch", "rows", "bottom-mlp", ...
  std::string value;  // as written: "4096", "40000000,39060", "fp16"
};
// gpus, nodes, sharding, batch, tables, rows, pooling, dim, dtype, bottom-mlp, top-mlp, interaction.
const std::vector<std::string>& dlrm_option_names();

// The reference configuration with the options applied. `rows` and `pooling` take one value (every
// table) or one per table; `tables` other than the reference's 26 needs both. `sharding` is table
// on one node and column on several unless given. Throws InputError
// at `where` with key = the option's name for an unknown option, a value that does not parse, or
// sizes the step cannot have (validate).
DlrmConfig dlrm_config(const std::vector<DlrmOption>& options, const SourceLocation& where);

// Throws InputError at `where`, key = the option at fault: non-positive or oversized values,
// fewer tables than GPUs under table-wise sharding (a GPU without a table), or unequal table-wise
// lookups on several nodes (key sharding), per-table lists of the wrong length, a bottom
// MLP that does not end at the embedding dimension, a batch whose all-to-all does not split into
// whole elements per GPU, byte counts or GEMM shapes beyond the input limits.
void validate(const DlrmConfig& config, const SourceLocation& where);

// The tables of each of the ranks (ascending). Table-wise: placed in order of decreasing pooling
// factor (lower index first on a tie) on the GPU with the least pooling so far (lower rank first).
// Column-wise: every table on every GPU (a 1 / ranks column share of each).
std::vector<std::vector<int>> dlrm_table_shards(const DlrmConfig& config);
// Bytes of a GPU's lookup and embedding backward over its `tables` (formulas in the header comment;
// column-wise, the column share of each).
std::int64_t dlrm_lookup_bytes(const DlrmConfig& config, const std::vector<int>& tables);
std::int64_t dlrm_embedding_backward_bytes(const DlrmConfig& config, const std::vector<int>& tables);
// Per-GPU output of each all-to-all: batch x tables x dim x dtype bytes.
std::int64_t dlrm_all_to_all_bytes(const DlrmConfig& config);

// The step; validates first. Rank 0's lookup bytes are in the kernels, other ranks' differing
// ones in rank_overrides.
Program dlrm_step_program(const DlrmConfig& config);
// "# ..." lines for the program file: the configuration, its source and each GPU's tables.
std::string dlrm_program_comment(const DlrmConfig& config);

}  // namespace c3sim::wl
