#include "workloads/collective.h"

#include <array>
#include <utility>

namespace c3sim::wl {

namespace {

// Every spelling users and papers write for an op; the first of each group is the canonical one
// (to_string), so parse(to_string(x)) == x by construction.
constexpr std::array<std::pair<const char*, CollectiveOp>, 16> kOpNames{{
    {"all_gather", CollectiveOp::all_gather},
    {"all-gather", CollectiveOp::all_gather},
    {"allgather", CollectiveOp::all_gather},
    {"ag", CollectiveOp::all_gather},
    {"all_to_all", CollectiveOp::all_to_all},
    {"all-to-all", CollectiveOp::all_to_all},
    {"alltoall", CollectiveOp::all_to_all},
    {"a2a", CollectiveOp::all_to_all},
    {"reduce_scatter", CollectiveOp::reduce_scatter},
    {"reduce-scatter", CollectiveOp::reduce_scatter},
    {"reducescatter", CollectiveOp::reduce_scatter},
    {"rs", CollectiveOp::reduce_scatter},
    {"all_reduce", CollectiveOp::all_reduce},
    {"all-reduce", CollectiveOp::all_reduce},
    {"allreduce", CollectiveOp::all_reduce},
    {"ar", CollectiveOp::all_reduce},
}};

constexpr std::array<std::pair<const char*, CollectiveImpl>, 6> kImplNames{{
    {"cu", CollectiveImpl::cu},
    {"dma", CollectiveImpl::dma},
    {"vendor_zero_cta", CollectiveImpl::vendor_zero_cta},
    {"vendor-zero-cta", CollectiveImpl::vendor_zero_cta},
    {"zero_cta", CollectiveImpl::vendor_zero_cta},
    {"dma_hybrid", CollectiveImpl::dma_hybrid},
}};

}  // namespace

const char* to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::all_to_all: return "all_to_all";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_reduce: return "all_reduce";
  }
  return "?";
}

const char* to_string(CollectiveImpl impl) {
  switch (impl) {
    case CollectiveImpl::cu: return "cu";
    case CollectiveImpl::dma: return "dma";
    case CollectiveImpl::vendor_zero_cta: return "vendor_zero_cta";
    case CollectiveImpl::dma_hybrid: return "dma_hybrid";
  }
  return "?";
}

const char* short_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_gather: return "ag";
    case CollectiveOp::all_to_all: return "a2a";
    case CollectiveOp::reduce_scatter: return "rs";
    case CollectiveOp::all_reduce: return "ar";
  }
  return "?";
}

double local_block_bytes(const Collective& c, int gpus) {
  if (c.in_place || gpus <= 0) return 0;
  switch (c.op) {
    case CollectiveOp::all_gather:
    case CollectiveOp::all_to_all: return static_cast<double>(c.bytes) / gpus;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_reduce: return 0;
  }
  return 0;
}

std::optional<CollectiveOp> parse_collective_op(const std::string& s) {
  for (const auto& [name, op] : kOpNames) {
    if (s == name) return op;
  }
  return std::nullopt;
}

std::optional<CollectiveImpl> parse_collective_impl(const std::string& s) {
  for (const auto& [name, impl] : kImplNames) {
    if (s == name) return impl;
  }
  return std::nullopt;
}

}  // namespace c3sim::wl
