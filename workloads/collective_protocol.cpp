#include "workloads/collective_protocol.h"

#include <array>
#include <utility>

namespace c3sim::wl {

namespace {

constexpr std::array<std::pair<const char*, CollectiveAlgorithm>, 3> kAlgorithmNames{{
    {"ring", CollectiveAlgorithm::ring},
    {"tree", CollectiveAlgorithm::tree},
    {"direct", CollectiveAlgorithm::direct},
}};

constexpr std::array<std::pair<const char*, CollectiveProtocol>, 3> kProtocolNames{{
    {"ll", CollectiveProtocol::ll},
    {"ll128", CollectiveProtocol::ll128},
    {"simple", CollectiveProtocol::simple},
}};

}  // namespace

const char* to_string(CollectiveAlgorithm a) {
  for (const auto& [name, value] : kAlgorithmNames) {
    if (value == a) return name;
  }
  return "?";
}

const char* to_string(CollectiveProtocol p) {
  for (const auto& [name, value] : kProtocolNames) {
    if (value == p) return name;
  }
  return "?";
}

std::optional<CollectiveAlgorithm> parse_collective_algorithm(const std::string& s) {
  for (const auto& [name, value] : kAlgorithmNames) {
    if (s == name) return value;
  }
  return std::nullopt;
}

std::optional<CollectiveProtocol> parse_collective_protocol(const std::string& s) {
  for (const auto& [name, value] : kProtocolNames) {
    if (s == name) return value;
  }
  return std::nullopt;
}

bool algorithm_runs(CollectiveAlgorithm a, CollectiveOp op) {
  switch (a) {
    case CollectiveAlgorithm::ring: return op != CollectiveOp::all_to_all;
    case CollectiveAlgorithm::tree: return op == CollectiveOp::all_reduce;
    case CollectiveAlgorithm::direct: return op != CollectiveOp::all_reduce;
  }
  return false;
}

std::string algorithms_of(CollectiveOp op) {
  std::string out;
  for (const auto& [name, value] : kAlgorithmNames) {
    if (!algorithm_runs(value, op)) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

double protocol_payload_share(CollectiveProtocol p) {
  switch (p) {
    case CollectiveProtocol::ll: return 4.0 / 8.0;
    case CollectiveProtocol::ll128: return 120.0 / 128.0;
    case CollectiveProtocol::simple: return 1.0;
  }
  return 1.0;
}

}  // namespace c3sim::wl
