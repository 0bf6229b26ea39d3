#include "workloads/collective.h"

#include <array>
#include <utility>

namespace c3sim::wl {

namespace {

constexpr std::array<std::pair<const char*, CollectiveImpl>, 6> kImplNames{{
    {"cu", CollectiveImpl::cu},
    {"dma", CollectiveImpl::dma},
    {"vendor_zero_cta", CollectiveImpl::vendor_zero_cta},
    {"vendor-zero-cta", CollectiveImpl::vendor_zero_cta},
    {"zero_cta", CollectiveImpl::vendor_zero_cta},
    {"dma_hybrid", CollectiveImpl::dma_hybrid},
}};

}  // namespace

const char* to_string(CollectiveImpl impl) {
  switch (impl) {
    case CollectiveImpl::cu: return "cu";
    case CollectiveImpl::dma: return "dma";
    case CollectiveImpl::vendor_zero_cta: return "vendor_zero_cta";
    case CollectiveImpl::dma_hybrid: return "dma_hybrid";
  }
  return "?";
}

std::string library_choice_text(const Collective& c) {
  std::string out = c.algorithm ? to_string(*c.algorithm) : "-";
  out += '/';
  out += c.protocol ? to_string(*c.protocol) : "-";
  out += '/';
  out += c.channels ? std::to_string(*c.channels) : "-";
  return out;
}

double local_block_bytes(const Collective& c, int gpus) {
  if (c.in_place || gpus <= 0 || op_traits(c.op).reduces) return 0;
  return block_bytes(c.op, static_cast<double>(c.bytes), gpus);
}

std::optional<CollectiveImpl> parse_collective_impl(const std::string& s) {
  for (const auto& [name, impl] : kImplNames) {
    if (s == name) return impl;
  }
  return std::nullopt;
}

}  // namespace c3sim::wl
