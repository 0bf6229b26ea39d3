// Where the CTAs of a kernel land, and how fast they copy, when the kernel is launched on an idle
// GPU against when it waits behind a kernel that holds every SM (or most of them). The probe is a
// copy kernel shaped like an NCCL channel set (C CTAs of 640 threads, one per SM, with shared memory
// that keeps it off the blocker's SMs, as NCCL's registers do): each CTA records
// its SM (%smid) and copies its share of B bytes, either within the GPU or into a peer GPU's memory
// over NVLink. Prints one JSON line per case: the SMs, the copy's time (CUDA events around the probe
// alone, or from the blocker's end) and its rate.
//   nvcc -O3 -std=c++17 -arch=sm_90 -o cta_placement cta_placement.cu -lcublasLt
//   ./cta_placement [CTAS] [MiB] [PROBE_SMEM_KIB]
// PROBE_SMEM_KIB (default 32) sets the probe's shared memory: 32 lets up to three probe CTAs share
// an SM, 120 allows one per SM (as NCCL's registers do: 640 threads x up to 96 registers).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../cuda_tool.cuh"

// Shared memory (PROBE_SMEM_KIB) keeps it off an SM the blocker holds, as an NCCL CTA's registers do.
__global__ void __launch_bounds__(640, 1) probe(const int4* src, int4* dst, size_t n_per_cta, unsigned* sms) {
  if (threadIdx.x == 0) sms[blockIdx.x] = smid();
  const int4* s = src + blockIdx.x * n_per_cta;
  int4* d = dst + blockIdx.x * n_per_cta;
  for (size_t i = threadIdx.x; i < n_per_cta; i += blockDim.x) d[i] = s[i];
}

int main(int argc, char** argv) {
  const int ctas = argc > 1 ? std::atoi(argv[1]) : 24;
  const size_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1024;
  const int probe_smem = (argc > 3 ? std::atoi(argv[3]) : 32) << 10;
  int ngpu = 0;
  CK(cudaGetDeviceCount(&ngpu));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int nsm = prop.multiProcessorCount;
  CK(cudaSetDevice(0));
  const bool peer = ngpu > 1;
  if (peer) CK(cudaDeviceEnablePeerAccess(1, 0));
  const size_t bytes = mib << 20;
  const size_t n = bytes / sizeof(int4);
  int4 *src, *local_dst, *peer_dst = nullptr;
  CK(cudaMalloc(&src, bytes));
  CK(cudaMalloc(&local_dst, bytes));
  CK(cudaMemset(src, 1, bytes));
  if (peer) {
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&peer_dst, bytes));
    CK(cudaSetDevice(0));
  }
  unsigned* sms;
  CK(cudaMallocManaged(&sms, sizeof(unsigned) * ctas));
  const int hold_smem = static_cast<int>(prop.sharedMemPerBlockOptin) - 1024;
  // The blocker: spin_kernel, one block per SM (1024 threads and most of the shared memory).
  CK(cudaFuncSetAttribute(spin_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, hold_smem));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, probe_smem));
  cudaStream_t a, b;
  CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, hold_end;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventCreate(&hold_end));
  const unsigned long long hold_ns = 1000000;  // 1 ms
  struct Case {
    const char* name;
    int hold_blocks;  // 0: none
    bool same_stream;
  };
  const Case cases[] = {{"alone", 0, false},
                        {"after_hold_all_same_stream", nsm, true},
                        {"beside_hold_all", nsm, false},
                        {"beside_hold_most", nsm - ctas - 8, false},
                        {"alone_again", 0, false}};
  for (int target = 0; target < (peer ? 2 : 1); ++target) {
    int4* dst = target == 0 ? local_dst : peer_dst;
    for (const Case& c : cases) {
      std::vector<float> times;
      std::vector<unsigned> placed;
      for (int trial = 0; trial < 6; ++trial) {
        CK(cudaDeviceSynchronize());
        cudaStream_t ps = c.same_stream ? a : b;
        if (c.hold_blocks > 0) {
          spin_kernel<<<c.hold_blocks, 1024, hold_smem, a>>>(hold_ns);
          CK(cudaEventRecord(hold_end, a));
        }
        // Timed from its own launch (alone, after the blocker on one stream, or starting at once on
        // the SMs the blocker leaves free), or from the blocker's end when it waits behind it.
        CK(cudaEventRecord(e0, ps));
        probe<<<ctas, 640, probe_smem, ps>>>(src, dst, n / ctas, sms);
        CK(cudaEventRecord(e1, ps));
        CK(cudaDeviceSynchronize());
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, (c.hold_blocks == nsm && !c.same_stream) ? hold_end : e0, e1));
        if (trial > 0) times.push_back(ms);
        placed.assign(sms, sms + ctas);
      }
      std::sort(times.begin(), times.end());
      std::sort(placed.begin(), placed.end());
      const float med = times[times.size() / 2];
      std::printf(
          "{\"case\":\"%s\",\"target\":\"%s\",\"ctas\":%d,\"bytes\":%zu,\"hold_blocks\":%d,\"probe_smem_"
          "kib\":%d,"
          "\"time_ms\":%.4f,\"gbps\":%.1f,\"sms\":[",
          c.name, target == 0 ? "local" : "peer", ctas, bytes, c.hold_blocks, probe_smem >> 10, med,
          bytes / (med * 1e-3) / 1e9);
      for (int i = 0; i < ctas; ++i) std::printf("%s%u", i ? "," : "", placed[i]);
      std::printf("]}\n");
    }
  }
  return 0;
}
