#include "hardware/hardware_loader.h"

#include "hardware/hardware_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "sim/base/strict_yaml.h"

namespace c3sim::hw {

namespace {

namespace fs = std::filesystem;

// Deeper chains than this are surely a mistake (and bound the recursion on hostile input).
constexpr std::size_t kMaxExtendsDepth = 16;

// One scalar as written, and where: the deep merge keeps the last writer of each key.
struct RawValue {
  std::string text;
  SourceLocation where;
};

// The deep merge of a chain of files, flattened to dotted keys. The schema's leaves are all
// scalars, so overlaying leaf by leaf is the deep merge of the maps.
struct MergedTree {
  std::map<std::string, RawValue> values;
  std::map<std::string, SourceLocation> sections;  // dotted section ("" = root) -> last opener
  GemmLibrary gemm_library;                        // entries of later files replace those of the same shape
};

// One hardware document and what its relative `extends:` paths are resolved against.
struct Layer {
  YamlDocument doc;
  std::string identity;         // for cycle detection: "preset:NAME" or a canonical path
  bool embedded = false;        // a built-in preset (extends may name only presets)
  std::optional<fs::path> dir;  // directory of a file; nullopt = current directory
};

std::string preset_list() {
  std::string out;
  for (const std::string& n : preset_names()) out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
  return out;
}

Layer open_preset(const EmbeddedPreset& p) {
  return Layer{load_yaml_string(std::string(p.text), std::string(p.path)), "preset:" + std::string(p.name),
               true, std::nullopt};
}

bool regular_file_exists(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Only regular files: a path such as /dev/zero would otherwise be read forever.
Layer open_file(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  if (ec) canonical = path;
  return Layer{load_yaml_file(path.string()), canonical.string(), false, path.parent_path()};
}

// A built-in base of this name: a preset or a family file.
const EmbeddedPreset* find_base(const std::string& name) {
  if (const EmbeddedPreset* p = find_preset(name)) return p;
  return find_family(name);
}

Layer resolve_extends(const Layer& from, const std::string& target, const SourceLocation& where) {
  if (const EmbeddedPreset* p = find_base(target)) return open_preset(*p);
  if (from.embedded) {
    // A preset may also name its base by file name ("h200-sxm.yaml").
    if (const EmbeddedPreset* p = find_base(fs::path(target).stem().string())) return open_preset(*p);
    throw InputError(where, "extends", fmt::format("'{}' is not a preset ({})", target, preset_list()));
  }
  const fs::path candidate = from.dir ? *from.dir / target : fs::path(target);
  if (!regular_file_exists(candidate)) {
    throw InputError(where, "extends",
                     fmt::format("'{}' is neither a preset ({}) nor a readable file (looked for '{}')",
                                 target, preset_list(), candidate.string()));
  }
  return open_file(candidate);
}

// Sections of the schema ("spec", "spec.compute", "spec.compute.peak", ...), from the field table.
const std::set<std::string>& schema_sections() {
  static const std::set<std::string> sections = [] {
    std::set<std::string> out;
    for (const FieldDef& f : hardware_fields()) {
      std::string_view s = f.section();
      while (!s.empty()) {
        out.emplace(s);
        const auto dot = s.rfind('.');
        s = dot == std::string_view::npos ? std::string_view{} : s.substr(0, dot);
      }
    }
    return out;
  }();
  return sections;
}

std::string parent_of(const std::string& section) {
  const auto dot = section.rfind('.');
  return dot == std::string::npos ? std::string{} : section.substr(0, dot);
}

std::string leaf_of(const std::string& section) {
  const auto dot = section.rfind('.');
  return dot == std::string::npos ? section : section.substr(dot + 1);
}

// Overlays one mapping (and its sub-mappings) onto `tree`; StrictMap::finish rejects keys that
// are not in the schema, with this file's line.
void overlay(StrictMap& m, const std::string& section, MergedTree& tree) {
  tree.sections[section] = m.location();
  for (const FieldDef& f : hardware_fields()) {
    if (f.section() != section) continue;
    const std::string leaf(f.leaf());
    if (m.has(leaf)) tree.values[std::string(f.key)] = RawValue{m.string(leaf), m.location(leaf)};
  }
  for (const std::string& sub : schema_sections()) {
    if (parent_of(sub) != section) continue;
    const std::string leaf = leaf_of(sub);
    if (!m.has(leaf)) continue;
    StrictMap child = m.map(leaf);
    overlay(child, sub, tree);
  }
  m.finish();
}

// Merges `layer` and, first, everything it extends. `chain` holds the files being merged, for
// cycle detection and the message.
void merge(const Layer& layer, MergedTree& tree, std::vector<std::string>& chain) {
  StrictMap root(layer.doc.root, layer.doc.file, "");
  chain.push_back(layer.identity);
  if (root.has("extends")) {
    const std::string target = root.string("extends");
    const SourceLocation where = root.location("extends");
    const Layer base = resolve_extends(layer, target, where);
    if (std::find(chain.begin(), chain.end(), base.identity) != chain.end()) {
      std::string path;
      for (const std::string& c : chain) path += c + " -> ";
      throw InputError(where, "extends", fmt::format("extends cycle: {}{}", path, base.identity));
    }
    if (chain.size() >= kMaxExtendsDepth) {
      throw InputError(where, "extends", fmt::format("extends chain deeper than {}", kMaxExtendsDepth));
    }
    merge(base, tree, chain);
  }
  parse_gemm_library(root, tree.gemm_library);
  overlay(root, "", tree);
  chain.pop_back();
}

// The location to blame for a missing key: the innermost enclosing section that was written.
SourceLocation missing_location(const MergedTree& tree, std::string section) {
  for (;;) {
    auto it = tree.sections.find(section);
    if (it != tree.sections.end()) return it->second;
    if (section.empty()) return SourceLocation{};
    section = parent_of(section);
  }
}

LoadedHardware load_layer(const Layer& top) {
  MergedTree tree;
  std::vector<std::string> chain;
  merge(top, tree, chain);

  LoadedHardware out{NodeSpec{}, HardwareSourceMap(top.doc.file)};
  for (const FieldDef& f : hardware_fields()) {
    const std::string key(f.key);
    auto it = tree.values.find(key);
    if (it == tree.values.end()) {
      if (f.required)
        throw InputError(missing_location(tree, std::string(f.section())), key, "required key is missing");
      continue;
    }
    parse_field(f, out.spec, it->second.text, it->second.where);
    out.sources.set(key, it->second.where);
  }
  out.spec.gemm_library = tree.gemm_library;
  out.spec.source_file = top.doc.file;
  validate(out.spec, out.sources);
  return out;
}

}  // namespace

LoadedHardware load_hardware_with_sources(const std::string& name_or_path) {
  if (const EmbeddedPreset* p = find_preset(name_or_path)) return load_layer(open_preset(*p));
  if (const EmbeddedPreset* f = find_family(name_or_path)) {
    throw InputError(SourceLocation{std::string(f->path), 0, 0}, "",
                     fmt::format("'{}' is a family file, the base its presets extend, not a node: name a "
                                 "preset ({})",
                                 name_or_path, preset_list()));
  }
  if (!regular_file_exists(name_or_path)) {
    throw InputError(SourceLocation{name_or_path, 0, 0}, "",
                     fmt::format("not a hardware preset ({}) and not a readable file", preset_list()));
  }
  return load_layer(open_file(name_or_path));
}

std::vector<std::string> hardware_files(const std::string& name_or_path) {
  std::vector<std::string> out;
  if (find_base(name_or_path) != nullptr || !regular_file_exists(name_or_path)) return out;
  Layer layer = open_file(name_or_path);
  std::vector<std::string> chain;
  for (;;) {
    out.push_back(layer.doc.file);
    chain.push_back(layer.identity);
    StrictMap root(layer.doc.root, layer.doc.file, "");
    if (!root.has("extends") || chain.size() > kMaxExtendsDepth) return out;
    Layer base = resolve_extends(layer, root.string("extends"), root.location("extends"));
    if (base.embedded || std::find(chain.begin(), chain.end(), base.identity) != chain.end()) return out;
    layer = std::move(base);
  }
}

NodeSpec load_hardware(const std::string& name_or_path) {
  return load_hardware_with_sources(name_or_path).spec;
}

LoadedHardware load_hardware_from_string_with_sources(const std::string& text, const std::string& label) {
  return load_layer(Layer{load_yaml_string(text, label), "<string>:" + label, false, std::nullopt});
}

NodeSpec load_hardware_from_string(const std::string& text, const std::string& label) {
  return load_hardware_from_string_with_sources(text, label).spec;
}

}  // namespace c3sim::hw
