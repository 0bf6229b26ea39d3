// Writing scenario YAML (the reader is scenario_io.cpp): the `scenarios:` list form, every
// string double-quoted so names like "yes" or "rp:32" come back as the same strings.
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include "workloads/scenario_io.h"
#include "workloads/workload_yaml_fields.h"

namespace c3sim::wl {

namespace {

void emit_quoted(YAML::Emitter& out, const char* key, const std::string& value) {
  out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}

void emit_gemm(YAML::Emitter& out, const Gemm& g) {
  out << YAML::Key << "gemm" << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (!g.tag.empty()) emit_quoted(out, "tag", g.tag);
  out << YAML::Key << "m" << YAML::Value << g.m;
  out << YAML::Key << "n" << YAML::Value << g.n;
  out << YAML::Key << "k" << YAML::Value << g.k;
  out << YAML::Key << "dtype" << YAML::Value << to_string(g.dtype);
  if (!g.source.empty()) emit_quoted(out, "source", g.source);
  out << YAML::EndMap;
}

void emit_scenario(YAML::Emitter& out, const Scenario& s) {
  out << YAML::BeginMap;
  emit_quoted(out, "name", s.name);
  if (!s.tag.empty()) emit_quoted(out, "tag", s.tag);
  if (!s.source.empty()) emit_quoted(out, "source", s.source);
  if (s.paper_taxonomy) out << YAML::Key << "taxonomy" << YAML::Value << to_string(*s.paper_taxonomy);
  if (s.gpus) out << YAML::Key << "gpus" << YAML::Value << *s.gpus;
  emit_gemm(out, s.gemm);
  emit_collective_field(out, s.collective);
  if (!s.policies.empty()) {
    out << YAML::Key << "policies" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::string& p : s.policies) out << YAML::DoubleQuoted << p;
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string to_yaml(const std::vector<Scenario>& scenarios) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "scenarios" << YAML::Value << YAML::BeginSeq;
  for (const Scenario& s : scenarios) emit_scenario(out, s);
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good()) throw ModelError(fmt::format("to_yaml: YAML emitter failed: {}", out.GetLastError()));
  return std::string(out.c_str()) + "\n";
}

}  // namespace c3sim::wl
