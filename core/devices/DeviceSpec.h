// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Device specs as users type them: "cpu", "cpu*4" (four replicas on the host),
// "cuda:0,cuda:1", "cuda*2" (the first two GPUs), "cuda:0*8" (eight replicas on GPU 0),
// "cuda" (cuda:0) or "all" (every GPU, or the CPU when there is none). Items combine with
// commas. Torch-free.
#include <string>
#include <vector>

namespace ensemble {

/// One replica's device.
struct DeviceRef {
  enum class Kind { Cpu, Cuda };
  Kind kind = Kind::Cpu;
  int index = -1;  ///< CUDA ordinal; -1 for the CPU

  bool isCuda() const { return kind == Kind::Cuda; }
  /// "cpu" or "cuda:N", the form torch::Device parses.
  std::string str() const;
  bool operator==(const DeviceRef& other) const {
    return kind == other.kind && index == other.index;
  }
};

/// The most CPU replicas one spec may ask for.
constexpr int kMaxCpuReplicas = 64;

/// The replica devices `spec` names, given `cudaCount` CUDA devices on this machine.
/// Throws ConfigError for a malformed spec and DeviceError for a device that does not
/// exist (also "all" where there is no GPU); the message names the device and says what
/// the machine has, with `whyNoCuda` (whyNoCudaDevice()) where it has no GPU.
std::vector<DeviceRef> parseDeviceSpec(const std::string& spec, int cudaCount, const std::string& whyNoCuda = {});

/// Whether `devices` (a canonical list as formatDevices writes it, e.g. a run's config.json
/// "devices") names a CUDA device.
bool namesCudaDevice(const std::string& devices);

/// The canonical text of a device list, e.g. "cpu*4", "cuda:0,cuda:1" or "cuda:0*8".
std::string formatDevices(const std::vector<DeviceRef>& devices);

}  // namespace ensemble
