#pragma once
// The vendor library's collectives (NCCL on NVIDIA, RCCL on AMD), one communicator per GPU in
// this process. Communicator sets are created on first use per configuration:
//   kernel collectives with the library's default CTA/channel count, or capped at max_ctas
//   (ncclConfig_t.maxCTAs; the cap is how an SM/CU partition's collective is kept inside it);
//   the zero-CTA policy (CTAPolicy = NCCL_CTA_POLICY_ZERO): copy-engine all-gather/all-to-all on
//   symmetrically registered windows, where the library version has it (NCCL >= 2.28).
// Older libraries (C3BENCH_HAVE_* in gpu_runtime.h): without ncclConfig_t's CTA caps a capped set
// throws DeviceError; without the zero-CTA policy the zero-CTA set does.
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "hardware/hip/coll_buffers.h"
#include "hardware/hip/device_set.h"

namespace c3sim::bench {

// Whether this build's library has the zero-CTA policy at all (runtime conditions aside).
bool vendor_zero_cta_compiled();

class VendorCollectives {
public:
  explicit VendorCollectives(int gpus) : gpus_(gpus) {}
  ~VendorCollectives();
  VendorCollectives(const VendorCollectives&) = delete;
  VendorCollectives& operator=(const VendorCollectives&) = delete;

  // Kernel collective; max_ctas 0 = library default.
  void enqueue(const CollShape& shape, const CollBuffers& buffers, const std::vector<StreamRef>& streams,
               int max_ctas);
  // Kernel collective on the communicator set of `channel` (a program's collective stream: NCCL
  // wants one communicator per stream that carries collectives at once); channel 0 is the set
  // enqueue() uses.
  void enqueue_on(int channel, const CollShape& shape, const CollBuffers& buffers,
                  const std::vector<StreamRef>& streams, int max_ctas);
  // Zero-CTA collective on symmetric buffers (registers them on first use / after growth), on the
  // zero-CTA communicator set of `channel` (as enqueue_on; 0 = pair mode's). The registration is
  // per set and follows one CollBuffers: callers keep one symmetric buffer set per channel.
  void enqueue_zero_cta(const CollShape& shape, CollBuffers& symmetric, const std::vector<StreamRef>& streams,
                        int channel = 0);

private:
  struct CommSet {
    std::vector<ncclComm_t> comms;
#if C3BENCH_HAVE_ZERO_CTA
    std::vector<ncclWindow_t> windows;  // zero-CTA: send and recv of each rank
#endif
    int registered_generation = -1;
  };
  CommSet& comms(int key, int channel = 0);  // key: max_ctas, or kZeroCtaKey
  void register_windows(CommSet& set, CollBuffers& buffers);
  void launch(const CollShape& shape, const CollBuffers& buffers, const std::vector<StreamRef>& streams,
              CommSet& set);

  static constexpr int kZeroCtaKey = -1;
  int gpus_ = 0;
  std::map<std::pair<int, int>, std::unique_ptr<CommSet>> sets_;  // (channel, key)
};

}  // namespace c3sim::bench
