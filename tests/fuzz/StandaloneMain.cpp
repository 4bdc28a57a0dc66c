// SPDX-License-Identifier: GPL-3.0-or-later
// Replays a harness's corpus without libFuzzer, so the regular test suite (any compiler)
// checks every checked-in input — seeds and past findings — against the same contract.
// Besides the harness's own checks, an input that makes the process grow past 1 GiB fails
// (the inputs are a few KB: that is a size claim trusted somewhere).
// Usage: <harness>-corpus DIR...
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int inputs = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      std::ifstream file(entry.path(), std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      std::printf("%s\n", entry.path().filename().c_str());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      if (usage.ru_maxrss > 1024 * 1024) {  // KiB
        std::printf("%s made the process grow to %ld MiB\n", entry.path().c_str(), usage.ru_maxrss / 1024);
        return 1;
      }
      ++inputs;
    }
  }
  std::printf("%d inputs kept the contract\n", inputs);
  return inputs > 0 ? 0 : 1;
}
