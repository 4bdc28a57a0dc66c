// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The files of one run: config.json, metrics.csv, summary.json, checkpoints/, tensorboard/. The CLI and
// the GUI write the same layout, so each reads what the other wrote. Torch-free.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace ensemble {

class RunDirectory final {
 public:
  explicit RunDirectory(std::string path) : m_path(std::move(path)) {}

  /// $XDG_DATA_HOME/ensemble-lab/runs, or ~/.local/share/ensemble-lab/runs.
  static std::string defaultRunsRoot();
  /// A fresh, readable run folder name: <date>-<time>-<mode>-<model>.
  static std::string newRunName(const std::string& mode, const std::string& model);
  /// The run's name: its folder's, whether or not the path ends with a slash.
  static std::string nameOf(const std::string& directory);

  const std::string& path() const { return m_path; }
  std::string configPath() const { return m_path + "/config.json"; }
  std::string metricsPath() const { return m_path + "/metrics.csv"; }
  std::string summaryPath() const { return m_path + "/summary.json"; }
  std::string checkpointsPath() const { return m_path + "/checkpoints"; }
  /// The TensorBoard log: a folder per model (core/io/TensorBoardLog.h).
  std::string tensorBoardPath() const { return m_path + "/tensorboard"; }

  /// Whether `file` is one of the run's own files (config.json, metrics.csv, summary.json, or
  /// anything under checkpoints/ or tensorboard/), however it is spelled: what an export or a
  /// prediction written there would destroy.
  bool ownsFile(const std::string& file) const;
  /// The run folder among `file`'s parent folders whose own file it is (ownsFile), or "":
  /// which run an output written there would damage, whichever run the command was given.
  static std::string runOwning(const std::string& file);
  /// Whether the folder holds a run (its config.json or summary.json).
  bool holdsARun() const;

  /// Where a new run may not be written: a sentence (the path is a file, or a folder that holds
  /// something and no config.json, whose files a run would mix with or replace), or "" where
  /// the folder is new, empty or a run's.
  std::string whyNotANewRunFolder() const;

  /// Creates the folder (and parents). Throws IoError.
  void create() const;
  /// Writes `json` to `file` (a path from this class) atomically. Throws IoError.
  static void writeJson(const std::string& file, const nlohmann::json& json);
  /// Reads a JSON file. Throws IoError when missing, ConfigError when malformed or larger
  /// than kMaxJsonBytes (refused before it is read).
  static nlohmann::json readJson(const std::string& file);
  static constexpr std::uintmax_t kMaxJsonBytes = 64ull * 1024 * 1024;
  /// Throws ConfigError where `file` is larger than kMaxJsonBytes, before anything reads it:
  /// "<file> is N MiB, where <usualSize>: it is not one EnsembleLab wrote; <whatToDo>".
  static void refuseOversizedJson(const std::string& file, const std::string& usualSize, const std::string& whatToDo);

 private:
  std::string m_path;
};

}  // namespace ensemble
