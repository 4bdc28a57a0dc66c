// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The contract every harness checks: an input either parses into something valid or is
// rejected with one of our typed errors (ensemble::Error). Anything else — another
// exception type, a crash, a hang, undefined behaviour, an allocation past libFuzzer's
// limit — is a finding.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <system_error>
#include <unistd.h>

#include "core/common/Error.h"
#include "core/io/RemoveTree.h"

namespace fuzzing {

/// Runs `parse`; our typed errors are a valid answer, any other exception aborts.
template <typename Parse>
void expectParsedOrRejected(Parse&& parse) {
  try {
    parse();
  } catch (const ensemble::Error&) {
    // Rejected with a message for the user: the contract holds.
  } catch (const std::exception& error) {
    std::fprintf(stderr, "contract broken: untyped exception: %s\n", error.what());
    std::abort();
  }
}

/// Fails the run when a parsed result is not valid.
inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "contract broken: %s\n", what);
    std::abort();
  }
}

/// This process's scratch folder: made under $TMPDIR (or /tmp) on first use and removed,
/// with all it holds, when the process exits. The files had been left in /tmp by every
/// corpus replay (thirteen per suite run) and every fuzzing session.
inline const std::string& scratchFolder() {
  struct Folder {
    std::string path;
    Folder() {
      const char* tmp = std::getenv("TMPDIR");
      std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ensemblelab-fuzz-XXXXXX";
      require(::mkdtemp(pattern.data()) != nullptr, "cannot make the scratch folder (is TMPDIR writable?)");
      path = pattern;
    }
    ~Folder() {
      std::error_code ignored;
      ensemble::removeTree(path, ignored);
    }
  };
  static const Folder folder;
  return folder.path;
}

/// A scratch file path for harnesses that exercise the real file-reading path.
inline std::string scratchPath(const std::string& name) { return scratchFolder() + "/" + name; }

/// Writes `size` bytes to `path`, replacing it.
inline void writeScratch(const std::string& path, const void* data, std::size_t size) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  require(file != nullptr, "cannot write the scratch file");
  if (size) std::fwrite(data, 1, size, file);
  std::fclose(file);
}

}  // namespace fuzzing
