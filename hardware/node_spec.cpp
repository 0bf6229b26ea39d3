#include "hardware/node_spec.h"

namespace c3sim::hw {

int dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::bf16: return 2;
    case Dtype::fp16: return 2;
    case Dtype::fp8: return 1;
    case Dtype::fp32: return 4;
    case Dtype::tf32: return 4;  // stored as fp32; only the matrix unit drops mantissa bits
  }
  return 0;
}

const char* to_string(Dtype d) {
  switch (d) {
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::fp32: return "fp32";
    case Dtype::tf32: return "tf32";
  }
  return "?";
}

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

// The parsers scan the enumerators through to_string so the spelling lives in one place.
std::optional<Dtype> parse_dtype(std::string_view text) {
  for (Dtype d : kAllDtypes) {
    if (text == to_string(d)) return d;
  }
  return std::nullopt;
}

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

}  // namespace c3sim::hw
