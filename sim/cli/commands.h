#pragma once
// Each c3sim subcommand registers itself on the CLI11 app. A command's callback does all its work
// into memory and writes once at the end; errors propagate as exceptions to main().
#include <CLI/CLI.hpp>

namespace c3sim::cli {

void add_paper_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_generate_command(CLI::App& app);

}  // namespace c3sim::cli
