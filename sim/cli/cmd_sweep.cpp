// c3sim sweep SWEEP.yaml: hardware/workload variations x scenarios x policies on all cores, and
// across MPI ranks when launched by mpirun (each rank a strided share of the tasks; rank 0
// writes the merged output, byte-identical to a single-process run).
#include <exception>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "sim/base/errors.h"
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
    const OutputTarget target{a->output, "-o"};
    check_outputs({target}, {a->file});
    MpiWorld world;
    // Every rank loads and checks the whole file: a bad file fails identically everywhere.
    const sweep::SweepSpec spec = sweep::load_sweep_file(a->file);
    check_outputs({target}, spec.input_files);
    if (world.rank() == 0) {
      for (const auto& w : spec.warnings) std::cerr << "c3sim sweep: warning: " << w << "\n";
    }

    const int threads =
        a->threads > 0 ? a->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    ProgressBar bar(world.active() ? fmt::format("c3sim sweep (rank 0 of {})", world.size()) : "c3sim sweep",
                    "points", !a->quiet && world.rank() == 0);
    // Streamed in chunks: each rank runs its share of a chunk, rank 0 appends the chunk in task
    // order to the staged output, then the next chunk. Memory holds one chunk (results and text),
    // whatever the point count; 64 tasks per thread keeps every core busy between merges.
    const std::size_t chunk_tasks = static_cast<std::size_t>(threads) * 64;
    const std::size_t chunks = sweep::chunk_count(spec, chunk_tasks);
    const std::size_t my_total = [&] {
      std::size_t n = 0;
      const auto r = static_cast<std::size_t>(world.rank()), k = static_cast<std::size_t>(world.size());
      n = spec.tasks() / k + (r < spec.tasks() % k ? 1 : 0);
      return n * spec.policies.size();
    }();
    std::size_t done_before = 0;
    sweep::RunOptions options;
    options.threads = threads;
    options.progress = [&](std::size_t done, std::size_t) { bar.update(done_before + done, my_total); };

    std::unique_ptr<StagedOutput> out;
    if (world.rank() == 0) {
      out = std::make_unique<StagedOutput>(target, spec.input_files);
      out->write(sweep::render_header(spec, format));
    }
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::vector<std::size_t> mine =
          sweep::tasks_in_chunk(spec, c, chunk_tasks, world.rank(), world.size());
      std::vector<std::pair<std::size_t, std::string>> pieces;
      // An InputError here is a variant whose values clash, found when its task was built; it
      // keeps its type (exit 2). The staged output is removed on the way out.
      std::exception_ptr error;
      try {
        const std::vector<sweep::TaskResult> results = sweep::run_tasks(spec, mine, options);
        pieces.reserve(results.size());
        for (const auto& r : results) pieces.emplace_back(r.task, sweep::render_task(spec, r, format));
      } catch (const std::exception&) {
        error = std::current_exception();  // keep going to the agreement so no rank waits in gather
      }
      if (world.any(error != nullptr)) {
        if (error) std::rethrow_exception(error);
        throw ModelError("sweep failed on another MPI rank");
      }
      done_before += mine.size() * spec.policies.size();
      const std::vector<std::string> texts = world.gather(pieces);
      if (out) {
        for (const auto& t : texts) out->write(t);
      }
    }
    bar.finish(my_total, fmt::format("{} thread{}{}", threads, threads == 1 ? "" : "s",
                                     world.active() ? fmt::format(" x {} ranks", world.size()) : ""));
    if (out) out->commit();
  });
}

}  // namespace c3sim::cli
