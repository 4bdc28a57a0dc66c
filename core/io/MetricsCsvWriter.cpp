// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/MetricsCsvWriter.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/common/Error.h"
#include "core/io/AtomicFile.h"
#include "core/io/MetricsCsvReader.h"
#include "core/io/WriteFaults.h"

namespace ensemble {
namespace {

void appendNumber(std::string& line, const std::optional<double>& value) {
  line += ',';
  if (value) line += MetricsCsvWriter::formatNumber(*value);
}

}  // namespace

std::string MetricsCsvWriter::formatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

MetricsCsvWriter::MetricsCsvWriter(std::string path, std::optional<std::uint64_t> keepBytes)
    : m_path(std::move(path)) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(m_path, ec);
  if (exists && keepBytes) {
    std::uint64_t keep = *keepBytes;
    if (std::filesystem::file_size(m_path, ec) < keep && !ec) {
      // The file lost its tail since (a copy cut short): truncate() would pad it with zero
      // bytes up to `keep`. Its whole rows are kept, and a row cut short is dropped.
      const std::string text = readWholeFile(m_path);
      const std::optional<TornLine> torn = tornLastLine(text);
      keep = text.size() - (torn ? torn->text.size() : 0);
    }
    if (::truncate(m_path.c_str(), off_t(keep)) != 0) {
      const int error = errno;
      // Resuming writes on in the run's own folder, which cannot move: "choose a folder you
      // can write to" (an output's advice) was none, and "trim" no word of the user's.
      std::string message = "cannot go on writing " + m_path + " (cut back to the checkpoint's rows): " + std::strerror(error);
      if (error == ENOSPC || error == EDQUOT) message += "; free some disk space and try again";
      if (error == EACCES || error == EPERM || error == EROFS) {
        message += "; a run resumes in its own folder, which must be writable: copy the run folder to a disk you can "
                   "write to, and resume the copy";
      }
      throw IoError(message);
    }
  }
  m_file = std::fopen(m_path.c_str(), "a+b");  // + : flushedText reads it back
  if (!m_file) throw IoError(describeIoFailure("cannot open", m_path, errno));
  // "a+" starts reading at 0, so ftell() would say 0 of a file with rows: the end, as "a" has it.
  if (std::fseek(m_file, 0, SEEK_END) != 0) throw IoError(describeIoFailure("cannot open", m_path, errno));
  if (std::ftell(m_file) == 0) {
    std::fputs(kHeader, m_file);
    flush();
  }
}

MetricsCsvWriter::~MetricsCsvWriter() {
  if (m_file) std::fclose(m_file);
}

std::string MetricsCsvWriter::format(const MetricsRow& row) {
  std::string line = std::to_string(row.step) + ',' + std::to_string(row.epoch) + ',' + row.member;
  appendNumber(line, row.trainLoss);
  appendNumber(line, row.trainAccuracy);
  appendNumber(line, row.testLoss);
  appendNumber(line, row.testAccuracy);
  return line + '\n';
}

void MetricsCsvWriter::write(const MetricsRow& row) {
  const std::string line = format(row);
  if (const int fault = takeWriteFault(m_path)) throw IoError(describeIoFailure("cannot write", m_path, fault));
  if (std::fwrite(line.data(), 1, line.size(), m_file) != line.size()) {
    throw IoError(describeIoFailure("cannot write", m_path, errno));
  }
}

std::uint64_t MetricsCsvWriter::flush() {
  if (std::fflush(m_file) != 0) throw IoError(describeIoFailure("cannot write", m_path, errno));
  const long length = std::ftell(m_file);
  if (length < 0) throw IoError(describeIoFailure("cannot write", m_path, errno));
  return std::uint64_t(length);
}

std::string MetricsCsvWriter::flushedText(std::uint64_t bytes) const {
  std::string text(bytes, '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t got = ::pread(::fileno(m_file), text.data() + done, text.size() - done, off_t(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw IoError(describeIoFailure("cannot read", m_path, errno));
    if (got == 0) break;  // cut short under the run (by hand): what is there
    done += std::size_t(got);
  }
  text.resize(done);
  return text;
}

}  // namespace ensemble
