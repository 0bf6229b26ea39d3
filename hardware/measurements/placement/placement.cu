// Where a persistent NCCL-like kernel's CTAs land, and what that costs it, by launch order: alone,
// launched first with a GEMM 4 us behind it, launched behind a running GEMM, and inside a green
// context. On 2 x H200 NCCL launched 4 us after a 29-185 us GEMM runs 11-13% longer for its whole
// run, launched first 0.5-3% (docs/known-limits.md): a placement that persists for the kernel's life
// is the candidate. One GPU, so the kernel streams HBM (not NVLink); the placement is the point.
//
// The stream kernel has NCCL's CTA shape (640 threads) and claims most of an SM's shared memory,
// so one CTA per SM and none beside a cuBLAS CTA (NCCL's own CTAs do not share an SM either). Each
// CTA copies its own slice and records its SM (%smid), start and end.
//
// The GPC map: SMs that run CTAs of one thread-block cluster sit in one GPC, so clusters of 8 and
// 16 one-CTA-per-SM blocks launched over the whole GPU, several times, join SMs into GPC groups
// (union-find); printed as {"kind":"gpc_map",...} with the group of every SM.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 placement.cu -lcublasLt -lcuda -o placement  (../cuda_tool.cuh)
//   ./placement --ctas 32 --bytes 4GiB --reps 8 > out.jsonl
//
// One JSON line per repetition and mode: mode, gemm shape (if any), the stream kernel's span (us,
// first CTA start to last CTA end), its SMs, and per-GPC CTA counts.
#include <cuda.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "../cuda_tool.cuh"

namespace {

constexpr int kThreads = 640;      // NCCL's CTA width on Hopper
constexpr int kSmem = 160 * 1024;  // one CTA per SM, and none beside a cuBLAS CTA
constexpr int kMaxSms = 256;

struct CtaRecord {
  unsigned int smid;
  unsigned long long start, end;
};

// Copies its slice src -> dst with 16-byte accesses; records where and when it ran.
__global__ void stream_kernel(const uint4* src, uint4* dst, size_t per_cta, CtaRecord* rec) {
  extern __shared__ unsigned char smem[];
  const unsigned long long t0 = gtimer();
  const size_t base = static_cast<size_t>(blockIdx.x) * per_cta;
  for (size_t i = threadIdx.x; i < per_cta; i += blockDim.x) dst[base + i] = src[base + i];
  __syncthreads();
  if (threadIdx.x == 0) {
    smem[0] = 1;
    rec[blockIdx.x] = {smid(), t0, gtimer()};
  }
}

// One CTA per SM (shared memory), cluster-launched: records its SM and its cluster.
__global__ void cluster_probe_kernel(unsigned int* sm_of_block) {
  extern __shared__ unsigned char smem[];
  if (threadIdx.x == 0) {
    smem[0] = 1;
    sm_of_block[blockIdx.x] = smid();
  }
  const unsigned long long t0 = gtimer();
  while (gtimer() - t0 < 20000) {}  // 20 us: every block of the wave is resident together
}

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(int n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) { return p[x] == x ? x : p[x] = find(p[x]); }
  void join(int a, int b) { p[find(a)] = find(b); }
};

// GPC group of every SM id, from cluster launches (clusters never span GPCs).
std::vector<int> gpc_map(int sms) {
  UnionFind uf(kMaxSms);
  unsigned int* d_sm = nullptr;
  CK(cudaMalloc(&d_sm, sizeof(unsigned int) * kMaxSms));
  CK(cudaFuncSetAttribute(cluster_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  CK(cudaFuncSetAttribute(cluster_probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (int cluster : {16, 8, 16, 8, 4}) {
    for (int rep = 0; rep < 4; ++rep) {
      cudaLaunchConfig_t cfg = {};
      int max_clusters = 0;
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = cluster;
      attr[0].val.clusterDim.y = 1;
      attr[0].val.clusterDim.z = 1;
      cfg.blockDim = dim3(kThreads);
      cfg.dynamicSmemBytes = kSmem;
      cfg.attrs = attr;
      cfg.numAttrs = 1;
      cfg.gridDim = dim3(cluster);
      if (cudaOccupancyMaxActiveClusters(&max_clusters, cluster_probe_kernel, &cfg) != cudaSuccess ||
          max_clusters < 1) {
        (void)cudaGetLastError();
        continue;
      }
      cfg.gridDim = dim3(cluster * max_clusters);  // one wave
      CK(cudaMemset(d_sm, 0xff, sizeof(unsigned int) * kMaxSms));
      CK(cudaLaunchKernelEx(&cfg, cluster_probe_kernel, d_sm));
      CK(cudaDeviceSynchronize());
      std::vector<unsigned int> sm(cluster * max_clusters);
      CK(cudaMemcpy(sm.data(), d_sm, sizeof(unsigned int) * sm.size(), cudaMemcpyDeviceToHost));
      for (size_t b = 0; b < sm.size(); ++b) {
        const size_t first = b - b % cluster;
        if (sm[b] < kMaxSms && sm[first] < kMaxSms)
          uf.join(static_cast<int>(sm[b]), static_cast<int>(sm[first]));
      }
    }
  }
  CK(cudaFree(d_sm));
  std::map<int, int> label;
  std::vector<int> out(sms);
  for (int s = 0; s < sms; ++s) {
    const int root = uf.find(s);
    if (!label.count(root)) label[root] = static_cast<int>(label.size());
    out[s] = label[root];
  }
  return out;
}

struct Options {
  int ctas = 32;
  size_t bytes = 4ull << 30;
  int reps = 8;
  std::vector<std::array<long, 3>> gemms{std::array<long, 3>{2048, 2048, 2048},
                                         std::array<long, 3>{8192, 8192, 8192}};
  int green_sms = 32;
};

size_t parse_bytes(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  const std::string unit = end;
  const double scale = unit == "GiB" ? 1073741824.0 : unit == "MiB" ? 1048576.0 : 1.0;
  return static_cast<size_t>(v * scale);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "placement: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--ctas")
      o.ctas = std::atoi(next().c_str());
    else if (a == "--bytes")
      o.bytes = parse_bytes(next());
    else if (a == "--reps")
      o.reps = std::atoi(next().c_str());
    else if (a == "--green")
      o.green_sms = std::atoi(next().c_str());
    else {
      std::fprintf(stderr, "placement: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  if (o.ctas < 1 || o.ctas > kMaxSms || o.reps < 1 || o.bytes < (1u << 20)) {
    std::fprintf(stderr, "placement: bad --ctas / --reps / --bytes\n");
    std::exit(2);
  }
  return o;
}

#define CU(x)                                                                           \
  do {                                                                                  \
    CUresult r_ = (x);                                                                  \
    if (r_ != CUDA_SUCCESS) {                                                           \
      std::fprintf(stderr, "%s:%d %s: CUresult %d\n", __FILE__, __LINE__, #x, (int)r_); \
      std::exit(3);                                                                     \
    }                                                                                   \
  } while (0)

// A stream on a green context of `sms` SMs (the driver picks which, as c3bench's rp:<n> does).
cudaStream_t green_stream(int sms, int* got) {
  CUdevice dev = 0;
  CU(cuDeviceGet(&dev, 0));
  CUdevResource all{}, group{}, rest{};
  CU(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  unsigned int groups = 1;
  CU(cuDevSmResourceSplitByCount(&group, &groups, &all, &rest, 0, static_cast<unsigned>(sms)));
  CUdevResourceDesc desc = nullptr;
  CU(cuDevResourceGenerateDesc(&desc, &group, 1));
  CUgreenCtx ctx = nullptr;
  CU(cuGreenCtxCreate(&ctx, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
  CUstream s = nullptr;
  CU(cuGreenCtxStreamCreate(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
  *got = static_cast<int>(group.sm.smCount);
  return reinterpret_cast<cudaStream_t>(s);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  CK(cudaSetDevice(0));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::vector<int> gpc = gpc_map(sms);
  {
    std::string line = "{\"kind\":\"gpc_map\",\"sms\":" + std::to_string(sms) + ",\"gpc_of_sm\":[";
    for (int s = 0; s < sms; ++s) line += (s ? "," : "") + std::to_string(gpc[s]);
    std::printf("%s]}\n", line.c_str());
  }
  const size_t per_cta = o.bytes / 16 / o.ctas;
  uint4 *src = nullptr, *dst = nullptr;
  CK(cudaMalloc(&src, per_cta * o.ctas * 16));
  CK(cudaMalloc(&dst, per_cta * o.ctas * 16));
  CK(cudaMemset(src, 1, per_cta * o.ctas * 16));
  CtaRecord* d_rec = nullptr;
  CK(cudaMalloc(&d_rec, sizeof(CtaRecord) * o.ctas));
  CK(cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  std::vector<std::unique_ptr<LtGemm>> gemms;  // LtGemm owns device buffers and a handle: not copied
  for (const auto& g : o.gemms) gemms.push_back(std::make_unique<LtGemm>(g[0], g[1], g[2], 0, true));
  cudaStream_t ks, gs;
  CK(cudaStreamCreateWithFlags(&ks, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&gs, cudaStreamNonBlocking));
  int green_got = 0;
  cudaStream_t green = green_stream(o.green_sms, &green_got);

  auto launch = [&](cudaStream_t s) {
    stream_kernel<<<o.ctas, kThreads, kSmem, s>>>(src, dst, per_cta, d_rec);
    CK(cudaGetLastError());
  };
  auto report = [&](const std::string& mode, const std::string& gemm, int rep) {
    std::vector<CtaRecord> rec(o.ctas);
    CK(cudaMemcpy(rec.data(), d_rec, sizeof(CtaRecord) * o.ctas, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull, t1 = 0, last_start = 0;
    std::map<int, int> per_gpc;
    std::vector<unsigned int> ids;
    for (const auto& r : rec) {
      t0 = std::min(t0, r.start);
      t1 = std::max(t1, r.end);
      last_start = std::max(last_start, r.start);
      per_gpc[r.smid < static_cast<unsigned>(sms) ? gpc[r.smid] : -1]++;
      ids.push_back(r.smid);
    }
    std::sort(ids.begin(), ids.end());
    const int distinct = static_cast<int>(std::unique(ids.begin(), ids.end()) - ids.begin());
    std::string g = "{";
    for (const auto& [k, v] : per_gpc)
      g += (g.size() > 1 ? "," : "") + ("\"" + std::to_string(k) + "\":" + std::to_string(v));
    g += "}";
    std::string smids = "[";
    for (const auto& r : rec) smids += (smids.size() > 1 ? "," : "") + std::to_string(r.smid);
    smids += "]";
    double slowest = 0;
    for (const auto& r : rec) slowest = std::max(slowest, (r.end - r.start) / 1e3);
    std::printf(
        "{\"kind\":\"placement\",\"mode\":\"%s\",\"gemm\":\"%s\",\"rep\":%d,\"ctas\":%d,\"bytes\":%zu,"
        "\"span_us\":%.2f,\"start_spread_us\":%.2f,\"slowest_cta_us\":%.2f,\"distinct_sms\":%d,"
        "\"gpcs_used\":%zu,\"ctas_per_gpc\":%s,\"smid\":%s,\"green_sms\":%d}\n",
        mode.c_str(), gemm.c_str(), rep, o.ctas, per_cta * o.ctas * 16, (t1 - t0) / 1e3,
        (last_start - t0) / 1e3, slowest, distinct, per_gpc.size(), g.c_str(), smids.c_str(), green_got);
    std::fflush(stdout);
  };
  auto idle = [&]() {
    CK(cudaDeviceSynchronize());
    spin_kernel<<<sms, 32>>>(2000000);  // 2 ms on every SM: the clock state c3bench conditions to
    CK(cudaDeviceSynchronize());
  };
  // Warm-up.
  launch(ks);
  for (const auto& g : gemms) g->run(gs);
  CK(cudaDeviceSynchronize());
  for (int rep = 0; rep < o.reps; ++rep) {
    idle();
    launch(ks);
    CK(cudaStreamSynchronize(ks));
    report("alone", "", rep);
    idle();
    launch(green);
    CK(cudaStreamSynchronize(green));
    report("green", "", rep);
    for (size_t gi = 0; gi < gemms.size(); ++gi) {
      const auto& g = o.gemms[gi];
      const std::string shape =
          std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
      idle();
      launch(ks);  // kernel first, the GEMM right behind it (sp's order)
      gemms[gi]->run(gs);
      CK(cudaDeviceSynchronize());
      report("first", shape, rep);
      idle();
      gemms[gi]->run(gs);  // the GEMM first, the kernel right behind it (base's order)
      launch(ks);
      CK(cudaDeviceSynchronize());
      report("after", shape, rep);
    }
  }
  return 0;
}
