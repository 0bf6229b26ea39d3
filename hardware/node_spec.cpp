#include "hardware/node_spec.h"

namespace c3sim::hw {

const char* to_string(Topology t) {
  switch (t) {
    case Topology::fully_connected: return "fully_connected";
    case Topology::switched: return "switched";
  }
  return "?";
}

const char* to_string(EngineMap m) {
  switch (m) {
    case EngineMap::round_robin: return "round_robin";
    case EngineMap::per_peer: return "per_peer";
    case EngineMap::all_on_one: return "all_on_one";
  }
  return "?";
}

const char* to_string(WorkgroupRemap r) {
  switch (r) {
    case WorkgroupRemap::round_robin: return "round_robin";
    case WorkgroupRemap::xcd_contiguous: return "xcd_contiguous";
  }
  return "?";
}

const char* to_string(Network n) {
  switch (n) {
    case Network::rail_optimized: return "rail_optimized";
    case Network::fat_tree: return "fat_tree";
  }
  return "?";
}

// The parsers scan the enumerators through to_string so the spelling lives in one place.
std::optional<Topology> parse_topology(std::string_view text) {
  for (Topology t : {Topology::fully_connected, Topology::switched}) {
    if (text == to_string(t)) return t;
  }
  return std::nullopt;
}

std::optional<EngineMap> parse_engine_map(std::string_view text) {
  for (EngineMap m : {EngineMap::round_robin, EngineMap::per_peer, EngineMap::all_on_one}) {
    if (text == to_string(m)) return m;
  }
  return std::nullopt;
}

std::optional<WorkgroupRemap> parse_workgroup_remap(std::string_view text) {
  for (WorkgroupRemap r : {WorkgroupRemap::round_robin, WorkgroupRemap::xcd_contiguous}) {
    if (text == to_string(r)) return r;
  }
  return std::nullopt;
}

std::optional<Network> parse_network(std::string_view text) {
  for (Network n : {Network::rail_optimized, Network::fat_tree}) {
    if (text == to_string(n)) return n;
  }
  return std::nullopt;
}

}  // namespace c3sim::hw
