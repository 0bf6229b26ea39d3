// A gather (a `memory` kernel with `gather:`, an embedding lookup; models/kernels/memory_kernel.h)
// on the h200-sxm preset: bound by its threads' two dependent round trips per item when it pools
// few rows, by model.memory.gather_bandwidth when it pools many, plus a fixed cost once per kernel.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/program/program_simulator.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

constexpr double kSmsH200 = 132;

// One lookup alone on one GPU: `bytes` over one workgroup per SM (a grid-stride loop).
double lookup_us(const hw::NodeSpec& spec, std::int64_t bytes, const std::string& gather) {
  const std::string yaml = fmt::format(R"(program:
  name: lookup
  streams: [{{name: s}}]
  kernels:
    - {{name: l, stream: s, memory: {{bytes: {}{}}}}}
)",
                                       bytes, gather.empty() ? "" : ", gather: " + gather);
  ProgramSimulator sim(spec);
  return sim.simulate(wl::load_programs_string(yaml, "lookup.yaml").front()).step_us;
}

// With two rows per item, 1024 threads per SM move 3 x 16 B per two round trips of
// gather_latency: 132 x 1024 x 48 B / (2 x 0.93 us) = 3.49 TB/s, below gather_bandwidth (4.09), so
// the round trips bound it: each extra byte costs 1 / 3.49 TB/s.
TEST(MemoryGather, FewRowsPerItemAreBoundByRoundTrips) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  const hw::MemoryModel& m = spec.model.memory;
  ASSERT_GT(m.gather_latency, 0);
  const double rate = kSmsH200 * 1024 * 16 * 3 / (2 * m.gather_latency);
  ASSERT_LT(rate, m.gather_bw);
  const std::string gather = "{rows_per_item: 2, threads_per_cu: 1024}";
  const std::int64_t small = std::int64_t{256} << 20;
  const std::int64_t large = std::int64_t{1} << 30;
  const double t_small = lookup_us(spec, small, gather);
  const double t_large = lookup_us(spec, large, gather);
  EXPECT_NEAR((t_large - t_small) * 1e-6, static_cast<double>(large - small) / rate,
              1e-3 * static_cast<double>(large - small) / rate);
  // The rest is the launch and the gather's fixed cost, once.
  const double fixed_us = t_large - static_cast<double>(large) / rate * 1e6;
  EXPECT_NEAR(fixed_us, (spec.model.dispatch.kernel_launch_latency + m.gather_startup_latency) * 1e6, 0.05);
  // Twice the threads in flight: 6.98 TB/s of round trips, so HBM at gather_bandwidth binds instead.
  const double t_twice = lookup_us(spec, large, "{rows_per_item: 2, threads_per_cu: 2048}");
  EXPECT_NEAR(t_twice - fixed_us, static_cast<double>(large) / m.gather_bw * 1e6, 0.5);
}

// With 32 rows per item the round trips allow 132 x 1024 x 33 x 16 B / 1.86 us = 38 TB/s, more than
// a workgroup streams (model.memory.workgroup_stream_bandwidth x 132 = 8.1 TB/s) and than HBM gives
// random rows: gather_bandwidth binds, whatever the threads in flight.
TEST(MemoryGather, ManyRowsPerItemAreBoundByGatherBandwidth) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  const std::int64_t bytes = std::int64_t{4} << 30;
  const double t = lookup_us(spec, bytes, "{rows_per_item: 32, threads_per_cu: 1024}");
  EXPECT_DOUBLE_EQ(t, lookup_us(spec, bytes, "{rows_per_item: 32, threads_per_cu: 2048}"));
  const double fixed_us =
      (spec.model.dispatch.kernel_launch_latency + spec.model.memory.gather_startup_latency) * 1e6;
  EXPECT_NEAR(t - fixed_us, static_cast<double>(bytes) / spec.model.memory.gather_bw * 1e6, 0.5);
  // A stream of the same bytes runs at the copy-measured hbm_bandwidth (4.3 TB/s), faster than the
  // random rows' 4.09 and without the fixed cost.
  EXPECT_LT(lookup_us(spec, bytes, ""), t);
}

// Hardware without the gather fields (the MI300X preset: no gather measured) streams a gather's
// bytes as any memory kernel's.
TEST(MemoryGather, WithoutGatherFieldsAGatherStreams) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ASSERT_EQ(spec.model.memory.gather_latency, 0);
  const std::int64_t bytes = std::int64_t{1} << 30;
  EXPECT_DOUBLE_EQ(lookup_us(spec, bytes, "{rows_per_item: 2, threads_per_cu: 1024}"),
                   lookup_us(spec, bytes, ""));
}

}  // namespace
}  // namespace c3sim::models
