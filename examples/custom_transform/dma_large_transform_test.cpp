// The example transformation registered with one line and used through the registry like a
// built-in: checked, applied, swept and run on the simulator.
#include <gtest/gtest.h>

#include "examples/custom_transform/dma_large_transform.h"
#include "hardware/hardware_loader.h"
#include "models/run/program_runner.h"
#include "workloads/program_io.h"

namespace {

constexpr const char* kTwoGathers = R"(program:
  name: two_gathers
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: g, stream: compute, gemm: cb1}
    - {name: big, stream: comm, collective: {op: all_gather, bytes: 896 MiB}}
    - {name: small, stream: comm, collective: {op: all_gather, bytes: 16 MiB}}
)";

TEST(CustomTransform, OneRegistryLineMakesItAPolicy) {
  const c3sim::hw::NodeSpec spec = c3sim::hw::load_hardware("mi300x");
  c3sim::models::TransformRegistry registry = c3sim::models::builtin_transforms();
  registry.add(example::dma_large_entry());  // the one line

  EXPECT_NE(registry.help_text().find("dma_large:<mib>"), std::string::npos);
  EXPECT_THROW(registry.check("dma_large:0", spec, {}), c3sim::InputError);
  EXPECT_EQ(registry.expand("dma_large_best", spec).size(), 3U);

  const c3sim::wl::Program p = c3sim::wl::load_programs_string(kTwoGathers, "two.yaml")[0];
  const c3sim::wl::Program t = registry.apply("dma_large:256+sp", p, spec);
  EXPECT_EQ(t.kernel("big")->collective.impl, c3sim::wl::CollectiveImpl::dma);
  EXPECT_EQ(t.kernel("small")->collective.impl, c3sim::wl::CollectiveImpl::cu);  // under 256 MiB

  // Runs like a built-in; the sweep's winner is no slower than any of its candidates.
  c3sim::models::ProgramSimulator sim(spec);
  const auto best = c3sim::models::run_program_policy(sim, registry, p, "dma_large_best");
  for (const auto& name : registry.expand("dma_large_best", spec)) {
    EXPECT_LE(best.step_us, c3sim::models::run_program_policy(sim, registry, p, name).step_us) << name;
  }
}

}  // namespace
