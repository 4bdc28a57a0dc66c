#include "core/devices/DeviceInventory.h"

#include <torch/torch.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#ifdef ENSEMBLELAB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
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
#else
    gpu.name = "CUDA device";
#endif
    devices.push_back(gpu);
  }
  return devices;
}

}  // namespace ensemble
