// Subcommands of optional components this binary was configured without (C3SIM_WITH_SWEEP=OFF,
// C3SIM_WITH_REPORT=OFF): they still appear in --help, and using one says how to get it instead of
// "unknown subcommand". Compiled only when a component is off (sim/cli/CMakeLists.txt).
#include <string>

#include "sim/cli/commands.h"

namespace c3sim::cli {

namespace {

void add_unbuilt_command(CLI::App& app, const std::string& name, const std::string& option) {
  CLI::App* cmd = app.add_subcommand(name, "(not built: configure with -D" + option + "=ON)");
  cmd->allow_extras();
  cmd->callback([name, option] {
    throw CLI::ValidationError(name, "this c3sim was built without it (configure with -D" + option + "=ON)");
  });
}

}  // namespace

#ifdef C3SIM_WITHOUT_SWEEP
void add_sweep_command(CLI::App& app) { add_unbuilt_command(app, "sweep", "C3SIM_WITH_SWEEP"); }
#endif
#ifdef C3SIM_WITHOUT_REPORT
void add_report_command(CLI::App& app) { add_unbuilt_command(app, "report", "C3SIM_WITH_REPORT"); }
#endif

}  // namespace c3sim::cli
