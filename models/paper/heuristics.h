#pragma once
// The paper's runtime heuristics (Sections V-C and VI-G), as models scored against the sweep.
//
// Schedule prioritization: launch kernels in order of workgroup count, low to high.
// Resource partitioning: once per GPU, build CU-loss slowdown tables for one memory-bound GEMM,
// one compute-bound GEMM, and a latency-bound and a bandwidth-bound size of each collective; for a
// scenario, scale roofline times (peak compute, memory and network at 70% efficiency) by those
// slowdowns for each power-of-two CU split and pick the split minimising max(GEMM, comm).
// ConCCL partitioning: only for memory-bound GEMMs, remove the CUs the memory-bound table says
// help most (eight on MI300X in the paper).
#include <map>
#include <string>
#include <vector>

#include "models/run/c3_simulator.h"
#include "workloads/scenario.h"

namespace c3sim::models {

enum class GemmClass { compute_bound, memory_bound };
const char* to_string(GemmClass c);

struct SlowdownTables {
  std::vector<int> cus;           // powers of two tried (CUs taken / given)
  std::map<int, double> cb_gemm;  // CUs taken from the GEMM -> time / time with all CUs
  std::map<int, double> mb_gemm;
  std::map<wl::CollectiveOp, std::map<int, double>> coll_latency;  // CUs given -> time / default
  std::map<wl::CollectiveOp, std::map<int, double>> coll_bandwidth;
  std::int64_t latency_bytes = 0;
  std::int64_t bandwidth_bytes = 0;
};

class Heuristics {
public:
  // Builds the one-time tables on `sim` with the paper's representative kernels (mb1, cb1; 1 MiB
  // and 1 GiB collectives).
  explicit Heuristics(C3Simulator& sim);

  // "Measured" op-to-byte ratio (FLOPs / simulated isolated HBM bytes) against the machine's.
  [[nodiscard]] GemmClass classify(const wl::Gemm& gemm);
  [[nodiscard]] std::string schedule_order(const wl::Scenario& s) const;  // "sp" or "base"
  [[nodiscard]] int partition_cus(const wl::Scenario& s);                 // CUs for the collective
  [[nodiscard]] int dma_partition_cus(const wl::Scenario& s);  // CUs taken from the GEMM (0 = none)
  [[nodiscard]] const SlowdownTables& tables() const { return tables_; }
  // Roofline times at 70% efficiency (paper V-C), microseconds.
  [[nodiscard]] double roofline_gemm_us(const wl::Gemm& g) const;
  [[nodiscard]] double roofline_coll_us(const wl::Collective& c, int gpus) const;

private:
  C3Simulator& sim_;
  SlowdownTables tables_;
};

}  // namespace c3sim::models
