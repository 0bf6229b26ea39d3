#include "models/run/traced_hardware.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "hardware/preset_registry.h"

namespace c3sim::models {

namespace {

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (const char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (std::isalnum(u) != 0) {
      w += static_cast<char>(std::tolower(u));
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

}  // namespace

std::string device_model_word(const std::string& device_name) {
  for (const std::string& w : words(device_name)) {
    if (w.find_first_of("0123456789") != std::string::npos) return w;
  }
  return "";
}

bool device_matches(const wl::ProgramDevice& device, const hw::NodeSpec& spec) {
  if (device.cus && *device.cus != spec.compute.total_cus()) return false;
  const std::string model = device_model_word(device.name);
  if (model.empty()) return false;
  std::set<std::string> spec_words;
  for (const auto& w : words(spec.name)) spec_words.insert(w);
  for (const auto& w : words(spec.description)) spec_words.insert(w);
  return spec_words.contains(model);
}

std::optional<std::string> preset_for_device(const wl::ProgramDevice& device, int gpus) {
  std::vector<std::string> names = hw::preset_names();
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const hw::NodeSpec spec = hw::load_hardware(name);
    if (spec.interconnect.gpus >= gpus && device_matches(device, spec)) return name;
  }
  return std::nullopt;
}

std::string describe_device(const wl::ProgramDevice& device) {
  return device.cus ? fmt::format("{} ({} SMs/CUs)", device.name, *device.cus) : device.name;
}

std::string describe_hardware(const hw::NodeSpec& spec) {
  return fmt::format("{} ({}, {} SMs/CUs)", spec.name, spec.description, spec.compute.total_cus());
}

}  // namespace c3sim::models
