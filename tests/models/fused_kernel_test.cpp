// The fused compute + communication kernel (models/kernels/fused_kernel.h) and the `fuse`
// transformation (models/policies/fuse_transform.h): its time alone derived by hand, when it beats
// the bulk kernel + collective and when it loses, the registry's handling of the name, traces that
// show the sends inside the kernel, and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_loader.h"
#include "models/kernels/fused_kernel.h"
#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"
#include "sim/engine/trace_recorder.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

wl::Program load_fused_program(const std::string& yaml) {
  return wl::load_programs_string(yaml, "test.yaml").front();
}

// An embedding-like memory kernel of 4 workgroups feeding an all-to-all, fused by hand.
const char* kSmallFused = R"(program:
  name: small_fused
  streams: [{name: s}]
  kernels:
    - name: lookup_a2a
      stream: s
      fused: {messages_per_workgroup: 2}
      memory: {bytes: 64 MiB, workgroups: 4}
      collective: {op: all_to_all, bytes: 16 MiB}
)";

TEST(FusedKernel, AloneTakesComputeThenItsWavesSendAndMessageOverheads) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ProgramSimulator sim(spec);
  const wl::Program p = load_fused_program(kSmallFused);
  // 4 workgroups on 304 CUs: one wave, each alone at its own rates (nothing else runs, and 4
  // streams or 4 stores at these rates are far below HBM, fabric and the links: 4 x 10 GB/s
  // spread over 7 links of 48 GB/s).
  const double g = spec.interconnect.gpus;  // 8
  const double wg_stream = spec.model.memory.workgroup_stream_bw > 0
                               ? spec.model.memory.workgroup_stream_bw
                               : 2.0 * spec.model.collective.workgroup_copy_bw;
  const double compute_s = (64.0 * (1 << 20) / 4) / wg_stream;
  // An all-to-all sends (g - 1) / g of its bytes; each workgroup a quarter, at one workgroup's
  // store rate, after its 2 messages' overhead (MI300X: no model.fused.message_overhead, so the LL
  // protocol's step latency).
  const double send_bytes = 16.0 * (1 << 20) * (g - 1) / g / 4;
  const double send_s = send_bytes / spec.model.collective.workgroup_copy_bw;
  const double overhead_s = 2 * spec.model.collective.ll_step_latency;
  EXPECT_DOUBLE_EQ(fused_message_overhead(spec), spec.model.collective.ll_step_latency);
  const double expected_us =
      (spec.model.dispatch.kernel_launch_latency + compute_s + overhead_s + send_s) * 1e6;
  const ProgramRun run = sim.simulate(p);
  EXPECT_NEAR(run.step_us, expected_us, 1e-3) << "launch + compute + overheads + send";
  EXPECT_DOUBLE_EQ(run.kernels[0].bytes_sent, 16.0 * (1 << 20) * (g - 1) / g);

  // Each workgroup is its own cohort per XCD here: per-workgroup fidelity gives the same time.
  ProgramSimulator per_wg(spec, 1);
  EXPECT_NEAR(per_wg.simulate(p).step_us, run.step_us, 1e-6);

  // The hardware file's own overhead replaces the default; a lost occupancy slows the compute.
  hw::NodeSpec slow = spec;
  slow.model.fused.message_overhead = 5e-6;
  slow.model.fused.occupancy_ratio = 0.5;
  ProgramSimulator slow_sim(slow);
  const double slow_expected_us =
      (spec.model.dispatch.kernel_launch_latency + compute_s / 0.5 + 2 * 5e-6 + send_s) * 1e6;
  EXPECT_NEAR(slow_sim.simulate(p).step_us, slow_expected_us, 1e-3);
}

// A TP row-parallel linear: the GEMM's partial output reduce-scattered over the node.
const char* kGemmRs = R"(program:
  name: gemm_rs
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: fc2, stream: compute, gemm: {m: 8192, n: 8192, k: 4096, dtype: bf16}}
    - {name: rs, stream: comm, after: [fc2], collective: {op: reduce_scatter, bytes: 16 MiB}}
)";

TEST(FusedKernel, BeatsBulkWhenComputeAndCommunicationAreComparable) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ProgramSimulator sim(spec);
  const TransformRegistry& reg = builtin_registry();
  // An embedding lookup of 4096 small workgroups and the all-to-all of its output, each alone
  // within 20% of the other. Bulk: the lookup, then the whole all-to-all (launch, protocol steps,
  // FIFO copy passes). Fused: each wave's rows leave at the links' rate as the wave ends, the
  // last wave's alone exposed.
  const wl::Program emb = load_fused_program(R"(program:
  name: emb
  streams: [{name: s}]
  kernels:
    - {name: lookup, stream: s, memory: {bytes: 704 MiB, workgroups: 4096}}
    - {name: a2a, stream: s, after: [lookup], collective: {op: all_to_all, bytes: 64 MiB}}
)");
  const double lookup_alone = sim.isolated_us(emb, 0);
  const double a2a_alone = sim.isolated_us(emb, 1);
  ASSERT_NEAR(lookup_alone / a2a_alone, 1.0, 0.2);
  const double base = sim.simulate(reg.apply("base", emb, spec)).step_us;
  const double fuse = sim.simulate(reg.apply("fuse", emb, spec)).step_us;
  EXPECT_GT(base, lookup_alone + 0.9 * a2a_alone);
  EXPECT_LT(fuse, base - 0.1 * a2a_alone) << "base " << base << " fuse " << fuse;
  EXPECT_GT(fuse, lookup_alone) << "the fused kernel still reads every row";

  // The GEMM + reduce-scatter: fused beats bulk too, by less: one 256x256 tile per CU, so a
  // wave's sends hold every CU of the wave while they share the links.
  const wl::Program p = load_fused_program(kGemmRs);
  const double gemm_base = sim.simulate(reg.apply("base", p, spec)).step_us;
  const double gemm_fuse = sim.simulate(reg.apply("fuse", p, spec)).step_us;
  EXPECT_LT(gemm_fuse, gemm_base);
  EXPECT_GT(gemm_fuse, sim.isolated_us(p, 0));
}

TEST(FusedKernel, LosesWhenPerMessageOverheadDominates) {
  // Tiny rows per workgroup and a small exchange: every one of 64k workgroups pays its messages'
  // overhead holding a CU, which the bulk all-to-all pays once per step.
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ProgramSimulator sim(spec);
  const wl::Program p = load_fused_program(R"(program:
  name: tiny
  streams: [{name: s}]
  kernels:
    - {name: lookup, stream: s, memory: {bytes: 64 MiB, workgroups: 65536}}
    - {name: a2a, stream: s, collective: {op: all_to_all, bytes: 8 MiB}}
)");
  const TransformRegistry& reg = builtin_registry();
  const double base = sim.simulate(reg.apply("base", p, spec)).step_us;
  const double fuse = sim.simulate(reg.apply("fuse", p, spec)).step_us;
  // 65536 workgroups over 304 CUs: ~216 waves, each paying 0.5 us of overhead: > 100 us more.
  EXPECT_GT(fuse, base + 50) << "base " << base << " fuse " << fuse;
}

TEST(FuseTransform, ParsesComposesAndRewiresDependencies) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  const TransformRegistry& reg = builtin_registry();
  const wl::Program p = load_fused_program(R"(program:
  name: layer
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: pre, stream: compute, memory: {bytes: 1 MiB}}
    - {name: fc2, stream: compute, gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}}
    - {name: rs, stream: comm, after: [fc2, pre], collective: {op: reduce_scatter, bytes: 4 MiB}}
    - {name: copy_out, stream: comm, memory: {bytes: 1 MiB}}
    - {name: next, stream: compute, after: [rs], gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}}
)");
  const PolicyName name = reg.check("fuse", spec, {});
  ASSERT_TRUE(name.is_concrete());
  EXPECT_FALSE(reg.cannot_apply(name, p).has_value());
  const wl::Program out = reg.apply(name, p, spec);
  ASSERT_EQ(out.kernels.size(), 4U);
  const wl::ProgramKernel& f = out.kernels[1];
  EXPECT_EQ(f.name, "fc2+rs");
  EXPECT_EQ(f.kind, wl::KernelKind::fused);
  EXPECT_EQ(f.fused.producer, wl::KernelKind::gemm);
  EXPECT_EQ(f.stream, "compute");
  EXPECT_EQ(f.gemm.m, 4096);
  EXPECT_EQ(f.collective.op, wl::CollectiveOp::reduce_scatter);
  EXPECT_EQ(f.after, std::vector<std::string>{"pre"});
  // copy_out followed rs on the comm stream: it now waits for the fused kernel.
  EXPECT_EQ(out.kernels[2].name, "copy_out");
  EXPECT_EQ(out.kernels[2].after, std::vector<std::string>{"fc2+rs"});
  EXPECT_EQ(out.kernels[3].after, std::vector<std::string>{"fc2+rs"});
  // Composition: fused, then the collective stream raised (there is none left to raise here, so
  // the program simply runs fused).
  const wl::Program composed = reg.apply("fuse+prio", p, spec);
  EXPECT_EQ(composed.kernels[1].kind, wl::KernelKind::fused);
  ProgramSimulator sim(spec);
  EXPECT_GT(sim.simulate(composed).step_us, 0);
  // The fused kernel goes through the program file and back unchanged.
  const wl::Program again = load_fused_program(wl::programs_to_yaml({out}));
  EXPECT_EQ(wl::programs_to_yaml({again}), wl::programs_to_yaml({out}));
}

TEST(FuseTransform, ProducerKindSelectsWhichPairsFuse) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  const TransformRegistry& reg = builtin_registry();
  // A lookup feeding a forward all-to-all and a GEMM feeding a backward one, as in a DLRM step.
  const wl::Program p = load_fused_program(R"(program:
  name: two_pairs
  streams: [{name: emb}, {name: top}, {name: a2a}]
  kernels:
    - {name: lookup, stream: emb, memory: {bytes: 64 MiB, workgroups: 512}}
    - {name: a2a_fwd, stream: a2a, after: [lookup], collective: {op: all_to_all, bytes: 16 MiB}}
    - {name: dgrad, stream: top, after: [a2a_fwd], gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}}
    - {name: a2a_bwd, stream: a2a, after: [dgrad], collective: {op: all_to_all, bytes: 16 MiB}}
)");
  auto fused_names = [](const wl::Program& out) {
    std::vector<std::string> names;
    for (const auto& k : out.kernels)
      if (k.kind == wl::KernelKind::fused) names.push_back(k.name);
    return names;
  };
  EXPECT_EQ(fused_names(reg.apply("fuse", p, spec)),
            (std::vector<std::string>{"lookup+a2a_fwd", "dgrad+a2a_bwd"}));
  EXPECT_EQ(fused_names(reg.apply("fuse_memory", p, spec)), std::vector<std::string>{"lookup+a2a_fwd"});
  EXPECT_EQ(fused_names(reg.apply("fuse_gemm", p, spec)), std::vector<std::string>{"dgrad+a2a_bwd"});
  // Only a GEMM feeds this program's collective: fuse_memory has nothing to fuse, and says so by name.
  const wl::Program gemm_only = load_fused_program(R"(program:
  name: gemm_rs
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: fc2, stream: compute, gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}}
    - {name: rs, stream: comm, after: [fc2], collective: {op: reduce_scatter, bytes: 4 MiB}}
)");
  const auto why = reg.cannot_apply("fuse_memory", gemm_only);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("a memory kernel"), std::string::npos) << *why;
  try {
    (void)reg.apply("fuse_memory", gemm_only, spec);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'fuse_memory'"), std::string::npos) << e.what();
  }
}

TEST(FuseTransform, NothingToFuseIsAnErrorNamingThePolicyAndProgram) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  const TransformRegistry& reg = builtin_registry();
  // The C3 pair: the collective does not consume the GEMM.
  const wl::Program p = load_fused_program(R"(program:
  name: independent_pair
  streams: [{name: a}, {name: b}]
  kernels:
    - {name: gemm, stream: a, gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}}
    - {name: ag, stream: b, collective: {op: all_gather, bytes: 64 MiB}}
)");
  const auto why = reg.cannot_apply("fuse", p);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("'fuse' needs"), std::string::npos) << *why;
  try {
    (void)reg.apply("fuse", p, spec);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("fuse"), std::string::npos) << what;
    EXPECT_NE(what.find("independent_pair"), std::string::npos) << what;
  }
  EXPECT_THROW((void)reg.parse("fuse:4", {}), InputError) << "fuse takes no argument";
}

TEST(FusedKernel, TraceShowsSendsStreamingOutDuringTheKernel) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ProgramSimulator sim(spec);
  const wl::Program fused = builtin_registry().apply("fuse", load_fused_program(kGemmRs), spec);
  engine::TraceRecorder trace;
  ProgramKnobs knobs;
  knobs.trace = &trace;
  (void)sim.simulate(fused, knobs);
  const engine::TraceSpan* kernel = nullptr;
  TimePs first_send = -1;
  int sends = 0;
  for (const engine::TraceSpan& s : trace.spans()) {
    if (s.track.kind == engine::TrackKind::stream && s.name == "fused:fc2+rs") kernel = &s;
    if (s.name.rfind("send fused:fc2+rs", 0) == 0) {
      ++sends;
      first_send = first_send < 0 ? s.begin : std::min(first_send, s.begin);
    }
  }
  ASSERT_NE(kernel, nullptr);
  ASSERT_GT(sends, 1);
  EXPECT_GT(first_send, kernel->begin);
  // The first sends start in the kernel's first quarter, long before it ends.
  EXPECT_LT(first_send, kernel->begin + (kernel->end - kernel->begin) / 4);
}

TEST(FusedKernel, HardwareFieldsTakeUnitsAndRejectOutOfRange) {
  hw::NodeSpec spec = hw::load_hardware("mi300x");
  EXPECT_LT(spec.model.fused.message_overhead, 0) << "absent in the MI300X preset";
  hw::set_field(spec, "model.fused.message_overhead", "2 us");
  hw::set_field(spec, "model.fused.occupancy_ratio", "0.75");
  EXPECT_DOUBLE_EQ(fused_message_overhead(spec), 2e-6);
  EXPECT_DOUBLE_EQ(spec.model.fused.occupancy_ratio, 0.75);
  EXPECT_THROW(hw::set_field(spec, "model.fused.occupancy_ratio", "1.5"), InputError);
  EXPECT_THROW(hw::set_field(spec, "model.fused.message_overhead", "2 GB/s"), InputError);
  // Hopper's own value (measured: c3bench's fused embedding + all-to-all, hardware/citations.yaml).
  EXPECT_DOUBLE_EQ(fused_message_overhead(hw::load_hardware("h200-sxm")), 0.33e-6);
}

TEST(FusedKernel, ProgramFileErrorsNameTheKey) {
  // A fused kernel needs its collective and exactly one producer body.
  try {
    (void)load_fused_program(R"(program:
  name: bad
  streams: [{name: s}]
  kernels:
    - {name: f, stream: s, fused: {}, gemm: {m: 64, n: 64, k: 64, dtype: bf16}}
)");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fused"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)load_fused_program(R"(program:
  name: bad
  streams: [{name: s}]
  kernels:
    - name: f
      stream: s
      fused: {messages_per_workgroup: 0}
      memory: {bytes: 1 MiB}
      collective: {op: all_to_all, bytes: 8 MiB}
)"),
               InputError);
}

TEST(FusedKernel, Deterministic) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  const wl::Program fused = builtin_registry().apply("fuse", load_fused_program(kGemmRs), spec);
  ProgramSimulator a(spec);
  ProgramSimulator b(spec);
  const ProgramRun ra = a.simulate(fused);
  const ProgramRun rb = b.simulate(fused);
  EXPECT_EQ(ra.step_us, rb.step_us);
  EXPECT_EQ(ra.kernels[0].end_ps, rb.kernels[0].end_ps);
}

}  // namespace
}  // namespace c3sim::models
