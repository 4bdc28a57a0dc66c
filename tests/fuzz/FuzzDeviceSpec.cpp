// SPDX-License-Identifier: GPL-3.0-or-later
// Device specs ("cpu*4", "cuda:0,cuda:1", "all", ...) as typed by a user, against zero and
// two GPUs. A parsed list is non-empty and its canonical text parses back to itself.
#include <string>

#include "core/devices/DeviceSpec.h"
#include "tests/fuzz/FuzzContract.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  for (const int cudaCount : {0, 2}) {
    fuzzing::expectParsedOrRejected([&] {
      const auto devices = ensemble::parseDeviceSpec(spec, cudaCount);
      fuzzing::require(!devices.empty(), "a device spec parsed into no device");
      const std::string canonical = ensemble::formatDevices(devices);
      fuzzing::require(ensemble::formatDevices(ensemble::parseDeviceSpec(canonical, cudaCount)) == canonical,
                       "canonical device text does not parse back to itself");
    });
  }
  return 0;
}
