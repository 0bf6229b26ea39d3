#pragma once
// The measuring core shared by `c3bench run` and `c3bench sweep`: owns the GPUs, the BLAS and
// collective resources and the buffers of the current GEMM and collective, builds the Parts a
// trial runs (a GEMM, a collective of any implementation, on any stream or SM partition), checks
// collectives' output bytes, and times lists of measurements with warm-ups and interleaved trials.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hardware/hip/blas_gemm.h"
#include "hardware/hip/clock_probe.h"
#include "hardware/hip/coll_buffers.h"
#include "hardware/hip/device_set.h"
#include "hardware/hip/dma_collective.h"
#include "hardware/hip/sm_partition.h"
#include "hardware/hip/stats.h"
#include "hardware/hip/trial.h"
#include "hardware/hip/vendor_collective.h"
#include "workloads/gemm.h"

namespace c3sim::bench {

// How a collective runs: which implementation, its CTA cap (cu), its DMA options (dma).
struct CollConfig {
  wl::CollectiveImpl impl = wl::CollectiveImpl::cu;
  int max_ctas = 0;  // cu only; 0 = library default
  DmaOptions dma;
  [[nodiscard]] std::string describe() const;
};

// One measurement: parts launched in this order; per trial, each part's time and the total.
struct Measurement {
  std::vector<Part> parts;
};

// The GPUs' state around one timed trial (slowest_gpu of each reading).
struct TrialClocks {
  ClockReading before;  // after conditioning, just before the trial's first launch
  ClockReading after;   // once every GPU finished the trial
};

struct MeasuredTimes {
  MeasuredTimes() = default;
  MeasuredTimes(Summary total_, std::vector<Summary> parts_, int trials_,
                std::vector<TrialClocks> clocks_ = {})
      : total(total_), parts(std::move(parts_)), trials(trials_), clocks(std::move(clocks_)) {}
  Summary total;
  std::vector<Summary> parts;
  int trials = 0;
  std::vector<TrialClocks> clocks;  // per timed trial, in the order run; empty without a probe
  std::vector<double> total_us;     // per timed trial, in the order run
};

// How every timed trial (warm-ups included) is started, the same for isolated and concurrent
// trials, so that clock and power state is not what tells them apart
// (hardware/measurements/clocks/README.md):
//   every GPU idle for idle_ms (the power limiter's budget recovers; the host busy-waits) ->
//   a spin kernel on every SM/CU of every GPU for spin_ms (clocks up from idle) -> the trial.
// rotate: round t runs the measurements starting at the (t mod n)-th, so drift over a round falls
// on every measurement alike (a cyclic shift keeps each trial's predecessor: the idle gap, not the
// order, is what removes the predecessor's clock effect; hardware/measurements/README.md).
struct Conditioning {
  double idle_ms = 20;
  double spin_ms = 2;
  bool rotate = true;
  // After the idle gap, a 1 MiB all-reduce through the library on every GPU before the spin: an
  // isolated NCCL collective after 20 ms idle took 290-490 us at 64 MiB where the same collective
  // launched beside a GEMM took 186-430 (2 x H200, hardware/measurements/README.md, conditioned/),
  // a wake-up only the isolated trials paid.
  bool warm_collective = true;
  [[nodiscard]] std::string describe() const;
};

class Bench {
public:
  Bench();

  [[nodiscard]] DeviceSet& devices() { return devices_; }
  [[nodiscard]] int gpus() const { return devices_.count(); }
  [[nodiscard]] int units() const { return devices_.compute_units(0); }

  // The libraries' collectives and the own DMA collective (the program path, program_bench.h).
  [[nodiscard]] VendorCollectives& vendor() { return vendor_; }
  [[nodiscard]] DmaCollectives& dma() { return dma_; }

  void prepare_gemm(const wl::Gemm& gemm);
  // The prepared GEMM's operands and calls (the GEMM launch probe times them directly).
  [[nodiscard]] BlasGemm& gemm() { return gemm_; }
  void prepare_collective(const CollShape& shape);
  [[nodiscard]] const CollShape& collective() const { return shape_; }
  // The prepared collective's plain buffers, for a part that produces the collective's input
  // itself (the fused_a2a sweep's lookup writes the send buffers the all-to-all then moves).
  [[nodiscard]] CollBuffers& collective_buffers() { return plain_; }

  // Runs the collective once on poisoned receive buffers and returns the number of wrong words.
  std::uint64_t verify(const CollConfig& config);

  // GEMM on every GPU: whole GPU (stream "gemm"), or on an SM group of >= sm_limit units.
  Part gemm_part(int sm_limit = 0);
  // GEMM on the "rest" side of each GPU's partition whose group has >= group_units units.
  // The GEMM in the SMs/CUs left beside a group of `group_units` (the rp policies' GEMM side).
  // With sm_target false, cuBLAS plans for the whole device instead of the partition.
  Part gemm_part_beside(int group_units, bool sm_target = true);
  // Collective on its own streams; high_priority puts a cu collective on the most urgent stream.
  Part coll_part(const CollConfig& config, bool high_priority = false);
  // cu collective inside each GPU's partition group of >= group_units, capped at that many CTAs.
  Part coll_part_in(int group_units, bool high_priority = false);
  // Units the partition for `group_units` really gives the group and the rest (rounding).
  [[nodiscard]] std::pair<int, int> partition_units(int group_units);

  void set_conditioning(const Conditioning& c) { conditioning_ = c; }
  [[nodiscard]] const Conditioning& conditioning() const { return conditioning_; }
  [[nodiscard]] const ClockProbe& clocks() const { return clock_probe_; }

  // Primes each measurement once untimed, runs `warmups` timed rounds, then `trials` rounds in
  // which every measurement runs once (rotated, see Conditioning): baselines are timed beside
  // the concurrent runs. Every timed trial is conditioned first and its clocks read.
  std::vector<MeasuredTimes> measure(const std::vector<Measurement>& list, int warmups, int trials);

private:
  // Brings every GPU to the state Conditioning describes.
  void condition();

  DeviceSet devices_;
  ClockProbe clock_probe_;
  Conditioning conditioning_;
  SmPartitions partitions_;
  BlasGemm gemm_;
  VendorCollectives vendor_;
  DmaCollectives dma_;
  CollBuffers plain_;
  CollBuffers symmetric_;
  CollShape shape_;
  std::uint64_t seed_ = 0x5EEDull;
};

}  // namespace c3sim::bench
