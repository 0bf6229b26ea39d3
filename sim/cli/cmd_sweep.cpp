// c3sim sweep SWEEP.yaml: hardware/workload variations x scenarios x policies on all cores, and
// across MPI ranks when launched by mpirun (each rank a strided share of the tasks; rank 0
// writes the merged output, byte-identical to a single-process run).
#include <thread>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/cli/mpi_world.h"
#include "sim/cli/output.h"
#include "sim/cli/progress.h"
#include "sim/sweep/sweep_output.h"
#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_spec.h"

namespace c3sim::cli {

namespace {

struct SweepArgs {
  std::string file;
  std::string output;
  std::string format;
  int threads = 0;
  bool quiet = false;
};

sweep::OutputFormat output_format(const SweepArgs& a) {
  std::string f = a.format;
  if (f.empty()) f = a.output.ends_with(".jsonl") ? "jsonl" : "csv";
  return parse_format(f, {Format::csv, Format::jsonl}) == Format::jsonl ? sweep::OutputFormat::jsonl
                                                                        : sweep::OutputFormat::csv;
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand(
      "sweep", "Sweep hardware/workload fields x scenarios x policies (TBB; MPI under mpirun)");
  cmd->add_option("sweep", a->file, "Sweep YAML file")->required();
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->add_option("--format", a->format, "csv | jsonl (default: from the -o extension, else csv)");
  cmd->add_option("--threads", a->threads, "Worker threads per process (default: every core)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("-q,--quiet", a->quiet, "No progress output");
  cmd->callback([a] {
    const sweep::OutputFormat format = output_format(*a);
    MpiWorld world;
    // Every rank loads and checks the whole file: a bad file fails identically everywhere.
    const sweep::SweepSpec spec = sweep::load_sweep_file(a->file);
    const std::vector<std::size_t> mine = sweep::share_of(spec, world.rank(), world.size());

    const int threads =
        a->threads > 0 ? a->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    ProgressBar bar(world.active() ? fmt::format("c3sim sweep (rank 0 of {})", world.size()) : "c3sim sweep",
                    "points", !a->quiet && world.rank() == 0);
    sweep::RunOptions options;
    options.threads = threads;
    options.progress = [&bar](std::size_t done, std::size_t total) { bar.update(done, total); };

    std::vector<std::pair<std::size_t, std::string>> pieces;
    bool failed = false;
    std::string failure;
    try {
      const std::vector<sweep::TaskResult> results = sweep::run_tasks(spec, mine, options);
      pieces.reserve(results.size());
      for (const auto& r : results) pieces.emplace_back(r.task, sweep::render_task(spec, r, format));
    } catch (const std::exception& e) {
      failed = true;  // keep going to the agreement below so no rank waits forever in gather
      failure = e.what();
    }
    if (world.any(failed)) {
      throw ModelError(failed ? failure : "sweep failed on another MPI rank");
    }
    const std::vector<std::string> texts = world.gather(pieces);
    bar.finish(mine.size() * spec.policies.size(),
               fmt::format("{} thread{}{}", threads, threads == 1 ? "" : "s",
                           world.active() ? fmt::format(" x {} ranks", world.size()) : ""));
    if (world.rank() != 0) return;
    std::string out = sweep::render_header(spec, format);
    for (const auto& t : texts) out += t;
    write_output(a->output, out);
  });
}

}  // namespace c3sim::cli
