// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/devices/DeviceSpec.h"

#include <cctype>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"

namespace ensemble {
namespace {

std::string trim(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

/// A non-negative decimal number, or -1 when `text` is not one (or is absurdly long).
int parseCount(const std::string& text) {
  if (text.empty() || text.size() > 6) return -1;
  int value = 0;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

/// What the machine has, for a message refusing a GPU: with none, why (CUDA's own words).
std::string available(int cudaCount, const std::string& whyNoCuda) {
  if (cudaCount == 0) {
    return "this machine has the cpu and no usable CUDA device" +
           (whyNoCuda.empty() ? std::string() : " (" + whyNoCuda + ")") + "; use cpu or cpu*N";
  }
  return "this machine has the cpu and " + std::to_string(cudaCount) +
         " CUDA device(s); " + mention::listDevices() + " lists them";
}

void appendItem(const std::string& item, int cudaCount, const std::string& whyNoCuda,
                std::vector<DeviceRef>& out) {
  const std::string usage =
      "; a device spec is cpu, cpu*N, cuda, cuda:I, cuda*N or all, joined by commas";
  if (item == "all") {
    // "all" asks for the GPUs; training on the CPU instead would be a silent surprise.
    if (cudaCount == 0) throw DeviceError("device 'all' means every GPU, and " + available(0, whyNoCuda));
    for (int i = 0; i < cudaCount; ++i) out.push_back({DeviceRef::Kind::Cuda, i});
    return;
  }
  const std::size_t star = item.find('*');
  const std::string kind = trim(item.substr(0, std::min(item.find(':'), star)));
  if (kind != "cpu" && kind != "cuda") {
    throw ConfigError("unknown device '" + item + "'" + usage);
  }
  int replicas = 1;
  if (star != std::string::npos) {
    replicas = parseCount(trim(item.substr(star + 1)));
    if (replicas < 1) throw ConfigError("bad replica count in device '" + item + "'" + usage);
  }
  if (kind == "cpu") {
    if (item.find(':') != std::string::npos) {
      throw ConfigError("device '" + item + "' takes no index; use cpu*N for N CPU replicas");
    }
    if (replicas > kMaxCpuReplicas) {
      throw ConfigError("device '" + item + "' asks for " + std::to_string(replicas) +
                        " CPU replicas; at most " + std::to_string(kMaxCpuReplicas) +
                        " are allowed");
    }
    out.insert(out.end(), std::size_t(replicas), DeviceRef{DeviceRef::Kind::Cpu, -1});
    return;
  }
  const std::size_t colon = item.find(':');
  if (star != std::string::npos && colon != std::string::npos && colon < star) {
    // cuda:I*N: N replicas on GPU I (several ensemble members sharing one GPU)
    const int shared = parseCount(trim(item.substr(colon + 1, star - colon - 1)));
    if (shared < 0) throw ConfigError("bad device index in '" + item + "'" + usage);
    if (shared >= cudaCount) {
      throw DeviceError("device cuda:" + std::to_string(shared) + " does not exist; " + available(cudaCount, whyNoCuda));
    }
    out.insert(out.end(), std::size_t(replicas), DeviceRef{DeviceRef::Kind::Cuda, shared});
    return;
  }
  if (star != std::string::npos) {  // cuda*N: the first N GPUs
    if (replicas > cudaCount) {
      throw DeviceError("device '" + item + "' asks for " + std::to_string(replicas) +
                        " GPUs; " + available(cudaCount, whyNoCuda));
    }
    for (int i = 0; i < replicas; ++i) out.push_back({DeviceRef::Kind::Cuda, i});
    return;
  }
  int index = 0;
  if (colon != std::string::npos) {
    index = parseCount(trim(item.substr(colon + 1)));
    if (index < 0) throw ConfigError("bad device index in '" + item + "'" + usage);
  }
  if (index >= cudaCount) {
    throw DeviceError("device cuda:" + std::to_string(index) + " does not exist; " +
                      available(cudaCount, whyNoCuda));
  }
  out.push_back({DeviceRef::Kind::Cuda, index});
}

}  // namespace

std::string DeviceRef::str() const {
  return kind == Kind::Cpu ? "cpu" : "cuda:" + std::to_string(index);
}

std::vector<DeviceRef> parseDeviceSpec(const std::string& spec, int cudaCount, const std::string& whyNoCuda) {
  std::vector<DeviceRef> devices;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = trim(spec.substr(start, comma - start));
    if (item.empty()) {
      throw ConfigError("empty item in device spec '" + spec +
                        "'; a device spec is cpu, cpu*N, cuda, cuda:I, cuda:I*N, cuda*N or all");
    }
    appendItem(item, cudaCount, whyNoCuda, devices);
    if (devices.size() > std::size_t(kMaxCpuReplicas)) {
      throw ConfigError("device spec '" + spec + "' names more than " +
                        std::to_string(kMaxCpuReplicas) + " replicas");
    }
    start = comma + 1;
  }
  return devices;
}

std::string formatDevices(const std::vector<DeviceRef>& devices) {
  bool allCpu = !devices.empty();
  for (const auto& d : devices) allCpu = allCpu && !d.isCuda();
  if (allCpu) return devices.size() == 1 ? "cpu" : "cpu*" + std::to_string(devices.size());
  // Runs of one GPU read as cuda:I*N, the form the parser takes back.
  std::string text;
  for (std::size_t i = 0; i < devices.size();) {
    std::size_t run = 1;
    while (i + run < devices.size() && devices[i + run] == devices[i]) ++run;
    if (!text.empty()) text.push_back(',');
    text.append(devices[i].str());
    if (run > 1) text.append("*").append(std::to_string(run));
    i += run;
  }
  return text;
}

bool namesCudaDevice(const std::string& devices) { return devices.find("cuda") != std::string::npos; }

}  // namespace ensemble
