// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/Error.h"
#include "core/common/FileKind.h"
#include "core/common/FieldMention.h"
#include "core/io/WriteFaults.h"

namespace ensemble {

std::string describeIoFailure(const std::string& what, const std::string& path, int error) {
  std::string message = what + " " + path + ": " + std::strerror(error);
  if (error == ENOSPC || error == EDQUOT) message += "; free some disk space and try again";
  if (error == EACCES || error == EPERM || error == EROFS) {
    message += "; choose a folder you can write to (" + mention::outputFolder() + ")";
  }
  return message;
}

void writeFileAtomically(const std::string& path, std::string_view contents) {
  // An output flag naming a folder (predict --out out/) had said "cannot replace out/: Not a directory".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw IoError("cannot write " + path + ": it is a folder, not a file; name a file to write (in that folder, or elsewhere)");
  }
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  // Failures name `path`: the temporary beside it is ours, not a file the user knows of.
  if (fd < 0) {
    const int error = errno;
    // A folder not there yet ("No such file or directory" alone had not said which, or what to do).
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (error == ENOENT && !folder.empty() && !std::filesystem::exists(folder, ec)) {
      throw IoError("cannot create " + path + ": the folder " + folder.string() +
                    " does not exist; create it first, or write elsewhere");
    }
    throw IoError(describeIoFailure("cannot create", path, error));
  }
  std::size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = 0;
    if (const int fault = takeWriteFault(path)) {
      errno = fault;
      n = -1;
    } else {
      n = ::write(fd, contents.data() + written, contents.size() - written);
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(temporary.c_str());
      throw IoError(describeIoFailure("cannot write", path, error));
    }
    written += std::size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw IoError(describeIoFailure("cannot write", path, error));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw IoError(describeIoFailure("cannot replace", path, error));
  }
  syncDirectory(std::filesystem::path(path).parent_path().string());
}

void syncDirectory(const std::string& path) {
  const int fd = ::open(path.empty() ? "." : path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the data itself is already on disk
  ::fsync(fd);
  ::close(fd);
}

std::string readWholeFile(const std::string& path) {
  const std::string kind = notAFileKind(path);
  if (!kind.empty() && kind != "a pipe (FIFO)") throw IoError(path + " is " + kind + ", not a file; name a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(describeIoFailure("cannot open", path, errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw IoError(describeIoFailure("cannot read", path, errno));
  return buffer.str();
}

}  // namespace ensemble
