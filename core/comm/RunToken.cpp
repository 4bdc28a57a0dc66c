// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/RunToken.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/common/Sha256.h"

namespace ensemble {
namespace {

std::string trimmed(std::string text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::optional<std::string> readTrimmed(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return trimmed(text.str());
}

/// $XDG_RUNTIME_DIR/ensemblelab (a per-user tmpfs on systemd hosts), else /tmp/ensemblelab-UID.
std::string privateFolder() {
  if (const char* runtime = environment::read(environment::kXdgRuntimeDir)) return std::string(runtime) + "/ensemblelab";
  return "/tmp/ensemblelab-" + std::to_string(::getuid());
}

}  // namespace

std::optional<std::string> givenRunToken() {
  if (const char* token = environment::read(environment::kRunToken)) return trimmed(token);
  const char* path = environment::read(environment::kRunTokenFile);
  if (!path) return std::nullopt;
  const std::optional<std::string> token = readTrimmed(path);
  if (!token) {
    throw ConfigError(std::string("cannot read the run token file ") + path + " (ENSEMBLELAB_RUN_TOKEN_FILE); " +
                      "check the path and that this user may read it");
  }
  if (token->empty()) {
    throw ConfigError(std::string("the run token file ") + path + " is empty; put the run's token in it");
  }
  return token;
}

std::string newRandomHex() {
  std::random_device device;
  std::ostringstream hex;
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", unsigned(device()));
    hex << part;
  }
  return hex.str();
}

std::string tokenProof(const std::string& token, const std::string& nonce, int rank) {
  return hmacSha256Hex(token, "ensemblelab run token/" + nonce + "/rank " + std::to_string(rank));
}

std::string localTokenPath(const std::string& masterAddr, int port) {
  std::string name = "run-token-" + masterAddr + "-" + std::to_string(port);
  for (char& c : name) {
    if (c == '/' || c == ':') c = '_';
  }
  return privateFolder() + "/" + name;
}

void keepLocalToken(const std::string& path, const std::string& token) {
  const std::string folder = path.substr(0, path.rfind('/'));
  ::mkdir(folder.c_str(), 0700);
  // Another user's folder, or a link put there for us to follow, would hand them the token.
  struct stat info {};
  if (::lstat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::getuid() ||
      (info.st_mode & 077) != 0) {
    throw ConfigError("cannot keep the run token in " + folder +
                      ": it is not this user's private folder (mode 0700); remove it, or give every rank "
                      "ENSEMBLELAB_RUN_TOKEN");
  }
  const std::string staging = path + ".new";
  const mode_t previous = ::umask(077);
  {
    std::ofstream out(staging, std::ios::binary | std::ios::trunc);
    out << token << '\n';
    out.close();
    ::umask(previous);
    if (!out) throw ConfigError("cannot write the run token to " + staging + "; give every rank ENSEMBLELAB_RUN_TOKEN");
  }
  if (std::rename(staging.c_str(), path.c_str()) != 0) {
    throw ConfigError("cannot write the run token to " + path + "; give every rank ENSEMBLELAB_RUN_TOKEN");
  }
}

std::optional<std::string> readLocalToken(const std::string& path) {
  std::optional<std::string> token = readTrimmed(path);
  if (token && token->empty()) return std::nullopt;
  return token;
}

}  // namespace ensemble
