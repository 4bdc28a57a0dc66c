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
  int computeMajor = 0, computeMinor = 0;  ///< CUDA compute capability (GPUs only), e.g. 9.0
};

/// Number of usable CUDA devices (0 on a CPU-only LibTorch).
int cudaDeviceCount();

/// Why this machine has no usable CUDA device: in a CUDA build, CUDA's own words
/// ("CUDA says: no CUDA-capable device is detected", "... CUDA driver version is
/// insufficient for CUDA runtime version"); in a CPU build, that LibTorch has no CUDA.
/// Empty when there is a device.
std::string whyNoCudaDevice();

/// Whether CUDA device `index` computes in bfloat16 natively (compute capability 8.0,
/// Ampere, and newer). False in a CPU build.
bool cudaDeviceHasBf16(int index);

/// The most GPU memory LibTorch's allocator held in tensors at once since the process
/// started, over every GPU (the peak of one device, the largest); 0 without CUDA. Ask it
/// only after the process has used a GPU.
std::uint64_t cudaPeakAllocatedBytes();

/// Waits until every GPU has run the work queued on it (nothing without CUDA), so that
/// what a program frees afterwards is no longer in use and any asynchronous CUDA error
/// surfaces here, as an exception, rather than at exit.
void cudaFinishQueuedWork();

/// Where CUDA device `index` sits on this host: its PCI bus id ("0000:1A:00.0"), the same
/// whatever CUDA_VISIBLE_DEVICES numbers it; "cuda:N" without CUDA.
std::string cudaDeviceBusId(int index);

/// The CPU first, then every CUDA device in ordinal order.
std::vector<DeviceInfo> listDevices();

}  // namespace ensemble
