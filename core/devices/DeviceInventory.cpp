// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/devices/DeviceInventory.h"

#include <torch/torch.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#ifdef ENSEMBLELAB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif

namespace ensemble {
namespace {

std::string cpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "CPU";
}

}  // namespace

int cudaDeviceCount() { return torch::cuda::is_available() ? int(torch::cuda::device_count()) : 0; }

std::string whyNoCudaDevice() {
#ifdef ENSEMBLELAB_WITH_CUDA
  // LibTorch only says "0 devices"; the runtime says whether the driver or the device is
  // missing. Asked once: the answer does not change while the process runs.
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) return std::string("CUDA says: ") + cudaGetErrorString(status);
    return count == 0 ? std::string("CUDA found no device") : std::string();
  }();
  return reason;
#else
  return cudaDeviceCount() > 0 ? std::string()
                               : std::string("this build's LibTorch has no CUDA; docs/GPU.md says how to build with it");
#endif
}

std::string cudaDeviceBusId(int index) {
#ifdef ENSEMBLELAB_WITH_CUDA
  char busId[32] = {};
  if (cudaDeviceGetPCIBusId(busId, int(sizeof busId), index) == cudaSuccess) return busId;
#endif
  return "cuda:" + std::to_string(index);
}

bool cudaDeviceHasBf16(int index) {
#ifdef ENSEMBLELAB_WITH_CUDA
  return index >= 0 && index < cudaDeviceCount() && at::cuda::getDeviceProperties(index)->major >= 8;
#else
  (void)index;
  return false;
#endif
}

std::uint64_t cudaPeakAllocatedBytes() {
  std::uint64_t peak = 0;
#ifdef ENSEMBLELAB_WITH_CUDA
  for (int i = 0; i < cudaDeviceCount(); ++i) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(c10::DeviceIndex(i));
    peak = std::max(peak, std::uint64_t(stats.allocated_bytes[0].peak));  // [0]: every pool together
  }
#endif
  return peak;
}

void cudaFinishQueuedWork() {
  for (int i = 0; i < cudaDeviceCount(); ++i) torch::cuda::synchronize(i);
}

std::vector<DeviceInfo> listDevices() {
  std::vector<DeviceInfo> devices;
  DeviceInfo cpu;
  cpu.id = "cpu";
  cpu.name = cpuModelName();
  cpu.cores = int(std::thread::hardware_concurrency());
  cpu.memoryBytes = std::uint64_t(sysconf(_SC_PHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGE_SIZE));
  devices.push_back(cpu);
  const int gpus = cudaDeviceCount();
  for (int i = 0; i < gpus; ++i) {
    DeviceInfo gpu;
    gpu.id = "cuda:" + std::to_string(i);
#ifdef ENSEMBLELAB_WITH_CUDA
    const cudaDeviceProp* props = at::cuda::getDeviceProperties(i);
    gpu.name = props->name;
    gpu.memoryBytes = props->totalGlobalMem;
    gpu.computeMajor = props->major;
    gpu.computeMinor = props->minor;
#else
    gpu.name = "CUDA device";
#endif
    devices.push_back(gpu);
  }
  return devices;
}

}  // namespace ensemble
