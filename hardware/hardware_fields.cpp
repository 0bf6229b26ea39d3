#include "hardware/hardware_fields.h"

#include <array>
#include <charconv>
#include <limits>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

namespace c3sim::hw {

namespace {

// at<&NodeSpec::memory, &MemorySpec::hbm_bw> points at s.memory.hbm_bw (a fold over `.*`).
template <auto... Path>
FieldRef at(NodeSpec& s) {
  return &(s.*....*Path);
}

// A map keyed by dtype at `Path` (at<>'s fold): keyed<D, Path...> points at its D entry (made on
// first write), has_key<D, Path...> says whether the file gave one.
template <Dtype D, auto... Path>
FieldRef keyed(NodeSpec& s) {
  return &(s.*....*Path)[D];
}
template <Dtype D, auto... Path>
bool has_key(const NodeSpec& s) {
  return (s.*....*Path).count(D) != 0;
}

// Peak FLOP rates live in a map keyed by dtype; only bf16 is required (the GEMM model's dtype).
template <Dtype D>
constexpr auto peak = keyed<D, &NodeSpec::compute, &ComputeSpec::peak_flops>;
template <Dtype D>
constexpr auto has_peak = has_key<D, &NodeSpec::compute, &ComputeSpec::peak_flops>;

// Per-dtype GEMM library behaviour (efficiency, macro-tile width): absent = the bf16 values.
template <Dtype D>
constexpr auto dtype_efficiency =
    keyed<D, &NodeSpec::model, &ModelParams::gemm, &GemmModel::dtype_efficiency>;
template <Dtype D>
constexpr auto has_dtype_efficiency =
    has_key<D, &NodeSpec::model, &ModelParams::gemm, &GemmModel::dtype_efficiency>;
template <Dtype D>
constexpr auto dtype_tile_n = keyed<D, &NodeSpec::model, &ModelParams::gemm, &GemmModel::dtype_macro_tile_n>;
template <Dtype D>
constexpr auto has_dtype_tile_n =
    has_key<D, &NodeSpec::model, &ModelParams::gemm, &GemmModel::dtype_macro_tile_n>;
// A dtype's energy per FLOP against bf16's under a power limit: absent = 1.
template <Dtype D>
constexpr auto dtype_energy = keyed<D, &NodeSpec::model, &ModelParams::power, &PowerModel::dtype_energy>;
template <Dtype D>
constexpr auto has_dtype_energy =
    has_key<D, &NodeSpec::model, &ModelParams::power, &PowerModel::dtype_energy>;

// Optional limits are absent (0) unless a preset sets them.
bool has_cu_miss_bw(const NodeSpec& s) { return s.model.gemm.cu_miss_bw != 0; }
bool has_hbm_miss_latency_ratio(const NodeSpec& s) { return s.model.gemm.hbm_miss_latency_ratio != 1; }
bool has_epilogue_exposed(const NodeSpec& s) { return s.model.gemm.epilogue_exposed != 0; }
bool has_link_stall(const NodeSpec& s) { return s.model.collective.link_stall_fraction != 0; }
bool has_dynamic_tiles(const NodeSpec& s) { return s.model.gemm.dynamic_tiles; }
bool has_stall_workgroups_only(const NodeSpec& s) { return s.model.gemm.memory_stall_workgroups_only; }
bool has_workgroup_remap(const NodeSpec& s) {
  return s.model.gemm.workgroup_remap != WorkgroupRemap::round_robin;
}
bool has_local_copy(const NodeSpec& s) { return s.model.collective.workgroup_local_copy_bw != 0; }
bool has_channel_queueing(const NodeSpec& s) { return s.model.collective.channel_queueing; }
bool has_ll_protocol(const NodeSpec& s) { return s.model.collective.ll_protocol_efficiency != 0; }
bool has_ll_channel_bw(const NodeSpec& s) { return s.model.collective.ll_channel_bw != 0; }
bool has_ll128_protocol(const NodeSpec& s) { return s.model.collective.ll128_protocol_efficiency != 0; }
bool has_ll128_channel_bw(const NodeSpec& s) { return s.model.collective.ll128_channel_bw != 0; }
bool has_max_channels(const NodeSpec& s) { return s.model.collective.max_channels != 0; }
bool has_nvls(const NodeSpec& s) { return s.model.collective.nvls_all_reduce_bw != 0; }
bool has_max_p2p_channels(const NodeSpec& s) { return s.model.collective.max_p2p_channels != 0; }
bool has_partition_caps_channels(const NodeSpec& s) { return s.model.collective.partition_caps_channels; }
// DMA-engine what-ifs: absent means today's host-driven, copy-only engine.
bool has_reduce_bw(const NodeSpec& s) { return s.dma.reduce_bw != 0; }
bool has_engine_start(const NodeSpec& s) { return s.model.dma.engine_start_latency != 0; }
bool has_gpu_initiated(const NodeSpec& s) { return s.model.dma.gpu_initiated; }
bool has_gpu_submit(const NodeSpec& s) { return s.model.dma.gpu_submit_latency != 0; }
bool has_prelaunched(const NodeSpec& s) { return s.model.dma.prelaunched; }
bool has_per_doorbell(const NodeSpec& s) { return s.model.dma.transfers_per_doorbell != 1; }
bool has_gpu_polled(const NodeSpec& s) { return s.model.dma.gpu_polled_completion; }
bool has_gpu_completion(const NodeSpec& s) { return s.model.dma.gpu_completion_latency != 0; }
bool has_llc_bypass(const NodeSpec& s) { return s.model.dma.llc_bypass; }
bool has_memory_priority(const NodeSpec& s) { return s.model.dma.memory_priority != 1; }
bool has_l2_flush(const NodeSpec& s) { return s.model.dma.l2_flush_bw != 0; }
bool has_iods(const NodeSpec& s) { return s.dma.iods != 0; }
bool has_iod_crossing(const NodeSpec& s) { return s.dma.iod_crossing_bw != 0; }
bool has_partition_engines(const NodeSpec& s) { return s.model.dma.partition_engines; }
bool has_channel_share(const NodeSpec& s) { return s.model.memory.collective_channel_share != 0; }
bool has_hbm_queueing(const NodeSpec& s) { return s.model.memory.hbm_queueing; }
bool has_stream_bw(const NodeSpec& s) { return s.model.memory.workgroup_stream_bw != 0; }
bool has_gather(const NodeSpec& s) { return s.model.memory.gather_latency != 0; }
bool has_power(const NodeSpec& s) { return s.model.power.limit != 0; }
bool has_power_window(const NodeSpec& s) { return s.model.power.window != 0; }
bool has_measured_kernel_power(const NodeSpec& s) { return s.model.power.measured_kernel_power != 0; }
bool has_rate_exponent(const NodeSpec& s) { return s.model.power.rate_exponent != 1; }
bool has_message_overhead(const NodeSpec& s) { return s.model.fused.message_overhead >= 0; }
bool has_occupancy_ratio(const NodeSpec& s) { return s.model.fused.occupancy_ratio != 1; }
// The cluster section: absent = one node (nics_per_node 0); its fields come as a set (validate()).
bool has_cluster(const NodeSpec& s) { return s.cluster.present(); }
bool has_cluster_channels(const NodeSpec& s) { return s.cluster.channels != 0; }
bool has_cluster_nodes(const NodeSpec& s) { return s.cluster.nodes != 0; }
bool has_message_rate(const NodeSpec& s) { return s.cluster.nic_message_rate != 0; }
bool has_switch_latency(const NodeSpec& s) { return s.cluster.switch_latency != 0; }
bool has_fat_tree(const NodeSpec& s) { return s.cluster.present() && s.cluster.network == Network::fat_tree; }
bool has_nodes_per_leaf(const NodeSpec& s) { return s.cluster.nodes_per_leaf != 0; }

using D = Dimension;
using C = Constraint;
using S = NodeSpec;
using M = ModelParams;
constexpr bool kReq = true;
constexpr bool kOpt = false;

// Per-op parameters (hw::PerOp): one table line declares the field of every op.

// How a per-op parameter's keys are spelled and which must be present.
enum class PerOpForm {
  each_optional,     // `<op>_<name>` for every op, each optional (absent = the parameter's default)
  copying_required,  // `<op>_<name>` for every op; required for the ops that do not reduce
  all_gather_bare,   // `<name>` is the all-gather's and required (every op's default); `<op>_<name>`
                     //   another op's, optional
};

// A string literal as a template argument, so an op's key can be built at compile time and the
// table keep string_views into it.
template <std::size_t N>
struct Literal {
  std::array<char, N> chars{};
  // Implicit: `per_op<"model.collective.partition_rate", ...>` converts the literal.
  constexpr Literal(const char (&text)[N]) {  // NOLINT(google-explicit-constructor)
    for (std::size_t i = 0; i < N; ++i) chars[i] = text[i];
  }
  [[nodiscard]] constexpr std::string_view view() const { return {chars.data(), N - 1}; }
};

// `Key` with the op's name put before its leaf ("model.collective.partition_rate" ->
// "model.collective.reduce_scatter_partition_rate"), or `Key` itself when `Bare`.
template <Literal Key, CollectiveOp Op, bool Bare>
struct PerOpKey {
  static constexpr std::string_view key = Key.view();
  static constexpr std::string_view op = Bare ? std::string_view{} : std::string_view{op_traits(Op).name};
  static constexpr std::size_t leaf_at = key.rfind('.') + 1;
  static constexpr std::size_t size = key.size() + (Bare ? 0 : op.size() + 1);
  static constexpr std::array<char, size> text = [] {
    std::array<char, size> t{};
    std::size_t n = 0;
    for (const char c : key.substr(0, leaf_at)) t[n++] = c;
    if (!Bare) {
      for (const char c : op) t[n++] = c;
      t[n++] = '_';
    }
    for (const char c : key.substr(leaf_at)) t[n++] = c;
    return t;
  }();
  static constexpr std::string_view view{text.data(), size};
};

template <CollectiveOp Op, auto... Path>
FieldRef per_op_ref(NodeSpec& s) {
  return &(s.*....*Path)[Op];
}
template <CollectiveOp Op, auto... Path>
bool per_op_has(const NodeSpec& s) {
  return (s.*....*Path).has(Op);
}

template <Literal Key, PerOpForm Form, CollectiveOp Op, auto... Path>
constexpr FieldDef per_op_field(Dimension dim, Constraint constraint) {
  constexpr bool bare = Form == PerOpForm::all_gather_bare && Op == CollectiveOp::all_gather;
  constexpr bool required = bare || (Form == PerOpForm::copying_required && !op_traits(Op).reduces);
  FieldDef f{PerOpKey<Key, Op, bare>::view, dim, constraint, required, per_op_ref<Op, Path...>, nullptr};
  if constexpr (!required) f.present = per_op_has<Op, Path...>;  // absent: the op's value is 0
  f.per_op_parameter = Key.view();
  f.op = Op;
  return f;
}

// One line of the table: a field, or the fields of a per-op parameter (one per op, in op order).
struct FieldLine {
  std::array<FieldDef, kCollectiveOpCount> fields{};
  std::size_t count = 0;
  constexpr FieldLine(std::string_view key, Dimension dim, Constraint constraint, bool required,
                      FieldRef (*ref)(NodeSpec&), bool (*present)(const NodeSpec&))
      : fields{FieldDef{key, dim, constraint, required, ref, present}}, count(1) {}
  explicit constexpr FieldLine(const std::array<FieldDef, kCollectiveOpCount>& per_op)
      : fields(per_op), count(kCollectiveOpCount) {}
};

template <Literal Key, PerOpForm Form, auto... Path, std::size_t... I>
constexpr FieldLine per_op_line(Dimension dim, Constraint constraint, std::index_sequence<I...> /*ops*/) {
  return FieldLine(std::array<FieldDef, kCollectiveOpCount>{
      per_op_field<Key, Form, kAllCollectiveOps[I], Path...>(dim, constraint)...});
}

// The line of the per-op parameter `Key` (its name as `<op>_<name>` keys put it after the op) stored
// at Path (a PerOp<double>), each op's value a quantity of `dim` under `constraint`.
template <Literal Key, PerOpForm Form, auto... Path>
constexpr FieldLine per_op(Dimension dim, Constraint constraint) {
  return per_op_line<Key, Form, Path...>(dim, constraint, std::make_index_sequence<kCollectiveOpCount>{});
}

// clang-format off
// Order = the order to_yaml writes (the mi300x.yaml layout); each section's keys are contiguous.
constexpr FieldLine kLines[] = {
  {"name",        D::dimensionless, C::non_empty, kReq, at<&S::name>, nullptr},
  {"description", D::dimensionless, C::none,      kReq, at<&S::description>, nullptr},

  {"spec.compute.xcds",        D::dimensionless, C::positive, kReq, at<&S::compute, &ComputeSpec::xcds>, nullptr},
  {"spec.compute.cus_per_xcd", D::dimensionless, C::positive, kReq, at<&S::compute, &ComputeSpec::cus_per_xcd>, nullptr},
  {"spec.compute.clock",       D::frequency,     C::positive, kReq, at<&S::compute, &ComputeSpec::clock_hz>, nullptr},
  {"spec.compute.peak.bf16",   D::flop_rate,     C::positive, kReq, peak<Dtype::bf16>, has_peak<Dtype::bf16>},
  {"spec.compute.peak.fp16",   D::flop_rate,     C::positive, kOpt, peak<Dtype::fp16>, has_peak<Dtype::fp16>},
  {"spec.compute.peak.fp8",    D::flop_rate,     C::positive, kOpt, peak<Dtype::fp8>,  has_peak<Dtype::fp8>},
  {"spec.compute.peak.fp32",   D::flop_rate,     C::positive, kOpt, peak<Dtype::fp32>, has_peak<Dtype::fp32>},
  {"spec.compute.peak.tf32",   D::flop_rate,     C::positive, kOpt, peak<Dtype::tf32>, has_peak<Dtype::tf32>},
  {"spec.compute.cu_mask_granularity",    D::dimensionless, C::positive, kReq, at<&S::compute, &ComputeSpec::cu_mask_granularity>, nullptr},
  {"spec.compute.stream_priority_levels", D::dimensionless, C::positive, kReq, at<&S::compute, &ComputeSpec::stream_priority_levels>, nullptr},

  {"spec.memory.l2_per_xcd",           D::bytes,     C::positive,     kReq, at<&S::memory, &MemorySpec::l2_bytes_per_xcd>, nullptr},
  {"spec.memory.l2_bandwidth_per_xcd", D::bandwidth, C::positive,     kReq, at<&S::memory, &MemorySpec::l2_bw_per_xcd>, nullptr},
  {"spec.memory.llc",                  D::bytes,     C::non_negative, kReq, at<&S::memory, &MemorySpec::llc_bytes>, nullptr},
  {"spec.memory.llc_bandwidth",        D::bandwidth, C::non_negative, kReq, at<&S::memory, &MemorySpec::llc_bw>, nullptr},
  {"spec.memory.hbm",                  D::bytes,     C::positive,     kReq, at<&S::memory, &MemorySpec::hbm_bytes>, nullptr},
  {"spec.memory.hbm_bandwidth",        D::bandwidth, C::positive,     kReq, at<&S::memory, &MemorySpec::hbm_bw>, nullptr},

  {"spec.interconnect.gpus",           D::dimensionless, C::at_least_two, kReq, at<&S::interconnect, &InterconnectSpec::gpus>, nullptr},
  {"spec.interconnect.topology",       D::dimensionless, C::none,         kReq, at<&S::interconnect, &InterconnectSpec::topology>, nullptr},
  {"spec.interconnect.link_bandwidth", D::bandwidth,     C::positive,     kReq, at<&S::interconnect, &InterconnectSpec::link_bw>, nullptr},

  {"spec.dma.engines",          D::dimensionless, C::positive, kReq, at<&S::dma, &DmaSpec::engines>, nullptr},
  {"spec.dma.engine_bandwidth", D::bandwidth,     C::positive, kReq, at<&S::dma, &DmaSpec::engine_bw>, nullptr},
  {"spec.dma.bypasses_l2",      D::dimensionless, C::none,     kReq, at<&S::dma, &DmaSpec::bypasses_l2>, nullptr},
  {"spec.dma.reduce_bandwidth", D::bandwidth,     C::non_negative, kOpt, at<&S::dma, &DmaSpec::reduce_bw>, has_reduce_bw},
  {"spec.dma.iods",             D::dimensionless, C::non_negative, kOpt, at<&S::dma, &DmaSpec::iods>, has_iods},
  {"spec.dma.iod_crossing_bandwidth", D::bandwidth, C::non_negative, kOpt, at<&S::dma, &DmaSpec::iod_crossing_bw>, has_iod_crossing},

  {"cluster.nodes",            D::dimensionless, C::positive,     kOpt, at<&S::cluster, &ClusterSpec::nodes>, has_cluster_nodes},
  {"cluster.nics_per_node",    D::dimensionless, C::positive,     kOpt, at<&S::cluster, &ClusterSpec::nics_per_node>, has_cluster},
  {"cluster.gpus_per_nic",     D::dimensionless, C::positive,     kOpt, at<&S::cluster, &ClusterSpec::gpus_per_nic>, has_cluster},
  {"cluster.nic_bandwidth",    D::bandwidth,     C::positive,     kOpt, at<&S::cluster, &ClusterSpec::nic_bw>, has_cluster},
  {"cluster.nic_latency",      D::time,          C::non_negative, kOpt, at<&S::cluster, &ClusterSpec::nic_latency>, has_cluster},
  {"cluster.nic_message_rate_mpps", D::dimensionless, C::positive, kOpt, at<&S::cluster, &ClusterSpec::nic_message_rate>, has_message_rate},
  {"cluster.pcie_bandwidth",   D::bandwidth,     C::positive,     kOpt, at<&S::cluster, &ClusterSpec::pcie_bw>, has_cluster},
  {"cluster.network",          D::dimensionless, C::none,         kOpt, at<&S::cluster, &ClusterSpec::network>, has_cluster},
  {"cluster.oversubscription", D::dimensionless, C::at_least_one, kOpt, at<&S::cluster, &ClusterSpec::oversubscription>, has_fat_tree},
  {"cluster.nodes_per_leaf",   D::dimensionless, C::positive,     kOpt, at<&S::cluster, &ClusterSpec::nodes_per_leaf>, has_nodes_per_leaf},
  {"cluster.switch_latency",   D::time,          C::non_negative, kOpt, at<&S::cluster, &ClusterSpec::switch_latency>, has_switch_latency},
  {"cluster.channels",         D::dimensionless, C::positive,     kOpt, at<&S::cluster, &ClusterSpec::channels>, has_cluster_channels},

  {"model.gemm.macro_tile_m",      D::dimensionless, C::positive, kReq, at<&S::model, &M::gemm, &GemmModel::macro_tile_m>, nullptr},
  {"model.gemm.macro_tile_n",      D::dimensionless, C::positive, kReq, at<&S::model, &M::gemm, &GemmModel::macro_tile_n>, nullptr},
  {"model.gemm.persistent",        D::dimensionless, C::none,     kReq, at<&S::model, &M::gemm, &GemmModel::persistent>, nullptr},
  {"model.gemm.dynamic_tiles",     D::dimensionless, C::none,     kOpt, at<&S::model, &M::gemm, &GemmModel::dynamic_tiles>, has_dynamic_tiles},
  {"model.gemm.matrix_efficiency", D::dimensionless, C::fraction, kReq, at<&S::model, &M::gemm, &GemmModel::matrix_efficiency>, nullptr},
  {"model.gemm.l2_reuse_depth_k",  D::dimensionless, C::positive, kReq, at<&S::model, &M::gemm, &GemmModel::l2_reuse_depth_k>, nullptr},
  {"model.gemm.tile_swizzle", D::dimensionless, C::positive, kReq, at<&S::model, &M::gemm, &GemmModel::tile_swizzle>, nullptr},
  {"model.gemm.workgroup_remap", D::dimensionless, C::none, kOpt, at<&S::model, &M::gemm, &GemmModel::workgroup_remap>, has_workgroup_remap},
  {"model.gemm.dtype_efficiency.fp16", D::dimensionless, C::fraction, kOpt, dtype_efficiency<Dtype::fp16>, has_dtype_efficiency<Dtype::fp16>},
  {"model.gemm.dtype_efficiency.fp8",  D::dimensionless, C::fraction, kOpt, dtype_efficiency<Dtype::fp8>,  has_dtype_efficiency<Dtype::fp8>},
  {"model.gemm.dtype_efficiency.fp32", D::dimensionless, C::fraction, kOpt, dtype_efficiency<Dtype::fp32>, has_dtype_efficiency<Dtype::fp32>},
  {"model.gemm.dtype_efficiency.tf32", D::dimensionless, C::fraction, kOpt, dtype_efficiency<Dtype::tf32>, has_dtype_efficiency<Dtype::tf32>},
  {"model.gemm.dtype_macro_tile_n.fp16", D::dimensionless, C::positive, kOpt, dtype_tile_n<Dtype::fp16>, has_dtype_tile_n<Dtype::fp16>},
  {"model.gemm.dtype_macro_tile_n.fp8",  D::dimensionless, C::positive, kOpt, dtype_tile_n<Dtype::fp8>,  has_dtype_tile_n<Dtype::fp8>},
  {"model.gemm.dtype_macro_tile_n.fp32", D::dimensionless, C::positive, kOpt, dtype_tile_n<Dtype::fp32>, has_dtype_tile_n<Dtype::fp32>},
  {"model.gemm.dtype_macro_tile_n.tf32", D::dimensionless, C::positive, kOpt, dtype_tile_n<Dtype::tf32>, has_dtype_tile_n<Dtype::tf32>},
  {"model.gemm.memory_stall_fraction", D::dimensionless, C::non_negative, kReq, at<&S::model, &M::gemm, &GemmModel::memory_stall_fraction>, nullptr},
  {"model.gemm.memory_stall_workgroups_only", D::dimensionless, C::none, kOpt, at<&S::model, &M::gemm, &GemmModel::memory_stall_workgroups_only>, has_stall_workgroups_only},
  {"model.gemm.beside_partition_efficiency", D::dimensionless, C::fraction, kReq, at<&S::model, &M::gemm, &GemmModel::beside_partition_efficiency>, nullptr},
  {"model.gemm.cu_miss_bandwidth", D::bandwidth, C::non_negative, kOpt, at<&S::model, &M::gemm, &GemmModel::cu_miss_bw>, has_cu_miss_bw},
  {"model.gemm.hbm_miss_latency_ratio", D::dimensionless, C::positive, kOpt, at<&S::model, &M::gemm, &GemmModel::hbm_miss_latency_ratio>, has_hbm_miss_latency_ratio},
  {"model.gemm.epilogue_exposed", D::dimensionless, C::non_negative, kOpt, at<&S::model, &M::gemm, &GemmModel::epilogue_exposed>, has_epilogue_exposed},

  {"model.memory.xcd_fabric_bandwidth", D::bandwidth, C::positive,     kReq, at<&S::model, &M::memory, &MemoryModel::xcd_fabric_bw>, nullptr},
  {"model.memory.llc_bandwidth",        D::bandwidth, C::non_negative, kReq, at<&S::model, &M::memory, &MemoryModel::llc_bw>, nullptr},
  {"model.memory.hbm_bandwidth",        D::bandwidth, C::positive,     kReq, at<&S::model, &M::memory, &MemoryModel::hbm_bw>, nullptr},
  {"model.memory.l2_bandwidth_per_xcd", D::bandwidth, C::positive,     kReq, at<&S::model, &M::memory, &MemoryModel::l2_bw_per_xcd>, nullptr},
  {"model.memory.collective_channel_share", D::dimensionless, C::non_negative, kOpt, at<&S::model, &M::memory, &MemoryModel::collective_channel_share>, has_channel_share},
  {"model.memory.hbm_queueing",         D::dimensionless, C::none,         kOpt, at<&S::model, &M::memory, &MemoryModel::hbm_queueing>, has_hbm_queueing},
  {"model.memory.workgroup_stream_bandwidth", D::bandwidth, C::non_negative, kOpt, at<&S::model, &M::memory, &MemoryModel::workgroup_stream_bw>, has_stream_bw},
  {"model.memory.gather_latency", D::time, C::non_negative, kOpt, at<&S::model, &M::memory, &MemoryModel::gather_latency>, has_gather},
  {"model.memory.gather_bandwidth", D::bandwidth, C::non_negative, kOpt, at<&S::model, &M::memory, &MemoryModel::gather_bw>, has_gather},
  {"model.memory.gather_startup_latency", D::time, C::non_negative, kOpt, at<&S::model, &M::memory, &MemoryModel::gather_startup_latency>, has_gather},

  {"model.collective.workgroup_copy_bandwidth",      D::bandwidth,     C::positive,     kReq, at<&S::model, &M::collective, &CollectiveModel::workgroup_copy_bw>, nullptr},
  {"model.collective.workgroup_local_copy_bandwidth", D::bandwidth, C::non_negative, kOpt, at<&S::model, &M::collective, &CollectiveModel::workgroup_local_copy_bw>, has_local_copy},
  {"model.collective.link_bandwidth",                D::bandwidth,     C::positive,     kReq, at<&S::model, &M::collective, &CollectiveModel::link_bw>, nullptr},
  per_op<"model.collective.protocol_efficiency", PerOpForm::all_gather_bare, &S::model, &M::collective, &CollectiveModel::protocol_efficiency>(D::dimensionless, C::fraction),
  per_op<"model.collective.partition_rate", PerOpForm::each_optional, &S::model, &M::collective, &CollectiveModel::partition_rate>(D::dimensionless, C::positive),
  {"model.collective.launch_latency",                D::time,          C::non_negative, kReq, at<&S::model, &M::collective, &CollectiveModel::launch_latency>, nullptr},
  {"model.collective.step_latency",                  D::time,          C::non_negative, kReq, at<&S::model, &M::collective, &CollectiveModel::step_latency>, nullptr},
  {"model.collective.default_workgroups_all_gather", D::dimensionless, C::positive,     kReq, at<&S::model, &M::collective, &CollectiveModel::default_workgroups_all_gather>, nullptr},
  {"model.collective.default_workgroups_all_to_all", D::dimensionless, C::positive,     kReq, at<&S::model, &M::collective, &CollectiveModel::default_workgroups_all_to_all>, nullptr},
  {"model.collective.default_workgroups_reduce",     D::dimensionless, C::positive,     kReq, at<&S::model, &M::collective, &CollectiveModel::default_workgroups_reduce>, nullptr},
  per_op<"model.collective.copy_passes", PerOpForm::copying_required, &S::model, &M::collective, &CollectiveModel::copy_passes>(D::dimensionless, C::positive),
  {"model.collective.max_channels",                  D::dimensionless, C::positive, kOpt, at<&S::model, &M::collective, &CollectiveModel::max_channels>, has_max_channels},
  {"model.collective.max_p2p_channels",              D::dimensionless, C::positive, kOpt, at<&S::model, &M::collective, &CollectiveModel::max_p2p_channels>, has_max_p2p_channels},
  {"model.collective.partition_caps_channels",       D::dimensionless, C::none,     kOpt, at<&S::model, &M::collective, &CollectiveModel::partition_caps_channels>, has_partition_caps_channels},
  {"model.collective.l2_footprint_per_workgroup",    D::bytes,         C::non_negative, kReq, at<&S::model, &M::collective, &CollectiveModel::l2_footprint_per_workgroup>, nullptr},
  {"model.collective.memory_stall_fraction", D::dimensionless, C::non_negative, kReq, at<&S::model, &M::collective, &CollectiveModel::memory_stall_fraction>, nullptr},
  {"model.collective.channel_queueing", D::dimensionless, C::none, kOpt, at<&S::model, &M::collective, &CollectiveModel::channel_queueing>, has_channel_queueing},
  {"model.collective.link_stall_fraction", D::dimensionless, C::non_negative, kOpt, at<&S::model, &M::collective, &CollectiveModel::link_stall_fraction>, has_link_stall},
  {"model.collective.ll_step_latency", D::time, C::non_negative, kOpt, at<&S::model, &M::collective, &CollectiveModel::ll_step_latency>, has_ll_protocol},
  {"model.collective.ll_protocol_efficiency", D::dimensionless, C::fraction, kOpt, at<&S::model, &M::collective, &CollectiveModel::ll_protocol_efficiency>, has_ll_protocol},
  {"model.collective.ll_channel_bandwidth", D::bandwidth, C::non_negative, kOpt, at<&S::model, &M::collective, &CollectiveModel::ll_channel_bw>, has_ll_channel_bw},
  {"model.collective.ll128_step_latency", D::time, C::non_negative, kOpt, at<&S::model, &M::collective, &CollectiveModel::ll128_step_latency>, has_ll128_protocol},
  {"model.collective.ll128_protocol_efficiency", D::dimensionless, C::fraction, kOpt, at<&S::model, &M::collective, &CollectiveModel::ll128_protocol_efficiency>, has_ll128_protocol},
  {"model.collective.ll128_channel_bandwidth", D::bandwidth, C::non_negative, kOpt, at<&S::model, &M::collective, &CollectiveModel::ll128_channel_bw>, has_ll128_channel_bw},
  {"model.collective.nvls_all_reduce_bandwidth", D::bandwidth, C::non_negative, kOpt, at<&S::model, &M::collective, &CollectiveModel::nvls_all_reduce_bw>, has_nvls},
  {"model.collective.nvls_latency", D::time, C::non_negative, kOpt, at<&S::model, &M::collective, &CollectiveModel::nvls_latency>, has_nvls},

  {"model.dma.engine_bandwidth",   D::bandwidth,     C::positive,     kReq, at<&S::model, &M::dma, &DmaModel::engine_bw>, nullptr},
  {"model.dma.submit_latency",     D::time,          C::non_negative, kReq, at<&S::model, &M::dma, &DmaModel::submit_latency>, nullptr},
  {"model.dma.completion_latency", D::time,          C::non_negative, kReq, at<&S::model, &M::dma, &DmaModel::completion_latency>, nullptr},
  {"model.dma.memory_stall_fraction", D::dimensionless, C::non_negative, kReq, at<&S::model, &M::dma, &DmaModel::memory_stall_fraction>, nullptr},
  {"model.dma.engine_map",         D::dimensionless, C::none,         kReq, at<&S::model, &M::dma, &DmaModel::engine_map>, nullptr},
  {"model.dma.completion_needs_cu", D::dimensionless, C::none,        kReq, at<&S::model, &M::dma, &DmaModel::completion_needs_cu>, nullptr},
  {"model.dma.engine_start_latency",   D::time,          C::non_negative, kOpt, at<&S::model, &M::dma, &DmaModel::engine_start_latency>, has_engine_start},
  {"model.dma.gpu_initiated",          D::dimensionless, C::none,         kOpt, at<&S::model, &M::dma, &DmaModel::gpu_initiated>, has_gpu_initiated},
  {"model.dma.gpu_submit_latency",     D::time,          C::non_negative, kOpt, at<&S::model, &M::dma, &DmaModel::gpu_submit_latency>, has_gpu_submit},
  {"model.dma.prelaunched",            D::dimensionless, C::none,         kOpt, at<&S::model, &M::dma, &DmaModel::prelaunched>, has_prelaunched},
  {"model.dma.transfers_per_doorbell", D::dimensionless, C::positive,     kOpt, at<&S::model, &M::dma, &DmaModel::transfers_per_doorbell>, has_per_doorbell},
  {"model.dma.gpu_polled_completion",  D::dimensionless, C::none,         kOpt, at<&S::model, &M::dma, &DmaModel::gpu_polled_completion>, has_gpu_polled},
  {"model.dma.gpu_completion_latency", D::time,          C::non_negative, kOpt, at<&S::model, &M::dma, &DmaModel::gpu_completion_latency>, has_gpu_completion},
  {"model.dma.llc_bypass",             D::dimensionless, C::none,         kOpt, at<&S::model, &M::dma, &DmaModel::llc_bypass>, has_llc_bypass},
  {"model.dma.memory_priority",        D::dimensionless, C::positive,     kOpt, at<&S::model, &M::dma, &DmaModel::memory_priority>, has_memory_priority},
  {"model.dma.l2_flush_bandwidth",     D::bandwidth,     C::non_negative, kOpt, at<&S::model, &M::dma, &DmaModel::l2_flush_bw>, has_l2_flush},
  {"model.dma.partition_engines",      D::dimensionless, C::none,         kOpt, at<&S::model, &M::dma, &DmaModel::partition_engines>, has_partition_engines},

  {"model.dispatch.kernel_launch_latency",      D::time, C::non_negative, kReq, at<&S::model, &M::dispatch, &DispatchModel::kernel_launch_latency>, nullptr},
  {"model.dispatch.c3_launch_gap",              D::time, C::non_negative, kReq, at<&S::model, &M::dispatch, &DispatchModel::c3_launch_gap>, nullptr},
  {"model.dispatch.later_kernel_share",         D::dimensionless, C::half_share, kReq, at<&S::model, &M::dispatch, &DispatchModel::later_kernel_share>, nullptr},

  {"model.power.limit",               D::power,  C::non_negative, kOpt, at<&S::model, &M::power, &PowerModel::limit>, has_power},
  {"model.power.static",              D::power,  C::non_negative, kOpt, at<&S::model, &M::power, &PowerModel::static_power>, has_power},
  {"model.power.energy_per_flop",     D::energy, C::non_negative, kOpt, at<&S::model, &M::power, &PowerModel::energy_per_flop>, has_power},
  {"model.power.energy_per_hbm_byte", D::energy, C::non_negative, kOpt, at<&S::model, &M::power, &PowerModel::energy_per_hbm_byte>, has_power},
  {"model.power.window",              D::time,   C::non_negative, kOpt, at<&S::model, &M::power, &PowerModel::window>, has_power_window},
  {"model.power.measured_kernel_power", D::power, C::non_negative, kOpt, at<&S::model, &M::power, &PowerModel::measured_kernel_power>, has_measured_kernel_power},
  {"model.power.rate_exponent",       D::dimensionless, C::at_least_one, kOpt, at<&S::model, &M::power, &PowerModel::rate_exponent>, has_rate_exponent},
  {"model.power.dtype_energy.fp16",   D::dimensionless, C::positive, kOpt, dtype_energy<Dtype::fp16>, has_dtype_energy<Dtype::fp16>},
  {"model.power.dtype_energy.fp8",    D::dimensionless, C::positive, kOpt, dtype_energy<Dtype::fp8>,  has_dtype_energy<Dtype::fp8>},
  {"model.power.dtype_energy.fp32",   D::dimensionless, C::positive, kOpt, dtype_energy<Dtype::fp32>, has_dtype_energy<Dtype::fp32>},
  {"model.power.dtype_energy.tf32",   D::dimensionless, C::positive, kOpt, dtype_energy<Dtype::tf32>, has_dtype_energy<Dtype::tf32>},

  {"model.fused.message_overhead", D::time,          C::non_negative, kOpt, at<&S::model, &M::fused, &FusedModel::message_overhead>, has_message_overhead},
  {"model.fused.occupancy_ratio",  D::dimensionless, C::fraction,     kOpt, at<&S::model, &M::fused, &FusedModel::occupancy_ratio>, has_occupancy_ratio},
};
// clang-format on

constexpr std::size_t kFieldCount = [] {
  std::size_t n = 0;
  for (const FieldLine& line : kLines) n += line.count;
  return n;
}();

// The table, one FieldDef per key.
constexpr std::array<FieldDef, kFieldCount> kFields = [] {
  std::array<FieldDef, kFieldCount> out{};
  std::size_t n = 0;
  for (const FieldLine& line : kLines) {
    for (std::size_t i = 0; i < line.count; ++i) out[n++] = line.fields[i];
  }
  return out;
}();

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail(const FieldDef& f, const SourceLocation& where, const std::string& problem) {
  throw InputError(where, std::string(f.key), problem);
}

int parse_int(const FieldDef& f, const std::string& text, const SourceLocation& where) {
  const std::string_view s = trim(text);
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) fail(f, where, fmt::format("'{}' is out of range", text));
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    fail(f, where, fmt::format("'{}' is not an integer", text));
  }
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    fail(f, where, fmt::format("'{}' is out of range", text));
  }
  return static_cast<int>(v);
}

template <typename E>
E parse_enum(const FieldDef& f, const std::string& text, const SourceLocation& where,
             std::optional<E> (*parse)(std::string_view), std::initializer_list<E> all) {
  if (auto v = parse(trim(text))) return *v;
  std::string choices;
  for (E e : all) choices += fmt::format("{}{}", choices.empty() ? "" : ", ", to_string(e));
  fail(f, where, fmt::format("'{}' is not one of: {}", text, choices));
}

// Units to try when writing a quantity back; parse_quantity decides what each one means, so the
// writer cannot disagree with the reader about scales.
std::span<const std::string_view> units_for(Dimension d) {
  static constexpr std::string_view kBytes[] = {"B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB"};
  static constexpr std::string_view kBandwidth[] = {"B/s", "MB/s", "GB/s", "TB/s", "MiB/s", "GiB/s", "TiB/s"};
  static constexpr std::string_view kTime[] = {"s", "ms", "us", "ns", "ps"};
  static constexpr std::string_view kFrequency[] = {"Hz", "kHz", "MHz", "GHz"};
  static constexpr std::string_view kFlopRate[] = {"FLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s"};
  static constexpr std::string_view kPower[] = {"W", "mW", "kW"};
  static constexpr std::string_view kEnergy[] = {"J", "mJ", "uJ", "nJ", "pJ"};
  switch (d) {
    case Dimension::bytes: return kBytes;
    case Dimension::bandwidth: return kBandwidth;
    case Dimension::time: return kTime;
    case Dimension::frequency: return kFrequency;
    case Dimension::flop_rate: return kFlopRate;
    case Dimension::power: return kPower;
    case Dimension::energy: return kEnergy;
    case Dimension::dimensionless: return {};
  }
  return {};
}

// The shortest "<number> <unit>" that parses back to exactly `v`; the base unit always does
// ({} formats the shortest round-tripping decimal).
std::string format_quantity(double v, Dimension dim) {
  std::string best;
  for (std::string_view unit : units_for(dim)) {
    const auto base = parse_quantity(fmt::format("1 {}", unit), dim, nullptr);
    if (!base) continue;
    const std::string candidate = fmt::format("{} {}", v / *base, unit);
    const auto back = parse_quantity(candidate, dim, nullptr);
    if (back && *back == v && (best.empty() || candidate.size() < best.size())) best = candidate;
  }
  if (best.empty()) best = fmt::format("{} {}", v, units_for(dim).front());
  return best;
}

std::string_view constraint_text(Constraint c) {
  switch (c) {
    case Constraint::none: return "";
    case Constraint::non_empty: return "must not be empty";
    case Constraint::positive: return "must be greater than 0";
    case Constraint::non_negative: return "must not be negative";
    case Constraint::at_least_two: return "must be at least 2";
    case Constraint::fraction: return "must be in (0, 1]";
    case Constraint::half_share: return "must be in [0, 0.5]";
    case Constraint::at_least_one: return "must be at least 1";
  }
  return "";
}

bool satisfies(double v, Constraint c) {
  switch (c) {
    case Constraint::positive: return v > 0;
    case Constraint::non_negative: return v >= 0;
    case Constraint::at_least_two: return v >= 2;
    case Constraint::fraction: return v > 0 && v <= 1;
    case Constraint::half_share: return v >= 0 && v <= 0.5;
    case Constraint::at_least_one: return v >= 1;
    case Constraint::none:
    case Constraint::non_empty: return true;
  }
  return true;
}

}  // namespace

std::string_view FieldDef::section() const {
  const auto dot = key.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : key.substr(0, dot);
}

std::string_view FieldDef::leaf() const {
  const auto dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

std::span<const FieldDef> hardware_fields() { return kFields; }

const FieldDef* find_field(std::string_view key) {
  for (const FieldDef& f : kFields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

const FieldDef* find_per_op_field(std::string_view parameter, CollectiveOp op) {
  for (const FieldDef& f : kFields) {
    if (f.per_op_parameter == parameter && f.op == op) return &f;
  }
  return nullptr;
}

std::vector<std::string> field_names() {
  std::vector<std::string> out;
  out.reserve(kFields.size());
  for (const FieldDef& f : kFields) out.emplace_back(f.key);
  return out;
}

void parse_field(const FieldDef& f, NodeSpec& spec, const std::string& text, const SourceLocation& where) {
  const FieldRef ref = f.ref(spec);
  std::visit(
      [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, int>) {
          *p = parse_int(f, text, where);
        } else if constexpr (std::is_same_v<T, double>) {
          std::string why;
          const auto v = parse_quantity(text, f.dim, &why);
          if (!v) fail(f, where, why);
          *p = *v;
        } else if constexpr (std::is_same_v<T, bool>) {
          const std::string_view s = trim(text);
          if (s != "true" && s != "false") fail(f, where, fmt::format("'{}' is not true or false", text));
          *p = s == "true";
        } else if constexpr (std::is_same_v<T, std::string>) {
          *p = text;
        } else if constexpr (std::is_same_v<T, Topology>) {
          *p = parse_enum<Topology>(f, text, where, parse_topology,
                                    {Topology::fully_connected, Topology::switched});
        } else if constexpr (std::is_same_v<T, EngineMap>) {
          *p = parse_enum<EngineMap>(f, text, where, parse_engine_map,
                                     {EngineMap::round_robin, EngineMap::per_peer, EngineMap::all_on_one});
        } else if constexpr (std::is_same_v<T, Network>) {
          *p = parse_enum<Network>(f, text, where, parse_network,
                                   {Network::rail_optimized, Network::fat_tree});
        } else {
          static_assert(std::is_same_v<T, WorkgroupRemap>);
          *p = parse_enum<WorkgroupRemap>(f, text, where, parse_workgroup_remap,
                                          {WorkgroupRemap::round_robin, WorkgroupRemap::xcd_contiguous});
        }
      },
      ref);
}

void check_field(const FieldDef& f, const NodeSpec& spec, const SourceLocation& where) {
  if (!f.is_present(spec)) {
    if (f.required) fail(f, where, "required key is missing");
    return;
  }
  NodeSpec copy = spec;  // ref() needs a mutable spec (it may create map entries)
  const FieldRef ref = f.ref(copy);
  std::visit(
      [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, int>) {
          if (!satisfies(*p, f.constraint))
            fail(f, where, fmt::format("{} (got {})", constraint_text(f.constraint), *p));
          if (*p > kMaxCount) fail(f, where, fmt::format("must be at most {} (got {})", kMaxCount, *p));
        } else if constexpr (std::is_same_v<T, double>) {
          if (!satisfies(*p, f.constraint)) {
            fail(f, where, fmt::format("{} (got {})", constraint_text(f.constraint), format_field(f, spec)));
          }
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (f.constraint == Constraint::non_empty && p->empty()) fail(f, where, "must not be empty");
        }
      },
      ref);
}

std::string format_field(const FieldDef& f, const NodeSpec& spec) {
  if (!f.is_present(spec)) return {};
  NodeSpec copy = spec;
  const FieldRef ref = f.ref(copy);
  return std::visit(
      [&](auto* p) -> std::string {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, int>) {
          return fmt::format("{}", *p);
        } else if constexpr (std::is_same_v<T, double>) {
          if (f.dim == Dimension::dimensionless) return fmt::format("{}", *p);
          return format_quantity(*p, f.dim);
        } else if constexpr (std::is_same_v<T, bool>) {
          return *p ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return *p;
        } else {
          return to_string(*p);
        }
      },
      ref);
}

void set_field(NodeSpec& spec, const std::string& dotted_key, const std::string& value_text,
               HardwareSourceMap* sources) {
  const SourceLocation where{"<override>", 0, 0};
  const FieldDef* f = find_field(dotted_key);
  if (f == nullptr) {
    throw InputError(where, dotted_key, "unknown hardware field (see field_names() / docs for the list)");
  }
  NodeSpec trial = spec;  // strong guarantee: spec is untouched when the value is rejected
  parse_field(*f, trial, value_text, where);
  check_field(*f, trial, where);
  spec = std::move(trial);
  if (sources != nullptr) sources->set(dotted_key, where);
}

std::string get_field(const NodeSpec& spec, const std::string& dotted_key) {
  const FieldDef* f = find_field(dotted_key);
  if (f == nullptr)
    throw InputError(SourceLocation{"<override>", 0, 0}, dotted_key, "unknown hardware field");
  return format_field(*f, spec);
}

}  // namespace c3sim::hw
