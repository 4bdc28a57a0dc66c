// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/Checkpoint.h"

#include <torch/torch.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "core/common/Crc32.h"
#include "core/common/Error.h"
#include "core/common/JsonErrorText.h"
#include "core/common/FieldMention.h"
#include "core/common/JsonInteger.h"
#include "core/io/AtomicFile.h"
#include "core/io/RemoveTree.h"
#include "core/io/TensorArchiveCheck.h"
#include "core/io/WriteFaults.h"

#include <fcntl.h>  // AT_FDCWD for renameat2

namespace ensemble {
namespace fs = std::filesystem;
namespace {

constexpr int kFormatVersion = 1;
constexpr const char* kLatestName = "latest";
constexpr const char* kManifestName = "manifest.json";
constexpr const char* kMetricsCopyName = "metrics.csv";
/// Hidden names, never step-*: a checkpoint being written, and one being deleted.
constexpr const char* kStagingPrefix = ".incomplete-";
constexpr const char* kRetiredPrefix = ".removing-";

/// The names of the whole checkpoints in `checkpointsDir` (step-*), oldest first.
std::vector<std::string> stepFolders(const std::string& checkpointsDir) {
  std::error_code ec;
  std::vector<std::string> folders;
  for (const auto& entry : fs::directory_iterator(checkpointsDir, ec)) {
    const std::string folder = entry.path().filename().string();
    if (entry.is_directory() && folder.rfind("step-", 0) == 0) folders.push_back(folder);
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

/// `text` with every `from` replaced by `to`.
std::string replacedEverywhere(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

/// A checkpoint's files for model `i`: its weights, and its optimizer's state.
constexpr std::string_view kMemberPrefix = "member-", kOptimizerSuffix = "-optimizer.pt";
std::string weightsFileName(const std::string& i) { return std::string(kMemberPrefix) + i + ".pt"; }
std::string weightsFileName(std::size_t i) { return weightsFileName(std::to_string(i)); }
std::string optimizerFileName(std::size_t i) { return std::string(kMemberPrefix) + std::to_string(i) + std::string(kOptimizerSuffix); }

std::string stepFolderName(int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "step-%09lld", static_cast<long long>(step));
  return name;
}

std::uint32_t crc32Of(const std::string& bytes) { return crc32Extend(0, bytes.data(), bytes.size()); }

/// A state dict as Python's torch.save writes one: a zip archive of data.pkl (a plain dict
/// of name -> tensor) and one record per tensor. torch::pickle_save would tag the dict with
/// its TorchScript type (a torch.jit._pickle.restore_type_tag call), which torch.load
/// refuses at its default weights_only=True since PyTorch 2.6; untagged, it loads there
/// and in LibTorch alike.
std::string pickle(const TensorDict& dict) {
  std::vector<char> pickled;
  torch::jit::Pickler pickler(
      [&](const char* data, std::size_t size) { pickled.insert(pickled.end(), data, data + size); },
      /*tensor_table=*/nullptr, /*type_renamer=*/nullptr, /*memoized_class_types=*/nullptr,
      /*get_tensor_id=*/nullptr, /*tag_aggregates=*/false);
  pickler.protocol();
  pickler.pushIValue(c10::IValue(dict));
  pickler.stop();
  std::string archive;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, std::size_t size) {
    archive.append(static_cast<const char*>(data), size);
    return size;
  });
  torch::jit::writeArchiveAndTensors("data", pickled.data(), pickled.size(), pickler.tensorData(), writer);
  writer.writeEndOfFile();
  return archive;
}

TensorDict unpickle(const std::string& bytes, const std::string& origin) {
  checkTensorArchive(bytes, origin);
  try {
    const c10::IValue value = torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
    TensorDict dict;
    for (const auto& item : value.toGenericDict()) {
      dict.insert(item.key().toStringRef(), item.value().toTensor());
    }
    return dict;
  } catch (const c10::Error& e) {
    throw CheckpointError(origin + " cannot be read as a tensor dictionary (" +
                          e.what_without_backtrace() + "); the checkpoint is damaged");
  } catch (const std::exception& e) {  // found by fuzzing: the unpickler's own range checks
    throw CheckpointError(origin + " cannot be read as a tensor dictionary (" + e.what() +
                          "); the checkpoint is damaged");
  }
}

/// Deletes a folder that no longer carries a step-* name, entry by entry.
void deleteRetired(const fs::path& folder) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(folder, ec)) entries.push_back(entry.path());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    removeTree(entries[i].string(), ec);
    if (i == 0) crashPoint("checkpoint-removal");  // a kill here must cost no checkpoint
  }
  removeTree(folder.string(), ec);
}

/// Removes a whole checkpoint so that a kill at any moment leaves it either whole under its
/// step-* name or gone from it: renamed away first (atomic), then deleted. Deleting in place
/// could leave a step-* folder without its manifest (a kill found that).
void retireCheckpoint(const fs::path& folder) {
  const fs::path retired = folder.parent_path() / (kRetiredPrefix + folder.filename().string());
  std::error_code ec;
  removeTree(retired.string(), ec);
  fs::rename(folder, retired, ec);
  if (!ec) deleteRetired(retired);  // if it cannot be renamed it stays, whole
}

/// Gives the finished staging folder its step-* name. A folder already there (left by a
/// run killed after this point but before `latest` moved on) is swapped out in one atomic
/// exchange where the file system offers it, so the name never stops holding a whole
/// checkpoint; elsewhere it is retired first.
void publish(const fs::path& staging, const fs::path& final) {
  std::error_code ec;
  if (fs::exists(final, ec)) {
#ifdef RENAME_EXCHANGE
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, final.c_str(), RENAME_EXCHANGE) == 0) {
      deleteRetired(staging);  // the old checkpoint, now under the staging name
      return;
    }
#endif
    retireCheckpoint(final);
  }
  fs::rename(staging, final, ec);
  if (ec) throw IoError(describeIoFailure("cannot move checkpoint to", final.string(), ec.value()));
}

}  // namespace

void removeIncompleteCheckpoints(const std::string& checkpointsDir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(checkpointsDir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kStagingPrefix, 0) == 0 || name.rfind(kRetiredPrefix, 0) == 0) removeTree(entry.path().string(), ec);
  }
}

std::string writeCheckpoint(const std::string& checkpointsDir, int64_t globalStep,
                            const CheckpointData& data, int keep) {
  std::error_code ec;
  fs::create_directories(checkpointsDir, ec);
  if (ec) throw IoError(describeIoFailure("cannot create", checkpointsDir, ec.value()));
  const std::string name = stepFolderName(globalStep);
  const fs::path staging = fs::path(checkpointsDir) / (kStagingPrefix + name);
  const fs::path final = fs::path(checkpointsDir) / name;
  removeIncompleteCheckpoints(checkpointsDir);
  fs::create_directories(staging, ec);
  if (ec) throw IoError(describeIoFailure("cannot create", final.string(), ec.value()));

  try {
    nlohmann::json files = nlohmann::json::object();
    const auto save = [&](const std::string& file, const std::string& bytes) {
      writeFileAtomically((staging / file).string(), bytes);
      files[file] = {{"bytes", bytes.size()}, {"crc32", crc32Of(bytes)}};
    };
    for (std::size_t i = 0; i < data.weights.size(); ++i) {
      save(weightsFileName(i), pickle(data.weights[i]));
      save(optimizerFileName(i), pickle(data.optimizer[i]));
    }
    if (data.metricsCsv) save(kMetricsCopyName, *data.metricsCsv);
    const nlohmann::json manifest{{"format", kFormatVersion},
                                  {"version", ENSEMBLELAB_VERSION},
                                  {"global_step", globalStep},
                                  {"models", data.weights.size()},
                                  {"config", data.config},
                                  {"state", data.state},
                                  {"files", files}};
    writeFileAtomically((staging / kManifestName).string(), manifest.dump(2));
    publish(staging, final);
    syncDirectory(checkpointsDir);
    crashPoint("checkpoint-published");  // whole, but `latest` still names the previous one
    writeFileAtomically((fs::path(checkpointsDir) / kLatestName).string(), name + "\n");
  } catch (const IoError& error) {
    removeTree(staging.string(), ec);
    // The staging folder is ours, and gone: the message names the checkpoint's own folder.
    throw IoError(replacedEverywhere(error.what(), staging.string(), final.string()));
  } catch (...) {
    removeTree(staging.string(), ec);
    throw;
  }

  // Keep the newest `keep` complete checkpoints; never the one just written.
  const std::vector<std::string> folders = stepFolders(checkpointsDir);
  for (std::size_t i = 0; i + std::size_t(keep) < folders.size(); ++i) {
    if (folders[i] != name) retireCheckpoint(fs::path(checkpointsDir) / folders[i]);
  }
  return final.string();
}

bool holdsACheckpoint(const std::string& checkpointsDir) {
  std::error_code ec;
  return fs::exists(fs::path(checkpointsDir) / kLatestName, ec) || !stepFolders(checkpointsDir).empty();
}

std::string latestCheckpoint(const std::string& checkpointsDir) {
  const fs::path pointer = fs::path(checkpointsDir) / kLatestName;
  std::error_code ec;
  if (const fs::path run = fs::path(checkpointsDir).parent_path(); !run.empty() && !fs::is_directory(run, ec)) {
    throw CheckpointError("run folder " + run.string() + (fs::exists(run, ec) ? " is a file, not a folder" : " does not exist") +
                          "; give the folder a run was written to "
                          "(it holds config.json and checkpoints/)");
  }
  if (!fs::exists(pointer, ec)) {
    // A run killed between naming its first checkpoint and writing `latest` (or a `latest`
    // deleted by hand) still holds whole step-* folders: the newest is the latest.
    if (const std::vector<std::string> whole = stepFolders(checkpointsDir); !whole.empty()) {
      return (fs::path(checkpointsDir) / whole.back()).string();
    }
    throw CheckpointError("no checkpoint in " + checkpointsDir +
                          ": the run stopped before its first checkpoint (or this is not a "
                          "run folder); start it again with " + mention::startRun());
  }
  std::string name = readWholeFile(pointer.string());
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  if (name.rfind("step-", 0) != 0 || name.find('/') != std::string::npos) {
    throw CheckpointError(pointer.string() + " is damaged (it names '" + name +
                          "'); point it at one of the step-* folders beside it");
  }
  // A latest checkpoint someone removed (as checkpointBefore's advice says, when it was damaged):
  // the newest one left.
  if (!fs::exists(fs::path(checkpointsDir) / name, ec)) {
    const std::vector<std::string> left = stepFolders(checkpointsDir);
    if (!left.empty()) return (fs::path(checkpointsDir) / left.back()).string();
  }
  return (fs::path(checkpointsDir) / name).string();
}

int64_t checkpointStep(const std::string& checkpointDir) {
  std::string folder = checkpointDir;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  const std::string name = fs::path(folder).filename().string();
  const std::string digits = name.rfind("step-", 0) == 0 ? name.substr(5) : "";
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(digits);
}

std::string checkpointBefore(const std::string& checkpointDir) {
  const fs::path checkpoint(checkpointDir);
  const std::string name = checkpoint.filename().string();
  std::string before;
  for (const std::string& folder : stepFolders(checkpoint.parent_path().string())) {
    if (folder < name) before = folder;
  }
  return before.empty() ? before : (checkpoint.parent_path() / before).string();
}

namespace {

/// What readCheckpointFiles throws where the checkpoint itself is damaged (incomplete,
/// truncated, corrupt, malformed), as against unreadable (I/O) or of another format:
/// readCheckpoint names the whole checkpoint before a damaged one.
class DamagedCheckpoint final : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

CheckpointData readCheckpointFiles(const std::string& checkpointDir) {
  const std::string manifestPath = (fs::path(checkpointDir) / kManifestName).string();
  std::error_code ec;
  if (!fs::exists(manifestPath, ec)) {
    throw DamagedCheckpoint("checkpoint " + checkpointDir + " has no " + kManifestName +
                            "; it is incomplete or was deleted");
  }
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(readWholeFile(manifestPath));
  } catch (const nlohmann::json::exception&) {
    throw DamagedCheckpoint(manifestPath + " is truncated or not JSON; the checkpoint is damaged");
  } catch (const IoError& e) {
    throw CheckpointError(e.what());
  }
  CheckpointData data;
  try {
    if (!fitsInteger<int>(manifest.at("format")) || manifest.at("format").get<int>() != kFormatVersion) {
      throw CheckpointError(manifestPath + " has checkpoint format " +
                            manifest.at("format").dump() + "; this EnsembleLab reads format " +
                            std::to_string(kFormatVersion));
    }
    data.config = manifest.at("config");
    data.state = manifest.at("state");
    const auto models = integerOrThrow<std::size_t, DamagedCheckpoint>(manifest.at("models"), manifestPath + ": models");
    const auto& files = manifest.at("files");
    const auto loadBytes = [&](const std::string& file) {
      const std::string path = (fs::path(checkpointDir) / file).string();
      if (!files.contains(file)) throw DamagedCheckpoint(manifestPath + " does not list " + file);
      std::error_code missing;
      if (!fs::exists(path, missing)) throw DamagedCheckpoint(path + " is missing; the checkpoint is incomplete");
      std::string bytes;
      try {
        bytes = readWholeFile(path);
      } catch (const IoError& e) {
        throw CheckpointError(std::string(e.what()) + "; the checkpoint cannot be read");
      }
      const auto expectedBytes =
          integerOrThrow<std::size_t, DamagedCheckpoint>(files[file].at("bytes"), manifestPath + ": bytes of " + file);
      if (bytes.size() != expectedBytes) {
        throw DamagedCheckpoint(path + " is truncated: " + std::to_string(bytes.size()) +
                                " bytes, the manifest says " + std::to_string(expectedBytes));
      }
      if (crc32Of(bytes) !=
          integerOrThrow<std::uint32_t, DamagedCheckpoint>(files[file].at("crc32"), manifestPath + ": crc32 of " + file)) {
        throw DamagedCheckpoint(path + " is corrupt: its CRC-32 does not match the manifest");
      }
      return bytes;
    };
    const auto load = [&](const std::string& file) {
      const std::string path = (fs::path(checkpointDir) / file).string();
      try {
        return unpickle(loadBytes(file), path);
      } catch (const CheckpointError& e) {
        throw DamagedCheckpoint(e.what());
      }
    };
    for (std::size_t i = 0; i < models; ++i) {
      data.weights.push_back(load(weightsFileName(i)));
      data.optimizer.push_back(load(optimizerFileName(i)));
    }
    if (files.contains(kMetricsCopyName)) data.metricsCsv = loadBytes(kMetricsCopyName);
  } catch (const nlohmann::json::exception& e) {
    throw DamagedCheckpoint(manifestPath + " is malformed (" + plainJsonError(e) + ")");
  }
  return data;
}

}  // namespace

CheckpointData readCheckpoint(const std::string& checkpointDir) {
  try {
    return readCheckpointFiles(checkpointDir);
  } catch (const DamagedCheckpoint& damaged) {
    const std::string before = checkpointBefore(checkpointDir);
    if (before.empty()) throw CheckpointError(damaged.what());
    // Advice to delete the newest checkpoint is only safe where the one before it loads:
    // it gets the same checks as a resume would give it, or the advice could lose both.
    try {
      readCheckpointFiles(before);
    } catch (const std::exception& alsoBad) {
      throw CheckpointError(std::string(damaged.what()) + ". The checkpoint before it, " + before +
                            ", cannot be used either (" + alsoBad.what() +
                            "): neither is whole, so keep both and start the run again");
    }
    throw CheckpointError(std::string(damaged.what()) + ". The checkpoint before it, " + before +
                          ", is kept: to go on from there, remove the damaged " + checkpointDir);
  }
}

std::string weightsBesideOptimizerState(const std::string& path) {
  // Named, not looked into: its momentum buffers are a state_dict of the weights' own names
  // and shapes, so nothing in the file tells it from the weights.
  const std::string name = fs::path(path).filename().string();
  const std::size_t affixes = kMemberPrefix.size() + kOptimizerSuffix.size();
  if (name.size() <= affixes || name.rfind(kMemberPrefix, 0) != 0 ||
      name.compare(name.size() - kOptimizerSuffix.size(), kOptimizerSuffix.size(), kOptimizerSuffix) != 0) {
    return "";
  }
  const std::string index = name.substr(kMemberPrefix.size(), name.size() - affixes);
  if (index.find_first_not_of("0123456789") != std::string::npos) return "";
  return (fs::path(path).parent_path() / weightsFileName(index)).string();
}

std::vector<std::string> weightFilesAt(const std::string& path) {
  std::error_code ec;
  const fs::path given(path);
  // checkpoints/latest itself, the file naming the newest checkpoint: that checkpoint's
  // models (it was read as a tensor file, and refused as damaged).
  if (given.filename() == kLatestName && fs::is_regular_file(given, ec)) {
    return weightFilesAt(latestCheckpoint(given.parent_path().string()));
  }
  if (fs::is_directory(given, ec)) {
    fs::path checkpoint = given;
    if (fs::is_directory(given / "checkpoints", ec)) checkpoint = latestCheckpoint((given / "checkpoints").string());
    else if (holdsACheckpoint(given.string())) checkpoint = latestCheckpoint(given.string());
    std::vector<std::string> files;
    for (std::size_t i = 0; fs::is_regular_file(checkpoint / weightsFileName(std::to_string(i)), ec); ++i) {
      files.push_back((checkpoint / weightsFileName(std::to_string(i))).string());
    }
    if (files.empty()) {
      throw CheckpointError(path + " holds no model weights (no " + weightsFileName("0") +
                            "): give a run folder, one of its checkpoints/step-* folders, or a file torch.save wrote");
    }
    return files;
  }
  // checkpoints/latest is a file, not a link (some filesystems have none): a path through it,
  // as a person types it, is taken through the folder it names.
  if (!fs::exists(given, ec)) {
    for (fs::path folder = given.parent_path(); !folder.empty() && folder != folder.parent_path(); folder = folder.parent_path()) {
      if (folder.filename() == kLatestName && fs::is_regular_file(folder, ec)) {
        // "latest/member-0.pt" is that file of the checkpoint; "latest/" the checkpoint.
        const fs::path within = given.lexically_relative(folder);
        const fs::path checkpoint(latestCheckpoint(folder.parent_path().string()));
        if (within.empty() || within == ".") return weightFilesAt(checkpoint.string());
        return {(checkpoint / within).string()};
      }
    }
  }
  return {path};
}

}  // namespace ensemble
