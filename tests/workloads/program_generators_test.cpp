// Generated programs: shapes and sizes derived by hand from the model dimensions, the dependency
// structure, and a YAML round trip.
#include <gtest/gtest.h>

#include "workloads/program_generators.h"
#include "workloads/program_io.h"

namespace c3sim::wl {
namespace {

TEST(ProgramGenerators, FsdpLayerOfLlama70b) {
  const Program p = fsdp_layer_program(llama_70b());
  // Forward: ag_qkv, norm1, 4 GEMMs, 3 prefetch gathers, act. Backward: 4 re-gathers, act_bwd,
  // 4 x (dgrad, wgrad, rs), norm1_bwd. 10 + 18 = 28.
  EXPECT_EQ(p.kernels.size(), 28U);
  EXPECT_EQ(p.gpus, 8);
  // gate_up: in 8192, out 2 x 28672 = 57344. Forward 57344 x 8192 x 8192; the weight gradient is
  // Table I's mb1 (8192 x 57344 x 8192); its gather is Table II's 896 MiB (8192 x 57344 x 2 B).
  const ProgramKernel* fwd = p.kernel("fwd_gate_up");
  ASSERT_NE(fwd, nullptr);
  EXPECT_EQ(fwd->gemm.m, 57344);
  EXPECT_EQ(fwd->gemm.n, 8192);
  EXPECT_EQ(p.kernel("wgrad_gate_up")->gemm.n, 57344);
  EXPECT_EQ(p.kernel("ag_gate_up")->collective.bytes, 896LL << 20);
  EXPECT_EQ(fwd->after, std::vector<std::string>{"ag_gate_up"});
  // The gradient's reduce-scatter outputs one shard: 896 MiB / 8 = 112 MiB, after its wgrad.
  EXPECT_EQ(p.kernel("rs_gate_up")->collective.bytes, 112LL << 20);
  EXPECT_EQ(p.kernel("rs_gate_up")->after, std::vector<std::string>{"wgrad_gate_up"});
  EXPECT_EQ(p.kernel("rs_gate_up")->stream, "rs");
  EXPECT_EQ(p.kernel("dgrad_down")->after, std::vector<std::string>{"reag_down"});
  EXPECT_NO_THROW(check_program_fits(p, 8, 304));
  const auto again = load_programs_string(programs_to_yaml({p}), "fsdp.yaml");
  EXPECT_EQ(programs_to_yaml(again), programs_to_yaml({p}));
}

TEST(ProgramGenerators, TensorParallelBlock) {
  const Program p = tp_block_program(llama_70b(), 8);
  ASSERT_EQ(p.kernels.size(), 6U);  // qkv, attn_out, ar1, gate_up, down, ar2
  // qkv out = 8192 + 2 x 8 x 128 = 10240, column-split 8 ways: 1280 rows; attn_out row-split:
  // K = 8192 / 8 = 1024; the all-reduce carries [8192 tokens x 8192] bf16 = 128 MiB.
  EXPECT_EQ(p.kernel("qkv_fwd")->gemm.m, 1280);
  EXPECT_EQ(p.kernel("attn_out_fwd")->gemm.k, 1024);
  EXPECT_EQ(p.kernel("ar1")->collective.op, CollectiveOp::all_reduce);
  EXPECT_EQ(p.kernel("ar1")->collective.bytes, 128LL << 20);
  EXPECT_EQ(p.kernel("ar1")->after, std::vector<std::string>{"attn_out_fwd"});
  EXPECT_EQ(p.kernel("gate_up_fwd")->after, std::vector<std::string>{"ar1"});
  EXPECT_THROW((void)tp_block_program(llama_70b(), 3), InputError);  // 10240 rows do not split 3 ways
}

TEST(ProgramGenerators, MoeLayer) {
  const Program p = moe_layer_program(mixtral_8x7b());
  // 8 experts over 8 GPUs: one local expert receiving 8192 x top-2 = 16384 tokens; dispatch and
  // combine move 16384 x 4096 x 2 B = 128 MiB.
  ASSERT_EQ(p.kernels.size(), 5U);
  EXPECT_EQ(p.kernel("dispatch")->collective.op, CollectiveOp::all_to_all);
  EXPECT_EQ(p.kernel("dispatch")->collective.bytes, 128LL << 20);
  EXPECT_EQ(p.kernel("e0_gate_up")->gemm.m, 2 * 14336);
  EXPECT_EQ(p.kernel("e0_gate_up")->gemm.n, 16384);
  EXPECT_EQ(p.kernel("combine")->after, std::vector<std::string>{"e0_down"});
  MoeConfig bad = mixtral_8x7b();
  bad.ep_degree = 3;
  EXPECT_THROW((void)moe_layer_program(bad), InputError);
}

// An imbalance factor whose scaled sizes leave a program file's bounds is refused at --imbalance
// (a factor of 1e300 scaled the expert GEMMs' n past 2^24 and wrote a program `run` refused).
TEST(ProgramGenerators, MoeImbalanceStaysWithinWhatRunReads) {
  const SourceLocation where{"<command line>", 0, 0};
  const Program moe = moe_layer_program(mixtral_8x7b());
  for (const std::vector<double>& factors : {std::vector<double>{1, 1e300}, std::vector<double>{2000}}) {
    try {
      (void)with_moe_imbalance(moe, factors, where);
      ADD_FAILURE() << "accepted factor " << factors.back();
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "imbalance");
      EXPECT_NE(std::string(e.what()).find("e0_gate_up.gemm[rank"), std::string::npos) << e.what();
    }
  }
  // 100: n = 16384 x 100 < 2^24 and the output 28672 x 1638400 < 2^36 (input_limits.h): it loads.
  const Program ok = with_moe_imbalance(moe, {1, 100}, where);
  EXPECT_EQ(load_programs_string(programs_to_yaml({ok}), "moe.yaml").size(), 1U);
}

}  // namespace
}  // namespace c3sim::wl
