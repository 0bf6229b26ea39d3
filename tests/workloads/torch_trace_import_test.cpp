// PyTorch profiler trace -> program: the hand-made snippet tests/data/torch_trace_small.json with
// every kernel, gap and dependency derived by hand, the event-record and device-selection paths,
// bad input, and the committed real FSDP and TP traces (2 x H200).
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/workloads/source_text.h"
#include "workloads/program_io.h"
#include "workloads/torch_trace_import.h"
#include "workloads/torch_trace_occupancy.h"

namespace c3sim::wl {
namespace {

const char* kSmall = "tests/data/torch_trace_small.json";

TEST(TorchTraceImport, SnippetKernelsGapsAndDependencies) {
  const TorchImportResult r = import_torch_trace(testing::source_text(kSmall), kSmall, {});
  const Program& p = r.program;
  // Streams in id order; kernels in launch-call order (105, 140, 202, 280, 322, 325).
  ASSERT_EQ(p.streams.size(), 2U);
  EXPECT_EQ(p.streams[0].name, "stream7");
  EXPECT_EQ(p.streams[1].name, "stream20");
  ASSERT_EQ(p.kernels.size(), 6U);
  const auto& k = p.kernels;
  // k0: aten::mm([256,512],[512,1024]) in bf16 -> m 256, n 1024, k 512.
  EXPECT_EQ(k[0].name, "k0000_sm90_xmma_gemm_bf16bf16_bf16f32");
  ASSERT_EQ(k[0].kind, KernelKind::gemm);
  EXPECT_EQ(k[0].gemm.m, 256);
  EXPECT_EQ(k[0].gemm.n, 1024);
  EXPECT_EQ(k[0].gemm.k, 512);
  EXPECT_EQ(k[0].gemm.dtype, Dtype::bf16);
  EXPECT_FALSE(k[0].gap_us.has_value());
  // k1: all-gather, Out msg nelems 2097152 bf16 = 4 MiB (the gathered output); launched 140 - 105
  // = 35 us later. It starts at 171, 1 us after the GEMM's end (170): its launch call ended at 145
  // < 170, it is first on stream 20, and a cudaStreamWaitEvent (134) lies between the launches
  // (105, 140): inferred edge k0 -> k1.
  ASSERT_EQ(k[1].kind, KernelKind::collective);
  EXPECT_EQ(k[1].collective.op, CollectiveOp::all_gather);
  EXPECT_EQ(k[1].collective.bytes, 4 << 20);
  EXPECT_EQ(k[1].stream, "stream20");
  EXPECT_DOUBLE_EQ(*k[1].gap_us, 35);
  EXPECT_EQ(k[1].after, std::vector<std::string>{k[0].name});
  // k2: elementwise add, measured 12 us on its grid of 1024 blocks; gap 202 - 140 = 62.
  ASSERT_EQ(k[2].kind, KernelKind::measured);
  EXPECT_DOUBLE_EQ(k[2].measured.time_us, 12);
  EXPECT_EQ(*k[2].measured.workgroups, 1024);
  EXPECT_DOUBLE_EQ(*k[2].gap_us, 62);
  EXPECT_TRUE(k[2].after.empty());
  // k3: a cuBLAS kernel with no matmul op around its launch: measured and listed. Its gap,
  // 280 - 202 = 78, less the 60 us blocked in cudaStreamSynchronize (215..275) = 18.
  ASSERT_EQ(k[3].kind, KernelKind::measured);
  EXPECT_EQ(*k[3].measured.workgroups, 32);  // grid 8 x 4 x 1
  EXPECT_DOUBLE_EQ(*k[3].gap_us, 18);
  EXPECT_DOUBLE_EQ(r.blocked_host_us, 60);
  // k4: memset, one workgroup; gap 322 - 280 = 42. k5: NCCL broadcast, measured and listed; gap 3.
  EXPECT_EQ(k[4].kind, KernelKind::measured);
  EXPECT_EQ(*k[4].measured.workgroups, 1);
  EXPECT_DOUBLE_EQ(*k[4].gap_us, 42);
  EXPECT_EQ(k[5].kind, KernelKind::measured);
  EXPECT_DOUBLE_EQ(*k[5].gap_us, 3);
  ASSERT_EQ(r.unmapped.size(), 2U);
  EXPECT_NE(r.unmapped[0].find(k[3].name), std::string::npos);
  EXPECT_NE(r.unmapped[1].find(k[5].name), std::string::npos);
  EXPECT_EQ(r.gemms, 1);
  EXPECT_EQ(r.collectives, 1);
  EXPECT_EQ(r.measured, 4);
  EXPECT_EQ(r.dependencies.inferred, 1);
  EXPECT_EQ(r.dependencies.exact, 0);
  EXPECT_EQ(r.dependencies.unresolved, 0);
  // The collective's group size; the step from the first start (120) to the last end (345).
  EXPECT_EQ(*p.gpus, 2);
  EXPECT_DOUBLE_EQ(*p.measured_step_us, 225);
  EXPECT_FALSE(p.measured_profiler_step_us.has_value());
}

TEST(TorchTraceImport, YamlRoundTripsWithUnmappedComments) {
  const TorchImportResult r = import_torch_trace(testing::source_text(kSmall), kSmall, {});
  const std::string yaml = torch_import_yaml(r, kSmall);
  EXPECT_NE(yaml.find("# unmapped (2):"), std::string::npos);
  const std::vector<Program> back = load_programs_string(yaml, "imported.yaml");
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(programs_to_yaml(back), programs_to_yaml({r.program}));
  EXPECT_DOUBLE_EQ(*back[0].measured_step_us, 225);
}

TEST(TorchTraceImport, StreamWaitEventRecordsGiveTheEdgesInsteadOfInference) {
  nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
  // Stream 7 waits (wait call corr 13 at host 134) on an event recorded on stream 20 by the
  // cudaEventRecord of corr 12 (host 131). The last kernel launched on stream 20 before 131: none
  // (the all-gather is launched at 140), so re-point it: record on stream 7 and wait on stream 20.
  j["traceEvents"].push_back({{"ph", "X"},
                              {"cat", "cuda_sync"},
                              {"name", "Stream Wait Event"},
                              {"pid", 0},
                              {"tid", 20},
                              {"ts", 150},
                              {"dur", 0},
                              {"args",
                               {{"device", 0},
                                {"stream", 20},
                                {"correlation", 13},
                                {"wait_on_stream", 7},
                                {"wait_on_cuda_event_record_corr_id", 12}}}});
  const TorchImportResult r = import_torch_trace(j.dump(), "sync.json", {});
  // Producer: last kernel launched on stream 7 before the record call (131): k0 (105). Consumer:
  // first kernel launched on stream 20 after the wait call (134): k1 (140). Inference is off.
  EXPECT_EQ(r.dependencies.exact, 1);
  EXPECT_EQ(r.dependencies.inferred, 0);
  EXPECT_TRUE(r.dependencies.sync_records);
  EXPECT_EQ(r.program.kernels[1].after, std::vector<std::string>{r.program.kernels[0].name});
}

// The inference's other outcomes on the snippet (record 131 and wait 134 on host thread 100,
// between the GEMM's launch at 105 and the all-gather's at 140).
nlohmann::json without_event(nlohmann::json j, const std::string& name) {
  auto& ev = j["traceEvents"];
  for (auto it = ev.begin(); it != ev.end(); ++it) {
    if ((*it)["name"] == name) {
      ev.erase(it);
      break;
    }
  }
  return j;
}

TEST(TorchTraceImport, WaitWithoutRecordOnItsThreadIsUnresolved) {
  const nlohmann::json j =
      without_event(nlohmann::json::parse(testing::source_text(kSmall)), "cudaEventRecord");
  const TorchImportResult r = import_torch_trace(j.dump(), "norecord.json", {});
  EXPECT_EQ(r.dependencies.inferred, 0);
  EXPECT_EQ(r.dependencies.unresolved, 1);
  EXPECT_TRUE(r.program.kernels[1].after.empty());
}

TEST(TorchTraceImport, EdgeTheTimelineContradictsIsUnresolved) {
  nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
  // The all-gather starts at 160, before the GEMM (120..170) ends: it did not wait for it, so the
  // event was recorded on a stream other than the GEMM's.
  for (auto& e : j["traceEvents"]) {
    if (e["cat"] == "kernel" && e["args"]["correlation"] == 14) e["ts"] = 160;
  }
  const TorchImportResult r = import_torch_trace(j.dump(), "early.json", {});
  EXPECT_EQ(r.dependencies.inferred, 0);
  EXPECT_EQ(r.dependencies.unresolved, 1);
  EXPECT_TRUE(r.program.kernels[1].after.empty());
}

TEST(TorchTraceImport, WaitBeforeALaunchOnTheRecordedStreamIsSameStream) {
  nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
  // The all-gather moved onto the GEMM's stream 7: the wait adds nothing to stream order.
  for (auto& e : j["traceEvents"]) {
    if (e["cat"] == "kernel" && e["args"]["correlation"] == 14) e["args"]["stream"] = 7;
  }
  const TorchImportResult r = import_torch_trace(j.dump(), "same.json", {});
  EXPECT_EQ(r.dependencies.inferred, 0);
  EXPECT_EQ(r.dependencies.same_stream, 1);
  EXPECT_EQ(r.dependencies.unresolved, 0);
}

TEST(TorchTraceImport, ReduceScatterBytesAreThePerGpuOutput) {
  // nccl-tests and NCCL's Out msg nelems count a reduce-scatter's output: one reduced block per
  // GPU, which is what a program's collective `bytes` is (sim/base/collective_op.h). The snippet's
  // collective turned into a reduce-scatter of 2097152 bf16 in, 1048576 out over 2 GPUs: 2 MiB.
  nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
  for (auto& e : j["traceEvents"]) {
    if (e["name"] == "record_param_comms" && e["args"]["External id"] == 2) {
      e["args"]["Collective name"] = "_reduce_scatter_base";
      e["args"]["In msg nelems"] = 2097152;
      e["args"]["Out msg nelems"] = 1048576;
    }
    if (e["cat"] == "kernel" && e["args"]["correlation"] == 14)
      e["name"] = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  }
  const TorchImportResult r = import_torch_trace(j.dump(), "rs.json", {});
  const ProgramKernel& k = r.program.kernels[1];
  ASSERT_EQ(k.kind, KernelKind::collective);
  EXPECT_EQ(k.collective.op, CollectiveOp::reduce_scatter);
  EXPECT_EQ(k.collective.bytes, 1048576 * 2);
  // Without Out msg nelems, the input over the group: the same block.
  for (auto& e : j["traceEvents"]) {
    if (e["name"] == "record_param_comms" && e["args"]["External id"] == 2) e["args"].erase("Out msg nelems");
  }
  EXPECT_EQ(import_torch_trace(j.dump(), "rs_in.json", {}).program.kernels[1].collective.bytes, 1048576 * 2);
}

TEST(TorchTraceImport, TracedDurationsAndDeviceRoundTrip) {
  nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
  j["deviceProperties"] = {
      {{"id", 0}, {"name", "NVIDIA H200"}, {"numSms", 132}, {"totalGlobalMem", 150109880320}},
      {{"id", 1}, {"name", "other"}, {"numSms", 8}}};
  const TorchImportResult r = import_torch_trace(j.dump(), "dev.json", {});
  ASSERT_TRUE(r.program.device.has_value());
  EXPECT_EQ(r.program.device->name, "NVIDIA H200");
  EXPECT_DOUBLE_EQ(*r.program.kernels[0].traced_us, 50);   // the GEMM ran 120..170
  EXPECT_DOUBLE_EQ(*r.program.kernels[1].traced_us, 100);  // the all-gather 171..271
  // Starts from the start of the first kernel (the GEMM's, at 120).
  EXPECT_DOUBLE_EQ(*r.program.kernels[0].traced_start_us, 0);
  EXPECT_DOUBLE_EQ(*r.program.kernels[1].traced_start_us, 51);
  const Program back = load_programs_string(torch_import_yaml(r, "dev.json"), "dev.yaml").front();
  EXPECT_EQ(programs_to_yaml({back}), programs_to_yaml({r.program}));
  EXPECT_EQ(*back.device->cus, 132);
}

TEST(TorchTraceImport, SyncRecordsWithoutTheirRecordCallPairOnTheHostThread) {
  nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
  // As PyTorch 2.11 writes them on H200: the waiting stream (20) and the wait call (corr 13) are
  // known, the recording stream and record call are -1. The record call is then the latest on the
  // wait call's thread before it (corr 12 at 131); its thread's last launch before it is the GEMM
  // (105, stream 7); the consumer is the first kernel launched on stream 20 after the wait (134):
  // the all-gather. One edge, inferred (its record call was paired, not named).
  j["traceEvents"].push_back({{"ph", "X"},
                              {"cat", "cuda_sync"},
                              {"name", "Stream Wait Event"},
                              {"pid", 0},
                              {"tid", 20},
                              {"ts", 150},
                              {"dur", 1},
                              {"args",
                               {{"device", 0},
                                {"stream", 20},
                                {"correlation", 13},
                                {"wait_on_stream", -1},
                                {"wait_on_cuda_event_record_corr_id", -1}}}});
  const TorchImportResult r = import_torch_trace(j.dump(), "sync_unlinked.json", {});
  EXPECT_TRUE(r.dependencies.sync_records);
  EXPECT_EQ(r.dependencies.exact, 0);
  EXPECT_EQ(r.dependencies.inferred, 1);
  EXPECT_EQ(r.dependencies.unresolved, 0);
  EXPECT_EQ(r.program.kernels[1].after, std::vector<std::string>{r.program.kernels[0].name});
}

TEST(TorchTraceImport, ProfilerStepBoundsTheImport) {
  nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
  // A step annotation from host 100 to 300: the memset (launched 322) and the broadcast (325)
  // fall outside and are left out; the step span is 200 us, the kernels' span 320 - 120 = 200.
  j["traceEvents"].push_back({{"ph", "X"},
                              {"cat", "user_annotation"},
                              {"name", "ProfilerStep#3"},
                              {"pid", 1},
                              {"tid", 100},
                              {"ts", 100},
                              {"dur", 200}});
  const TorchImportResult r = import_torch_trace(j.dump(), "step.json", {});
  EXPECT_EQ(r.program.kernels.size(), 4U);
  EXPECT_DOUBLE_EQ(*r.program.measured_profiler_step_us, 200);
  EXPECT_DOUBLE_EQ(*r.program.measured_step_us, 200);
  // Step 3 of the loop ran after three others: a steady-state iteration (model.power.window).
  EXPECT_TRUE(r.program.steady_state);
}

// ProfilerStep#0 is the loop's first step (nothing ran before it), and a trace without a step
// annotation says nothing of what ran before: both start rested. Step 12 is steady.
TEST(TorchTraceImport, OnlyAStepAfterOthersIsSteadyState) {
  const auto with_step = [](const char* name) {
    nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
    j["traceEvents"].push_back({{"ph", "X"},
                                {"cat", "user_annotation"},
                                {"name", name},
                                {"pid", 1},
                                {"tid", 100},
                                {"ts", 100},
                                {"dur", 200}});
    return import_torch_trace(j.dump(), "step.json", {}).program;
  };
  EXPECT_FALSE(with_step("ProfilerStep#0").steady_state);
  EXPECT_TRUE(with_step("ProfilerStep#12").steady_state);
  EXPECT_FALSE(with_step("ProfilerStep#x").steady_state);
  EXPECT_FALSE(import_torch_trace(testing::source_text(kSmall), kSmall, {}).program.steady_state);
}

TEST(TorchTraceImport, SeveralDevicesNeedDeviceAndRankMustMatch) {
  nlohmann::json j = nlohmann::json::parse(testing::source_text(kSmall));
  nlohmann::json other = j["traceEvents"][2];  // the GEMM kernel, copied onto device 1
  other["args"]["device"] = 1;
  other["args"]["correlation"] = 99;
  j["traceEvents"].push_back(other);
  const std::string text = j.dump();
  EXPECT_THROW((void)import_torch_trace(text, "two.json", {}), InputError);
  TorchImportOptions o;
  o.device = 1;
  const TorchImportResult r = import_torch_trace(text, "two.json", o);
  EXPECT_EQ(r.program.kernels.size(), 1U);
  o.device = 0;
  EXPECT_EQ(import_torch_trace(text, "two.json", o).program.kernels.size(), 6U);
  o.rank = 1;  // the trace's distributedInfo says rank 0
  EXPECT_THROW((void)import_torch_trace(text, "two.json", o), InputError);
}

TEST(TorchTraceImport, NotAProfilerTraceIsAnInputErrorNamingTheFile) {
  for (const char* text :
       {"{\"a\": 1}", "not json", "[1, 2]", "{\"traceEvents\": []}",
        R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]})"}) {
    try {
      (void)import_torch_trace(text, "bad.json", {});
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, "bad.json");
    }
  }
}

TEST(TorchTraceImport, MeasuredKernelYamlIsStrict) {
  const char* ok = R"(program:
  name: m
  streams: [{name: s}]
  kernels:
    - {name: a, stream: s, measured: {time_us: 12.5, workgroups: 64, source: "flash_fwd"}}
)";
  const Program p = load_programs_string(ok, "m.yaml").front();
  EXPECT_EQ(p.kernels[0].kind, KernelKind::measured);
  EXPECT_DOUBLE_EQ(p.kernels[0].measured.time_us, 12.5);
  for (const char* body : {"{time_us: 0}", "{time_us: -1}", "{time_us: 1, workgroups: 0}",
                           "{time_us: 1, bytes: 4}", "{workgroups: 4}"}) {
    const std::string bad = std::string(
                                "program:\n  name: m\n  streams: [{name: s}]\n  kernels:\n"
                                "    - {name: a, stream: s, measured: ") +
                            body + "}\n";
    EXPECT_THROW((void)load_programs_string(bad, "m.yaml"), InputError) << body;
  }
}

TEST(TorchTraceImport, TracedStartYamlIsStrict) {
  const std::string head =
      "program:\n  name: m\n  streams: [{name: s}]\n  kernels:\n"
      "    - {name: a, stream: s, measured: {time_us: 1}, traced_us: 1, traced_start_us: ";
  EXPECT_DOUBLE_EQ(*load_programs_string(head + "2.5}\n", "m.yaml").front().kernels[0].traced_start_us, 2.5);
  for (const char* bad : {"-1", "x", ".nan", "1e20"})
    EXPECT_THROW((void)load_programs_string(head + bad + "}\n", "m.yaml"), InputError) << bad;
}

// The committed 2 x H200 traces (hardware/measurements/torch_traces/README.md): every kernel is
// mapped as a GEMM or collective or kept as measured; nothing is unmapped; the GEMMs are those of
// capture_step.py's linears.
TEST(TorchTraceImport, RealFsdpTraceMapsEveryGemmAndCollective) {
  const std::string f = "hardware/measurements/torch_traces/fsdp_rank0.json";
  const TorchImportResult r = import_torch_trace(testing::source_text(f), f, {});
  // 4 layers x 4 linears x (forward, input gradient, weight gradient).
  EXPECT_EQ(r.gemms, 48);
  EXPECT_TRUE(r.unmapped.empty()) << r.unmapped.front();
  EXPECT_EQ(r.gemms + r.collectives + r.measured, static_cast<int>(r.program.kernels.size()));
  int ag = 0, rs = 0, qkv_fwd = 0, down_wgrad = 0;
  double first_start = 1e300, last_end = 0;
  // One layer's parameters: 4096 x (12288 + 4096 + 22016) + 11008 x 4096 + 2 x 4096 norm weights
  // = 202383360 bf16 = 404766720 bytes, gathered whole (the all-gather's per-GPU output) and
  // reduce-scattered into one 202383360-byte block per GPU (the reduce-scatter's per-GPU output:
  // Out msg nelems 101191680 x 2 bytes).
  for (const auto& k : r.program.kernels) {
    if (k.kind == KernelKind::collective) {
      const bool gather = k.collective.op == CollectiveOp::all_gather;
      EXPECT_EQ(k.collective.bytes, gather ? 404766720 : 202383360);
      (gather ? ag : rs) += 1;
      // Each gather waits for its copy-in and each reduce-scatter for its gradients: a kernel on
      // another stream, launched before it.
      ASSERT_EQ(k.after.size(), 1U) << k.name;
      const ProgramKernel* producer = r.program.kernel(k.after[0]);
      ASSERT_NE(producer, nullptr);
      EXPECT_NE(producer->stream, k.stream);
      EXPECT_LT(r.program.kernel_index(producer->name), r.program.kernel_index(k.name));
    }
    if (k.kind == KernelKind::gemm && k.gemm.m == 4096 && k.gemm.n == 12288 && k.gemm.k == 4096) ++qkv_fwd;
    // down's weight gradient: dy^T[4096 out, 4096 tokens] x x[4096 tokens, 11008 in].
    if (k.kind == KernelKind::gemm && k.gemm.m == 4096 && k.gemm.n == 11008 && k.gemm.k == 4096) ++down_wgrad;
    ASSERT_TRUE(k.traced_us.has_value()) << k.name;
    ASSERT_TRUE(k.traced_start_us.has_value()) << k.name;
    first_start = std::min(first_start, *k.traced_start_us);
    last_end = std::max(last_end, *k.traced_start_us + *k.traced_us);
  }
  // The traced starts span the traced step: the first kernel at 0, the last ending at its end (to
  // the trace's resolution, 1 ns: start + duration is rounded apart from the absolute end).
  EXPECT_DOUBLE_EQ(first_start, 0);
  EXPECT_NEAR(last_end, *r.program.measured_step_us, 1e-3);
  EXPECT_EQ(rs, 4);          // one per layer
  EXPECT_GE(ag, 4);          // forward, plus the backward re-gathers
  EXPECT_EQ(qkv_fwd, 4);     // one per layer
  EXPECT_EQ(down_wgrad, 8);  // and gate_up's input gradient has the same shape
  EXPECT_EQ(*r.program.gpus, 2);
  EXPECT_GT(r.program.streams.size(), 1U);
  // No Stream Wait Event records in this trace (the default profile): every edge is inferred.
  EXPECT_FALSE(r.dependencies.sync_records);
  EXPECT_EQ(r.dependencies.exact, 0);
  EXPECT_GE(r.dependencies.inferred, 12);
  // deviceProperties of device 0.
  ASSERT_TRUE(r.program.device.has_value());
  EXPECT_EQ(r.program.device->name, "NVIDIA H200");
  EXPECT_EQ(*r.program.device->cus, 132);
  EXPECT_EQ(*r.program.device->memory_bytes, 150109880320);
}

// FSDP2's copy-in, all-gather and reduce-scatter streams are high priority (FSDP2 creates them at
// priority -1; the trace shows which streams ran them), the compute stream is not; an
// elementwise kernel whose grid is more than one wave of 132 SMs runs in waves of its occupancy.
TEST(TorchTraceImport, RealFsdpTraceGivesFsdpStreamsPriorityAndGridsTheirWaves) {
  const std::string f = "hardware/measurements/torch_steps/fsdp_w4k/rank0.json";
  const TorchImportResult r = import_torch_trace(testing::source_text(f), f, {});
  EXPECT_EQ(r.high_priority_streams, (std::vector<std::string>{"stream18", "stream22", "stream26"}));
  for (const ProgramStream& s : r.program.streams)
    EXPECT_EQ(s.priority, s.name == "stream7" ? 0 : 1) << s.name;
  EXPECT_GT(r.measured_in_waves, 0);
  // k0019: silu over 88064 blocks of 128 threads, 20 registers, no shared memory: the SM holds
  // min(32, 2048 / 128, 65536 / (768 x 4)) = 16 of them.
  const ProgramKernel* silu = r.program.kernel("k0019_elementwise_kernel");
  ASSERT_NE(silu, nullptr);
  EXPECT_EQ(*silu->measured.workgroups, 88064);
  ASSERT_TRUE(silu->measured.blocks_per_cu.has_value());
  EXPECT_EQ(*silu->measured.blocks_per_cu, 16);
  EXPECT_NE(torch_import_yaml(r, f).find("high-priority streams"), std::string::npos);
}

TEST(TorchTraceImport, BlocksPerSmFollowTheLaunchAndTheDevice) {
  TraceDevice h200;
  h200.name = "NVIDIA H200";
  h200.threads_per_cu = 2048;
  h200.registers_per_cu = 65536;
  h200.shared_memory_per_cu = 233472;
  h200.compute_major = 9;
  h200.compute_minor = 0;
  TraceEvent k;
  k.block_threads = 128;
  k.registers = 20;
  k.shared_memory = 0;
  EXPECT_EQ(trace_blocks_per_sm(k, h200), 16);  // threads
  k.block_threads = 256;
  k.registers = 64;
  EXPECT_EQ(trace_blocks_per_sm(k, h200), 4);  // registers: 64 x 32 per warp x 8 warps
  k.registers = 0;
  k.shared_memory = 100 * 1024;
  EXPECT_EQ(trace_blocks_per_sm(k, h200), 2);  // shared memory: 233472 / (102400 + 1024)
  k.block_threads = 32;
  k.shared_memory = 0;
  EXPECT_EQ(trace_blocks_per_sm(k, h200), 32);  // the SM's block slots
  h200.compute_minor = 9;
  h200.compute_major = 8;
  EXPECT_EQ(trace_blocks_per_sm(k, h200), 24);  // compute capability 8.9
  TraceDevice amd = h200;
  amd.name = "AMD Instinct MI300X";
  EXPECT_FALSE(trace_blocks_per_sm(k, amd).has_value());
  k.block_threads = 0;
  EXPECT_FALSE(trace_blocks_per_sm(k, h200).has_value());
}

TEST(TorchTraceImport, RealTpTraceMapsEveryGemmAndAllReduce) {
  const std::string f = "hardware/measurements/torch_traces/tp_rank0.json";
  const TorchImportResult r = import_torch_trace(testing::source_text(f), f, {});
  // 4 blocks x 2 linears x 3, less the first block's input gradient (x needs no gradient).
  EXPECT_EQ(r.gemms, 23);
  // Forward g after each block (4) and backward f before each block but the first (3), each the
  // 8192 x 8192 bf16 activation = 128 MiB.
  EXPECT_EQ(r.collectives, 7);
  EXPECT_TRUE(r.unmapped.empty());
  EXPECT_TRUE(r.high_priority_streams.empty());  // no FSDP2 ranges: every stream at its default
  for (const auto& k : r.program.kernels) {
    if (k.kind == KernelKind::collective) {
      EXPECT_EQ(k.collective.op, CollectiveOp::all_reduce);
      EXPECT_EQ(k.collective.bytes, 8192LL * 8192 * 2);
    }
  }
}

}  // namespace
}  // namespace c3sim::wl
