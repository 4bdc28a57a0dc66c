// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/RunDirectory.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/io/AtomicFile.h"

namespace ensemble {
namespace fs = std::filesystem;

std::string RunDirectory::defaultRunsRoot() {
  if (const char* data = environment::read(environment::kXdgDataHome)) {
    return std::string(data) + "/ensemble-lab/runs";
  }
  const char* home = environment::read(environment::kHome);
  return std::string(home ? home : ".") + "/.local/share/ensemble-lab/runs";
}

std::string RunDirectory::nameOf(const std::string& directory) {
  std::filesystem::path path = std::filesystem::path(directory).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();
  return path.filename().string();
}

bool RunDirectory::ownsFile(const std::string& file) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(file, ec);
  if (ec) return false;
  const auto same = [&](const std::string& own) {
    std::error_code e;
    const fs::path path = fs::weakly_canonical(own, e);
    return !e && path == target;
  };
  const auto inside = [&](const std::string& folder) {
    std::error_code e;
    const fs::path root = fs::weakly_canonical(folder, e);
    if (e) return false;
    const fs::path relative = target.lexically_relative(root);
    return !relative.empty() && *relative.begin() != "..";
  };
  return same(configPath()) || same(metricsPath()) || same(summaryPath()) || inside(checkpointsPath()) ||
         inside(tensorBoardPath());
}

std::string RunDirectory::runOwning(const std::string& file) {
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(file, ec);
  if (ec) return "";
  for (fs::path folder = target.parent_path(); !folder.empty(); folder = folder.parent_path()) {
    const RunDirectory run(folder.string());
    if (run.holdsARun() && run.ownsFile(file)) return folder.string();
    if (folder == folder.root_path()) break;
  }
  return "";
}

bool RunDirectory::holdsARun() const {
  std::error_code ec;
  return fs::exists(configPath(), ec) || fs::exists(summaryPath(), ec);
}

std::string RunDirectory::newRunName(const std::string& mode, const std::string& model) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[40];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  char withMillis[48];
  std::snprintf(withMillis, sizeof withMillis, "%s%03d", stamp, int(millis));
  return std::string(withMillis) + "-" + mode + "-" + model;
}

std::string RunDirectory::whyNotANewRunFolder() const {
  std::error_code ec;
  const fs::file_status status = fs::status(m_path, ec);
  if (!fs::exists(status)) return "";
  if (!fs::is_directory(status)) return m_path + " is a file, not a folder";
  if (fs::exists(configPath(), ec)) return "";  // a run's: the caller resumes or refuses it
  fs::directory_iterator entries(m_path, ec);
  if (ec) return "cannot read the folder " + m_path + ": " + ec.message();
  if (entries == fs::directory_iterator()) return "";
  // Up to three of them by name, "..." only where there are more (one file had read "(notes.txt, ...)").
  std::string named;
  int listed = 0;
  for (; entries != fs::directory_iterator() && listed < 3; entries.increment(ec), ++listed) {
    named += (listed ? ", " : "") + entries->path().filename().string();
    if (ec) break;
  }
  if (!ec && entries != fs::directory_iterator()) named += ", ...";
  return m_path + " already holds files that are not a run's (" + named +
         "), which a run's config.json, metrics.csv, checkpoints/ and tensorboard/ would be mixed with";
}

void RunDirectory::create() const {
  std::error_code ec;
  fs::create_directories(m_path, ec);
  if (ec) throw IoError(describeIoFailure("cannot create run folder", m_path, ec.value()));
}

void RunDirectory::writeJson(const std::string& file, const nlohmann::json& json) {
  writeFileAtomically(file, json.dump(2) + "\n");
}

void RunDirectory::refuseOversizedJson(const std::string& file, const std::string& usualSize,
                                       const std::string& whatToDo) {
  std::error_code ec;
  const std::uintmax_t size = fs::is_regular_file(file, ec) ? fs::file_size(file, ec) : 0;
  if (!ec && size > kMaxJsonBytes) {
    throw ConfigError(file + " is " + std::to_string(size / (1024 * 1024)) + " MiB, where " + usualSize +
                      ": it is not one EnsembleLab wrote; " + whatToDo);
  }
}

nlohmann::json RunDirectory::readJson(const std::string& file) {
  // A run's JSON files are kilobytes (a sweep's of thousands of jobs, megabytes): one far
  // larger is none EnsembleLab wrote, and reading it whole would hold the window (the Runs
  // list reads every run's summary) for as long as it took, in as much memory.
  refuseOversizedJson(file, "a run's JSON files are kilobytes", "the run folder is damaged");
  const std::string text = readWholeFile(file);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw ConfigError(file + " is not valid JSON; the run folder is damaged");
  }
}

}  // namespace ensemble
