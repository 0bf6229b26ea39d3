#include "sim/base/collective_op.h"

namespace c3sim {

const char* to_string(CollectiveOp op) { return op_traits(op).name; }

const char* short_name(CollectiveOp op) { return op_traits(op).short_name; }

std::optional<CollectiveOp> parse_collective_op(std::string_view text) {
  for (const CollectiveOpTraits& t : kCollectiveOpTraits) {
    if (text == t.name || text == t.hyphenated || text == t.joined || text == t.short_name) return t.op;
  }
  return std::nullopt;
}

}  // namespace c3sim
