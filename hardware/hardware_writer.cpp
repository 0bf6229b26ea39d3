#include "hardware/hardware_writer.h"

#include <yaml-cpp/yaml.h>

#include "hardware/hardware_fields.h"

namespace c3sim::hw {

namespace {

// The child map named `part` of `parent`, created if needed. yaml-cpp keeps insertion order, so
// sections come out in field-table order (the mi300x.yaml layout).
YAML::Node child(YAML::Node parent, std::string_view part) {
  const std::string key(part);
  if (!parent[key]) parent[key] = YAML::Node(YAML::NodeType::Map);
  return parent[key];
}

}  // namespace

std::string to_yaml(const NodeSpec& spec) {
  YAML::Node root(YAML::NodeType::Map);
  for (const FieldDef& f : hardware_fields()) {
    if (!f.is_present(spec)) continue;
    // reset() rebinds the handle; yaml-cpp's operator= would overwrite the node it points at.
    YAML::Node section;
    section.reset(root);
    std::string_view rest = f.section();
    while (!rest.empty()) {
      const auto dot = rest.find('.');
      section.reset(child(section, rest.substr(0, dot)));
      rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    }
    section[std::string(f.leaf())] = format_field(f, spec);
  }
  YAML::Emitter out;
  out << YAML::Comment("Written by c3sim (hardware to_yaml); a complete hardware file.");
  out << YAML::Newline << root;
  return std::string(out.c_str()) + "\n" + gemm_library_yaml(spec.gemm_library);
}

}  // namespace c3sim::hw
