// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What devices this machine has. Torch-free header; the CUDA queries live in the .cpp.
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

struct DeviceInfo {
  std::string id;    ///< "cpu" or "cuda:N"
  std::string name;  ///< CPU model or GPU product name
  std::uint64_t memoryBytes = 0;
  int cores = 0;  ///< logical CPU cores (CPU only)
};

/// Number of usable CUDA devices (0 on a CPU-only LibTorch).
int cudaDeviceCount();

/// Why this machine has no usable CUDA device: in a CUDA build, CUDA's own words
/// ("CUDA says: no CUDA-capable device is detected", "... CUDA driver version is
/// insufficient for CUDA runtime version"); in a CPU build, that LibTorch has no CUDA.
/// Empty when there is a device.
std::string whyNoCudaDevice();

/// The CPU first, then every CUDA device in ordinal order.
std::vector<DeviceInfo> listDevices();

}  // namespace ensemble
