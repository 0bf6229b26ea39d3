#pragma once
// A model parameter with one value per collective op (hw::CollectiveModel): NCCL's and RCCL's
// kernels differ by op, so their measured rates do too. In a hardware file each op's value is a key of
// its own, `<op>_<parameter>` (model.collective.reduce_scatter_partition_rate); one field line in
// hardware_fields.cpp declares all of them. An op without its own value holds T{} (0, "absent"); what
// absent means is the parameter's rule, stated where it is declared (the all-gather's value, or a
// default), and applied by the model through own_or.
#include <array>

#include "sim/base/collective_op.h"

namespace c3sim::hw {

template <class T>
struct PerOp {
  std::array<T, kCollectiveOpCount> values{};  // in kAllCollectiveOps order

  [[nodiscard]] constexpr T& operator[](CollectiveOp op) { return values[op_index(op)]; }
  [[nodiscard]] constexpr const T& operator[](CollectiveOp op) const { return values[op_index(op)]; }
  [[nodiscard]] constexpr bool has(CollectiveOp op) const { return (*this)[op] != T{}; }
  // The op's own value where it has one, else `absent`.
  [[nodiscard]] constexpr T own_or(CollectiveOp op, T absent) const { return has(op) ? (*this)[op] : absent; }

  bool operator==(const PerOp&) const = default;
};

}  // namespace c3sim::hw
