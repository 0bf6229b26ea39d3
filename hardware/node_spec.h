#pragma once
// What a node IS: datasheet facts (`spec:` in a hardware YAML) and fitted or assumed model
// parameters (`model:`). All quantities are stored in SI base units (bytes, bytes/s, seconds,
// FLOP/s, Hz) whatever unit string the YAML used. The YAML key of each field is given beside it;
// hardware/presets/*.yaml document the source of every value.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "hardware/gemm_library.h"
#include "hardware/per_op.h"
#include "sim/base/dtype.h"

namespace c3sim::hw {

// Dtype lives in sim/base (workloads and models share it); hw:: spellings stay valid.
using c3sim::Dtype;
using c3sim::dtype_bytes;
using c3sim::kAllDtypes;
using c3sim::parse_dtype;
using c3sim::to_string;

enum class Topology { fully_connected, switched };
enum class EngineMap { round_robin, per_peer, all_on_one };  // how DMA transfers are placed on engines
// Which tiles the workgroups one XCD receives compute. The dispatcher sends workgroup i to XCD
// i mod xcds either way; round_robin: workgroup i computes tile i (so an XCD's tiles are every
// xcds-th tile); xcd_contiguous: the kernel remaps its workgroup id so each XCD computes one
// contiguous block of the tile order (Tensile's WorkGroupMappingXCC, used by hipBLASLt).
enum class WorkgroupRemap { round_robin, xcd_contiguous };
// How the nodes' NICs meet (cluster.network). rail_optimized: NIC i of every node is on rail
// switch i, so GPU i reaches GPU i of any node through one switch at the NIC's full rate.
// fat_tree: leaf switches under spine switches; traffic between leaves crosses the spine, which
// carries 1 / oversubscription of what the leaves' ports can send.
enum class Network { rail_optimized, fat_tree };

const char* to_string(Topology t);
const char* to_string(EngineMap m);
const char* to_string(WorkgroupRemap r);
const char* to_string(Network n);

// Inverse of to_string; nullopt for an unknown spelling (callers turn that into an InputError).
std::optional<Topology> parse_topology(std::string_view text);
std::optional<EngineMap> parse_engine_map(std::string_view text);
std::optional<WorkgroupRemap> parse_workgroup_remap(std::string_view text);
std::optional<Network> parse_network(std::string_view text);

// spec.compute
struct ComputeSpec {
  int xcds = 0;                        // xcds: dies that each own an L2 (1 on Hopper)
  int cus_per_xcd = 0;                 // cus_per_xcd: active CUs (SMs) per die
  double clock_hz = 0;                 // clock: peak engine clock, e.g. '2100 MHz'
  std::map<Dtype, double> peak_flops;  // peak: {bf16: '1307.4 TFLOP/s', ...} dense matrix peak
  int cu_mask_granularity = 1;         // cu_mask_granularity: smallest CU allocation (8 on MI300X SPX)
  int stream_priority_levels = 1;      // stream_priority_levels
  [[nodiscard]] int total_cus() const { return xcds * cus_per_xcd; }
};

// spec.memory
struct MemorySpec {
  double l2_bytes_per_xcd = 0;  // l2_per_xcd
  double l2_bw_per_xcd = 0;     // l2_bandwidth_per_xcd (CU <- L2 peak)
  double llc_bytes = 0;         // llc: memory-side last-level cache (0 = none, e.g. Hopper)
  double llc_bw = 0;            // llc_bandwidth (peak)
  double hbm_bytes = 0;         // hbm
  double hbm_bw = 0;            // hbm_bandwidth (peak)
};

// spec.interconnect
struct InterconnectSpec {
  int gpus = 0;                                   // gpus: GPUs per node
  Topology topology = Topology::fully_connected;  // topology
  double link_bw = 0;  // link_bandwidth: per direction, per peer link (fully_connected)
                       //   or per direction per GPU into the switch (switched)
};

// spec.dma
struct DmaSpec {
  int engines = 0;          // engines: copy engines usable for peer transfers
  double engine_bw = 0;     // engine_bandwidth: per engine peak
  bool bypasses_l2 = true;  // bypasses_l2: engines sit beyond the XCD L2s (MI300X: IOD)
  double reduce_bw = 0;     // reduce_bandwidth: bytes/s of bf16/fp32 sum one engine's reduction
                            //   unit produces (0 or absent = engines only copy; MI300X SDMA)
  // Placement over I/O dies (optional; absent = placement not modelled, no crossing cost). Engine e
  // sits on IOD e % iods and the link to peer p on IOD p % iods (interleaved); a transfer whose
  // engine and link sit on different IODs crosses the IOD-IOD fabric once per byte.
  int iods = 0;                // iods: I/O dies the engines and the peer links are spread over
  double iod_crossing_bw = 0;  // iod_crossing_bandwidth: bytes/s one IOD can send to the other IODs
};

// cluster: the nodes' network interfaces and the network between nodes (optional; absent = one
// node, nothing leaves it). Every GPU reaches other nodes through a NIC on a PCIe path of its own;
// GPU i uses NIC i / gpus_per_nic, so gpus_per_nic GPUs share one NIC.
struct ClusterSpec {
  int nodes = 0;                // nodes: node count a program runs on by default (0 or absent = 1)
  int nics_per_node = 0;        // nics_per_node: 0 = no cluster section
  int gpus_per_nic = 1;         // gpus_per_nic: GPUs that share one NIC (GPU-NIC placement)
  double nic_bw = 0;            // nic_bandwidth: per NIC, per direction (400 Gb/s = 50 GB/s)
  double nic_latency = 0;       // nic_latency: one message NIC to NIC through one switch
  double nic_message_rate = 0;  // nic_message_rate_mpps: million messages per second one NIC issues
  double pcie_bw = 0;           // pcie_bandwidth: the GPU-NIC PCIe path, per direction
  Network network = Network::rail_optimized;  // network
  double oversubscription = 1;                // oversubscription (fat_tree): leaf down-ports over up-ports
  int nodes_per_leaf = 0;     // nodes_per_leaf (fat_tree): nodes under one leaf switch (0 = one)
  double switch_latency = 0;  // switch_latency: per switch a message crosses beyond the first
  // channels: the library's channels for a ring or tree collective over several nodes, built from
  // the network graph rather than the node's links (0 = the node's own, model.collective)
  int channels = 0;
  [[nodiscard]] bool present() const { return nics_per_node > 0; }
};

// model.gemm: the vendor GEMM library's kernels, as the tile model sees them.
struct GemmModel {
  int macro_tile_m = 256;                  // macro_tile_m
  int macro_tile_n = 256;                  // macro_tile_n
  bool persistent = false;                 // persistent: grid = #CUs, each workgroup loops over tiles
  bool dynamic_tiles = false;              // dynamic_tiles (persistent only): workgroups take their next
                                           //   tile from one shared queue (an atomic counter), so a
                                           //   workgroup that starts late takes what is left instead
                                           //   of a fixed share; each still holds its CU until the queue
                                           //   is empty
  double matrix_efficiency = 1.0;          // matrix_efficiency: achieved / peak FLOP rate per CU
  int l2_reuse_depth_k = 256;              // l2_reuse_depth_k: K-extent of a shared panel kept live in L2
  int tile_swizzle = 1;                    // tile_swizzle: tiles are visited in bands of this many rows,
                                           //   column by column (CUTLASS-style rasterization); 1 = row-major
  double beside_partition_efficiency = 1;  // beside_partition_efficiency: compute rate a GEMM keeps when
                                           //   it runs in the units left beside another stream's partition
                                           //   (the rp policies' GEMM side) rather than in its own group
  double memory_stall_fraction = 0;        // memory_stall_fraction: a tile stretches by 1 + f * u when other
                                           //   kernels use a share u of the memory it misses to
  double cu_miss_bw = 0;                   // cu_miss_bandwidth: L2-miss read bytes/s one CU's GEMM
                                           //   workgroup keeps in flight (Little's law: outstanding
                                           //   misses x line / loaded latency) when they hit the LLC;
                                           //   0 or absent = no limit
  double hbm_miss_latency_ratio = 1;       // hbm_miss_latency_ratio: latency of a miss the LLC passes on to
                                           //   HBM over that of one it serves; scales the cu_miss_bandwidth
                                           //   limit by where the misses land (1 = no difference)
  double epilogue_exposed = 0;             // epilogue_exposed: share of a tile's output store that does
                                           //   not overlap its mainloop (the store drains at the CU's
                                           //   share of HBM bandwidth); what makes small-K GEMMs slow

  // memory_stall_workgroups_only: memory_stall_fraction's u counts only the traffic that other
  // kernels' workgroups issue, not the copy engines'; absent = every other kernel's traffic counts.
  bool memory_stall_workgroups_only = false;

  // workgroup_remap: which tiles the workgroups one XCD receives compute (see WorkgroupRemap).
  WorkgroupRemap workgroup_remap = WorkgroupRemap::round_robin;
  // dtype_efficiency.<dtype> / dtype_macro_tile_n.<dtype>: the library's kernels for that dtype
  // (absent = matrix_efficiency and macro_tile_n, bf16's).
  std::map<Dtype, double> dtype_efficiency;
  std::map<Dtype, int> dtype_macro_tile_n;
};

// model.memory: achieved (not peak) bandwidths the fluid solver shares out.
struct MemoryModel {
  double xcd_fabric_bw = 0;             // xcd_fabric_bandwidth: L2-miss traffic of one XCD to LLC/HBM
  double llc_bw = 0;                    // llc_bandwidth: achieved LLC bandwidth (whole GPU)
  double hbm_bw = 0;                    // hbm_bandwidth: achieved HBM bandwidth
  double l2_bw_per_xcd = 0;             // l2_bandwidth_per_xcd: achieved CU <- L2 bandwidth per XCD
  double workgroup_stream_bw = 0;       // workgroup_stream_bandwidth: bytes/s (read + written) one
                                        //   workgroup of a streaming `memory` kernel moves when nothing
                                        //   else limits it (0 or absent: twice workgroup_copy_bandwidth)
  double collective_channel_share = 0;  // collective_channel_share: share of HBM channels (and the LLC
                                        //   slices in front of them) given to the collective's buffers;
                                        //   the GEMM keeps the rest (0 or absent = all shared)
  bool hbm_queueing = false;            // hbm_queueing: requests that miss the LLC also queue behind
                                        //   other kernels' HBM traffic (models/node/queueing_utilization.h;
                                        //   false or absent = queueing at the LLC only)
  // A gather (a `memory` kernel with `gather:`, an embedding lookup): random rows, each thread's
  // row loads behind its dependent index load. The three come as a set; absent (0) = a gather
  // streams as any memory kernel.
  double gather_latency = 0;          // gather_latency: loaded round trip of a random row read, s
  double gather_bw = 0;               // gather_bandwidth: HBM bandwidth of random-row reads plus the
                                      //   pooled rows' writes, bytes/s
  double gather_startup_latency = 0;  // gather_startup_latency: a gather's fixed cost beyond its
                                      //   launch, once per kernel, s
};

// model.collective: CU-based (RCCL/NCCL-like) collectives.
struct CollectiveModel {
  double workgroup_copy_bw = 0;        // workgroup_copy_bandwidth: bytes/s one workgroup copies
  double workgroup_local_copy_bw = 0;  // workgroup_local_copy_bandwidth: bytes/s one workgroup writes
                                       //   into its own GPU's output beside its sends (the local
                                       //   block of a ring step, all-to-all's own chunk); 0 = free
  double link_bw = 0;                  // link_bandwidth: usable per direction (per peer or per GPU)
  // Payload share of the link bytes a CU collective achieves (flags, FIFO handshakes), per op:
  // protocol_efficiency is the all-gather's and every op's without its own,
  // <op>_protocol_efficiency another op's (absent = the all-gather's). Measured where the library's
  // kernels differ: on 2 x H200 NCCL's all-reduce and all-to-all saturate at ~338 GB/s sent,
  // all-gather and reduce-scatter at ~282 (h200x2_warmcoll_sweep_ctas.jsonl, 32-64 CTAs), with the
  // same per-CTA rate below the knee.
  PerOp<double> protocol_efficiency{{1.0, 0, 0, 0}};
  // <op>_partition_rate: the library's rate inside an SM partition (a green context or CU-masked
  // stream of its own) over its rate unpartitioned with the same CTA cap (absent = 1, the same).
  // Library behaviour measured alone: c3bench sweep --what coll_partition. On 2 x H200 NCCL's
  // collectives capped at 32 CTAs run -2% (reduce-scatter) to +7% (all-reduce, all-to-all) in time
  // inside a 32-SM green context, which packs them into 4 GPCs (hardware/measurements/placement/).
  PerOp<double> partition_rate;
  double launch_latency = 0;          // launch_latency: kernel launch to first workgroup
  double step_latency = 0;            // step_latency: per algorithm step (protocol handshake)
  double ll_step_latency = 0;         // ll_step_latency: per step of the low-latency protocol (LL)
  double ll_protocol_efficiency = 0;  // ll_protocol_efficiency: payload share of LL's link bytes
                                      //   (0 = the library has no LL protocol in the model)
  // The library's per-protocol behaviour beyond the simple protocol's (step_latency,
  // protocol_efficiency, workgroup_copy_bandwidth), measured with the protocol forced
  // (NCCL_PROTO=LL / LL128). A protocol without its own value takes the simple protocol's step
  // latency and channel rate and its wire format's payload share (workloads/collective_protocol.h);
  // the tuner (models/kernels/collective_tuner.h) only picks a protocol whose efficiency is given.
  double ll_channel_bw = 0;              // ll_channel_bandwidth: payload bytes/s one channel sends under
                                         //   LL (0 = workgroup_copy_bandwidth)
  double ll128_step_latency = 0;         // ll128_step_latency: per step of LL128
  double ll128_protocol_efficiency = 0;  // ll128_protocol_efficiency: payload share of LL128's link
                                         //   bytes (0 = the model has no LL128)
  double ll128_channel_bw = 0;           // ll128_channel_bandwidth: as ll_channel_bandwidth, for LL128
  // NVLink SHARP (NVLS): the node's switches reduce and multicast. The library's all-reduce over
  // several nodes uses it inside each node under a tree between nodes (NCCL's NVLSTree); one node
  // keeps the ring or tree the node's measurements ran (NVLS disabled there).
  double nvls_all_reduce_bw = 0;           // nvls_all_reduce_bandwidth: NVLS all-reduce's algorithm bandwidth
                                           //   on one node (per-GPU buffer bytes per second; 0 = no NVLS)
  double nvls_latency = 0;                 // nvls_latency: its fixed cost inside the node (reduce, multicast)
  int default_workgroups_all_gather = 64;  // default_workgroups_all_gather (RCCL default channels)
  int default_workgroups_all_to_all = 56;  // default_workgroups_all_to_all
  int default_workgroups_reduce = 64;      // default_workgroups_reduce (reduce-scatter, all-reduce)
  // The channels the library builds for this node (NCCL_DEBUG=INFO: "24 coll channels, ... 32 p2p
  // channels" on 2 x H200): a CTA cap or default above it runs no more (0 = no limit). Through a
  // switch every ring passes each GPU's port once whatever the GPU count, so the count holds at any
  // node size (NCCL's ring search); on a fully connected node it is the library's plan for
  // spec.interconnect.gpus GPUs only.
  int max_channels = 0;      // max_channels: ring/tree collectives (all-gather, reduce-scatter, all-reduce)
  int max_p2p_channels = 0;  // max_p2p_channels: send/receive collectives (all-to-all)
  // partition_caps_channels: under rp:<n> (and on a program stream with `cus`) the library is capped
  // at the partition's CUs (c3bench: ncclConfig_t.maxCTAs = n), so its channels fit in one wave;
  // false: it keeps its channels and runs them in waves on the partition (the paper's RCCL on a
  // CU-masked stream).
  bool partition_caps_channels = false;
  // <op>_copy_passes: copies per sent byte, per op; the all-gather's and the all-to-all's are
  // required (the all-to-all's p2p FIFO: 2), a reduction's absent = the all-gather's plus the share
  // of its passes that reduce (the reduce reads the local contribution too: reduce-scatter + 1,
  // all-reduce + 0.5), measured where the preset has it.
  PerOp<double> copy_passes{{1, 2, 0, 0}};
  double l2_footprint_per_workgroup = 0;  // l2_footprint_per_workgroup: L2 bytes a comm WG keeps
  double memory_stall_fraction = 0;       // memory_stall_fraction: share of a copy loop's time
                                          //   exposed to memory latency (queues behind a GEMM);
                                          //   channels and memory program kernels alike
  bool channel_queueing = false;          // channel_queueing: channels share the link as a closed
                                          //   queueing network (models/node/channel_queueing.h), not as
                                          //   min(channels x per-channel rate, link)
  double link_stall_fraction = 0;         // link_stall_fraction: each byte's link time stretches by
                                          //   1 + f * u while the peers' GEMMs load their memory with
                                          //   utilization u (remote writes wait on a busy memory); more
                                          //   workgroups cannot make up for it
};

// model.dma: collectives on copy engines (ConCCL-like), orchestrated by the host.
struct DmaModel {
  double engine_bw = 0;           // engine_bandwidth: achieved per engine
  double submit_latency = 0;      // submit_latency: host cost to enqueue one transfer (serial)
  double completion_latency = 0;  // completion_latency: signal + host sync after the last copy
  EngineMap engine_map = EngineMap::round_robin;  // engine_map
  bool completion_needs_cu = false;               // completion_needs_cu: the copies' completion (and a vendor
                                     //   path's start barrier) is a tiny kernel or stream operation
                                     //   that needs a CU, so it waits behind a kernel holding all CUs
  double memory_stall_fraction = 0;  // memory_stall_fraction: share of an engine's copy time exposed to
                                     //   memory latency (queues behind a GEMM's traffic)
  // Who launches the copies and who sees them finish (all optional; absent = host-driven, one
  // doorbell per transfer, no engine start cost, host-observed completion).
  double engine_start_latency = 0;     // engine_start_latency: an engine's time from doorbell to first
                                       //   byte of one transfer (descriptor fetch, address translation)
  bool gpu_initiated = false;          // gpu_initiated: a kernel or the command processor writes the
                                       //   descriptors (one writer per engine queue, in parallel); no host
  double gpu_submit_latency = 0;       // gpu_submit_latency: a GPU-side writer's cost per doorbell
  bool prelaunched = false;            // prelaunched: descriptors were recorded ahead, gated on one signal;
                                       //   the launch is one trigger by the initiator
  int transfers_per_doorbell = 1;      // transfers_per_doorbell: transfers one submission (API call /
                                       //   doorbell ring) carries; the initiator pays per submission
  bool gpu_polled_completion = false;  // gpu_polled_completion: the consumer polls the completion
                                       //   signal on the GPU instead of the host waking up for it
  double gpu_completion_latency = 0;   // gpu_completion_latency: signal write to a GPU poller seeing it
  // Memory side (optional; absent = today's behaviour).
  bool llc_bypass = false;     // llc_bypass: engine writes stream past the LLC (no allocation)
  double memory_priority = 1;  // memory_priority: share weight of engine traffic at the memory
                               //   (1 = FIFO like any requester; k = served k x its standalone share)
  double l2_flush_bw = 0;      // l2_flush_bandwidth: rate the producer's dirty L2 lines are written
                               //   back before a copy may read them (0 or absent = producers write
                               //   through, nothing to flush)
  // Engines between concurrent collectives (programs). Shared (false, absent): every DMA
  // collective uses engines from 0 up and an engine serves the queues of all of them round robin
  // (a fair share each). Partitioned (true): the engines are split into equal contiguous sets, one
  // per program stream that carries DMA collectives, in stream order.
  bool partition_engines = false;  // partition_engines
};

// model.dispatch: kernel launch and workgroup placement.
struct DispatchModel {
  double kernel_launch_latency = 0;  // kernel_launch_latency: launch to first workgroup
  double c3_launch_gap = 0;          // c3_launch_gap: delay between launching the two C3 kernels
  double later_kernel_share = 0;     // later_kernel_share: freed CUs a later-arrived kernel of equal
                                     //   priority wins while an earlier one still has workgroups pending
};

// model.power: the board power limit as a shared resource (optional; limit 0 or absent = none).
// Power drawn = static + energy_per_flop x GEMM FLOP/s + energy_per_hbm_byte x HBM bytes/s; the
// part above static is a fluid-solver resource of (limit - static) W: when the work in flight would
// draw more, the flows through it are slowed as a power-capped clock slows them, shared in
// proportion to each flow's rate alone (the solver's rule for every resource).
struct PowerModel {
  double limit = 0;                // limit: the board's power limit (W)
  double static_power = 0;         // static: what the board draws busy but without that work (W)
  double energy_per_flop = 0;      // energy_per_flop: J per GEMM FLOP on the matrix units
  double energy_per_hbm_byte = 0;  // energy_per_hbm_byte: J per byte read or written in HBM
  // measured_kernel_power: what a kernel known only by its measured duration (an imported trace's
  // elementwise, norm, optimizer or attention kernel) draws above static while it holds every CU
  // (W; a share of it on fewer CUs). Its bytes and FLOPs are unknown, so its draw is a class
  // figure: a step's such kernels are mostly HBM streams. 0 = they draw nothing.
  double measured_kernel_power = 0;
  // rate_exponent: how the draw of work the limit slows falls with its rate, P ~ rate^b (>= 1): a
  // lower clock runs at a lower voltage. 1 = linear (the draw at the limit's rate is the full-clock
  // draw scaled by the rate). Applies with a window (models/node/power_window.h).
  double rate_exponent = 1;
  // dtype_energy.<dtype>: a GEMM FLOP's energy in that dtype over a bf16 FLOP's (the kernels move
  // the same tiles, but their operands toggle differently). Absent: 1.
  std::map<Dtype, double> dtype_energy;
  // window: the power manager's averaging time constant (s). 0 = the limit binds on the draw at
  // each instant; > 0 = on its exponential average over this time (models/node/power_window.h),
  // so a burst shorter than the window runs unthrottled and a sustained load settles at the limit.
  double window = 0;
};

// Fused compute + communication kernels (models/kernels/fused_kernel.h): a producer's workgroups
// that write their output straight to the peers when their tile or rows are done.
struct FusedModel {
  // message_overhead: seconds one workgroup spends per message it sends to the peers (its stores
  // fenced at system scope, then a completion flag the peer polls): GPU-initiated, no host. < 0 =
  // absent: the low-latency protocol's step latency (model.collective.ll_step_latency, a flag-
  // carrying store crossing the link), or the simple protocol's where the preset has no LL.
  double message_overhead = -1;
  // occupancy_ratio: the fused kernel's compute rate per workgroup over the producer's alone, in
  // (0, 1]: its send code and addresses take registers, so fewer waves per CU hide the latency of
  // the producer's loads. 1 (absent) = no loss.
  double occupancy_ratio = 1;
};

struct ModelParams {
  GemmModel gemm;
  MemoryModel memory;
  CollectiveModel collective;
  DmaModel dma;
  DispatchModel dispatch;
  PowerModel power;
  FusedModel fused;
};

struct NodeSpec {
  std::string name;               // name
  std::string description;        // description
  ComputeSpec compute;            // spec.compute
  MemorySpec memory;              // spec.memory
  InterconnectSpec interconnect;  // spec.interconnect
  DmaSpec dma;                    // spec.dma
  ClusterSpec cluster;            // cluster
  ModelParams model;              // model
  GemmLibrary gemm_library;       // gemm_library: the library's measured behaviour per shape
  std::string source_file;        // where it was loaded from (not a YAML key)
};

}  // namespace c3sim::hw
