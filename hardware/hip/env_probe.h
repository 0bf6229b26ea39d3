#pragma once
// The env record of a c3bench file: GPU model and count, SMs/CUs, clocks, copy engines, driver,
// runtime, BLAS and NCCL/RCCL versions, and the peer topology (access and performance rank of
// every pair, PCI bus ids).
#include "hardware/hip/device_set.h"
#include "workloads/measurement.h"

namespace c3sim::bench {

wl::EnvRecord probe_environment(DeviceSet& devices);

}  // namespace c3sim::bench
