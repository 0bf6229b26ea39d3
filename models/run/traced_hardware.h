#pragma once
// The hardware an imported trace names (wl::ProgramDevice, from the profiler's deviceProperties):
// which built-in preset is that GPU, and whether a given hardware file is.
#include <optional>
#include <string>

#include "hardware/node_spec.h"
#include "workloads/program.h"

namespace c3sim::models {

// The device's model word: the first word of its name (letters and digits, lowercased) that holds
// a digit, vendor words aside: "NVIDIA H200" -> "h200", "AMD Instinct MI300X" -> "mi300x",
// "NVIDIA H100 80GB HBM3" -> "h100". Empty when there is none.
std::string device_model_word(const std::string& device_name);

// True when `spec` is the traced GPU: its model word is a word of the spec's name or description,
// and the spec has the device's SM/CU count (when the trace gives one). Memory is not compared:
// the driver reports what is usable, less than the datasheet's figure.
bool device_matches(const wl::ProgramDevice& device, const hw::NodeSpec& spec);

// The first built-in preset (by name) that matches the device and has at least `gpus` GPUs;
// nullopt when none does.
std::optional<std::string> preset_for_device(const wl::ProgramDevice& device, int gpus);

// "NVIDIA H200 (132 SMs/CUs)" for messages.
std::string describe_device(const wl::ProgramDevice& device);
// "h200-sxm (NVIDIA H200 SXM ..., 132 SMs/CUs)" for messages.
std::string describe_hardware(const hw::NodeSpec& spec);

}  // namespace c3sim::models
