#include "hardware/hip/vendor_collective.h"

#include <string>

#include "hardware/hip/check.h"

namespace c3sim::bench {

bool vendor_zero_cta_compiled() { return C3BENCH_HAVE_ZERO_CTA != 0; }

VendorCollectives::~VendorCollectives() {
  for (auto& [key, set] : sets_) {
    for (std::size_t r = 0; r < set->comms.size(); ++r) {
      (void)hipSetDevice(static_cast<int>(r));
#if C3BENCH_HAVE_ZERO_CTA
      if (!set->windows.empty()) {
        (void)ncclCommWindowDeregister(set->comms[r], set->windows[2 * r]);
        (void)ncclCommWindowDeregister(set->comms[r], set->windows[2 * r + 1]);
      }
#endif
      (void)ncclCommDestroy(set->comms[r]);
    }
  }
}

VendorCollectives::CommSet& VendorCollectives::comms(int key, int channel) {
  if (auto it = sets_.find({channel, key}); it != sets_.end()) return *it->second;
  auto set = std::make_unique<CommSet>();
  set->comms.resize(static_cast<std::size_t>(gpus_));
  ncclUniqueId id;
  C3_NCCL(ncclGetUniqueId(&id));
#if C3BENCH_HAVE_COMM_CTA_LIMITS
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  if (key == kZeroCtaKey) {
#if C3BENCH_HAVE_ZERO_CTA
    config.CTAPolicy = NCCL_CTA_POLICY_ZERO;
#else
    throw DeviceError("c3bench: this NCCL/RCCL has no zero-CTA policy (needs the NCCL 2.28 API)");
#endif
  } else if (key > 0) {
    config.maxCTAs = key;
    config.minCTAs = 1;  // a cap below the default minimum must stay valid
  }
  C3_NCCL(ncclGroupStart());
  for (int r = 0; r < gpus_; ++r) {
    C3_HIP(hipSetDevice(r));
    C3_NCCL(ncclCommInitRankConfig(&set->comms[static_cast<std::size_t>(r)], gpus_, id, r, &config));
  }
  C3_NCCL(ncclGroupEnd());
#else
  // No ncclConfig_t: the library's defaults only. (NCCL_MAX_NCHANNELS would cap every communicator
  // of the process alike, read once, so it cannot give each set its own cap.)
  if (key != 0) {
    throw DeviceError(std::string("c3bench: ") +
                      (key == kZeroCtaKey ? "the zero-CTA policy" : "a collective CTA/channel cap") +
                      " needs ncclConfig_t (NCCL/RCCL >= 2.17; RCCL of ROCm >= 6.0); this library is " +
                      std::to_string(NCCL_VERSION_CODE));
  }
  C3_NCCL(ncclGroupStart());
  for (int r = 0; r < gpus_; ++r) {
    C3_HIP(hipSetDevice(r));
    C3_NCCL(ncclCommInitRank(&set->comms[static_cast<std::size_t>(r)], gpus_, id, r));
  }
  C3_NCCL(ncclGroupEnd());
#endif
  return *sets_.emplace(std::make_pair(channel, key), std::move(set)).first->second;
}

void VendorCollectives::register_windows(CommSet& set, CollBuffers& buffers) {
  if (set.registered_generation == buffers.generation()) return;
#if !C3BENCH_HAVE_ZERO_CTA
  throw DeviceError("c3bench: symmetric window registration needs the NCCL 2.27 window API");
#else
  if (!set.windows.empty()) {
    C3_NCCL(ncclGroupStart());
    for (int r = 0; r < gpus_; ++r) {
      C3_HIP(hipSetDevice(r));
      C3_NCCL(ncclCommWindowDeregister(set.comms[r], set.windows[2 * r]));
      C3_NCCL(ncclCommWindowDeregister(set.comms[r], set.windows[2 * r + 1]));
    }
    C3_NCCL(ncclGroupEnd());
  }
  set.windows.assign(2 * static_cast<std::size_t>(gpus_), nullptr);
  C3_NCCL(ncclGroupStart());
  for (int r = 0; r < gpus_; ++r) {
    C3_HIP(hipSetDevice(r));
    C3_NCCL(ncclCommWindowRegister(set.comms[r], buffers.send(r), buffers.send_capacity(),
                                   &set.windows[2 * r], NCCL_WIN_COLL_SYMMETRIC));
    C3_NCCL(ncclCommWindowRegister(set.comms[r], buffers.recv(r), buffers.recv_capacity(),
                                   &set.windows[2 * r + 1], NCCL_WIN_COLL_SYMMETRIC));
  }
  C3_NCCL(ncclGroupEnd());
  set.registered_generation = buffers.generation();
#endif
}

void VendorCollectives::launch(const CollShape& shape, const CollBuffers& buffers,
                               const std::vector<StreamRef>& streams, CommSet& set) {
  // bf16 elements, like the weights the paper's all-gathers move.
  const std::size_t block_elems = shape.block_bytes() / 2;
  C3_NCCL(ncclGroupStart());
  for (const StreamRef& s : streams) {
    C3_HIP(hipSetDevice(s.gpu));
    ncclComm_t comm = set.comms.at(static_cast<std::size_t>(s.gpu));
    switch (shape.op) {
      case wl::CollectiveOp::all_gather:
        C3_NCCL(ncclAllGather(buffers.send(s.gpu), buffers.recv(s.gpu), block_elems, ncclBfloat16, comm,
                              s.stream));
        break;
      case wl::CollectiveOp::all_to_all:
        C3_NCCL(ncclAllToAll(buffers.send(s.gpu), buffers.recv(s.gpu), block_elems, ncclBfloat16, comm,
                             s.stream));
        break;
      case wl::CollectiveOp::reduce_scatter:  // bytes = per-GPU output: one reduced block
        C3_NCCL(ncclReduceScatter(buffers.send(s.gpu), buffers.recv(s.gpu), shape.bytes / 2, ncclBfloat16,
                                  ncclSum, comm, s.stream));
        break;
      case wl::CollectiveOp::all_reduce:
        C3_NCCL(ncclAllReduce(buffers.send(s.gpu), buffers.recv(s.gpu), shape.bytes / 2, ncclBfloat16,
                              ncclSum, comm, s.stream));
        break;
    }
  }
  C3_NCCL(ncclGroupEnd());
}

void VendorCollectives::enqueue(const CollShape& shape, const CollBuffers& buffers,
                                const std::vector<StreamRef>& streams, int max_ctas) {
  launch(shape, buffers, streams, comms(max_ctas));
}

void VendorCollectives::enqueue_on(int channel, const CollShape& shape, const CollBuffers& buffers,
                                   const std::vector<StreamRef>& streams, int max_ctas) {
  launch(shape, buffers, streams, comms(max_ctas, channel));
}

void VendorCollectives::enqueue_zero_cta(const CollShape& shape, CollBuffers& symmetric,
                                         const std::vector<StreamRef>& streams, int channel) {
  CommSet& set = comms(kZeroCtaKey, channel);
  register_windows(set, symmetric);
  launch(shape, symmetric, streams, set);
}

}  // namespace c3sim::bench
