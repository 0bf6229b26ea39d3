// c3sim: the command-line front end, the only place that prints errors and picks exit codes.
//   0  success
//   2  bad input (file, line and key named on stderr); no output file written
//   1  internal error (a bug in c3sim)
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/base/errors.h"
#include "sim/base/version.h"
#include "sim/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"c3sim: simulate concurrent GEMM + collective execution (C3) on multi-GPU nodes"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("c3sim ") + c3sim::version());
  c3sim::cli::add_paper_command(app);
  c3sim::cli::add_run_command(app);
  c3sim::cli::add_calibrate_command(app);
  c3sim::cli::add_validate_command(app);
  c3sim::cli::add_import_command(app);
  c3sim::cli::add_sweep_command(app);
  c3sim::cli::add_report_command(app);
  c3sim::cli::add_generate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const c3sim::InputError& e) {
    std::cerr << "c3sim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "c3sim: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
