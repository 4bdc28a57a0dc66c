// SPDX-License-Identifier: GPL-3.0-or-later
// Checkpoint reading, as `resume` and `eval` do it. The first byte picks what the rest of
// the input replaces in an otherwise whole checkpoint written by writeCheckpoint():
//   0: manifest.json;  1: member-0.pt, with a manifest whose size and CRC match it (so the
//   bytes reach the unpickler);  2: the checkpoints/latest pointer.
// A checkpoint that loads must hold tensors for every model its manifest lists.
// ENSEMBLELAB_FUZZ_WRITE_SEEDS=DIR writes one valid input per mode to DIR and exits.
#include <torch/torch.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/AtomicFile.h"
#include "core/io/Checkpoint.h"
#include "core/io/RemoveTree.h"
#include "tests/fuzz/FuzzContract.h"

namespace fs = std::filesystem;

namespace {

std::string g_checkpoints;  ///< a real checkpoints/ folder with one step
std::string g_step;         ///< its step folder
std::string g_manifest, g_member, g_optimizer;  ///< the files as written

std::string readFile(const std::string& path) { return ensemble::readWholeFile(path); }

void writeFile(const std::string& path, const std::string& bytes) {
  fuzzing::writeScratch(path, bytes.data(), bytes.size());
}

void checkLoaded(const ensemble::CheckpointData& data) {
  fuzzing::require(data.weights.size() == data.optimizer.size(), "weights and optimizer counts differ");
  for (const auto& dict : data.weights) {
    for (const auto& item : dict) fuzzing::require(item.value().defined(), "a loaded tensor is undefined");
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_checkpoints = fuzzing::scratchPath("checkpoints");
  std::error_code ignored;
  ensemble::removeTree(g_checkpoints, ignored);
  ensemble::CheckpointData data;
  data.config = {{"model", "cnn"}};
  data.state = {{"global_step", 1}};
  ensemble::TensorDict weights, momentum;
  weights.insert("fc.weight", torch::arange(6, torch::kFloat32).view({2, 3}));
  weights.insert("fc.bias", torch::zeros({2}));
  momentum.insert("fc.weight", torch::ones({2, 3}));
  data.weights.push_back(weights);
  data.optimizer.push_back(momentum);
  g_step = ensemble::writeCheckpoint(g_checkpoints, 1, data);
  g_manifest = readFile(g_step + "/manifest.json");
  g_member = readFile(g_step + "/member-0.pt");
  g_optimizer = readFile(g_step + "/member-0-optimizer.pt");
  if (const char* seeds = std::getenv("ENSEMBLELAB_FUZZ_WRITE_SEEDS")) {
    fs::create_directories(seeds);
    writeFile(std::string(seeds) + "/manifest", std::string(1, '\0') + g_manifest);
    writeFile(std::string(seeds) + "/member", std::string(1, '\1') + g_member);
    writeFile(std::string(seeds) + "/latest", std::string(1, '\2') + "step-000000001\n");
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  // Restore the whole checkpoint, then damage the chosen part.
  writeFile(g_step + "/manifest.json", g_manifest);
  writeFile(g_step + "/member-0.pt", g_member);
  writeFile(g_checkpoints + "/latest", "step-000000001\n");
  switch (data[0] % 3) {
    case 0:
      writeFile(g_step + "/manifest.json", rest);
      break;
    case 1: {
      writeFile(g_step + "/member-0.pt", rest);
      nlohmann::json manifest = nlohmann::json::parse(g_manifest);
      const uLong crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(rest.data()), uInt(rest.size()));
      manifest["files"]["member-0.pt"] = {{"bytes", rest.size()}, {"crc32", std::uint32_t(crc)}};
      writeFile(g_step + "/manifest.json", manifest.dump());
      break;
    }
    default:
      writeFile(g_checkpoints + "/latest", rest);
      break;
  }
  fuzzing::expectParsedOrRejected(
      [&] { checkLoaded(ensemble::readCheckpoint(ensemble::latestCheckpoint(g_checkpoints))); });
  return 0;
}
