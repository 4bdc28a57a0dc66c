// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small real filesystem for the full-disk tests: a size-limited tmpfs mounted under a
// folder of the test's, filled by an ordinary file as a download or a log would fill it.
// No fault is injected: the kernel itself answers ENOSPC. Needs root (mount).
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QByteArray>
#include <QFileInfo>
#include <QString>
#include <QStringList>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace testing {

class SmallDisk {
 public:
  SmallDisk() = default;
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  ~SmallDisk() {
    if (!m_path.isEmpty()) ::umount2(m_path.toLocal8Bit().constData(), MNT_DETACH);
  }

  /// Mounts a tmpfs of `megabytes` at `path`; returns why it could not (to skip with), or
  /// an empty string.
  QString mount(const QString& path, int megabytes) {
    if (::geteuid() != 0) return "needs root to mount a small tmpfs: run the suite as root, as CI does";
    if (!QDir().mkpath(path)) return "cannot create " + path;
    const QByteArray options = "size=" + QByteArray::number(megabytes) + "m";
    if (::mount("tmpfs", path.toLocal8Bit().constData(), "tmpfs", 0, options.constData()) != 0) {
      return "cannot mount a tmpfs here: " + QString::fromLocal8Bit(std::strerror(errno));
    }
    m_path = path;
    return {};
  }

  QString path() const { return m_path; }

  /// Remounts the disk read-only (true) or writable again (false), as a share or a write-
  /// protected card is; false where the kernel refuses.
  bool setReadOnly(bool readOnly) {
    const unsigned long flags = MS_REMOUNT | (readOnly ? MS_RDONLY : 0);
    return ::mount("tmpfs", m_path.toLocal8Bit().constData(), "tmpfs", flags, nullptr) == 0;
  }

  /// Writes zeros into a file on the disk until the filesystem refuses, then gives `leave`
  /// bytes back; returns the bytes the file keeps.
  qint64 fill(qint64 leave) {
    const QByteArray path = fillerPath().toLocal8Bit();
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return 0;
    const QByteArray chunk(1 << 20, '\0');
    qint64 written = 0;
    for (;;) {  // unbuffered: `written` is what the disk holds
      const ssize_t n = ::write(fd, chunk.constData(), std::size_t(chunk.size()));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      written += n;
    }
    written = std::max<qint64>(0, written - leave);
    const bool ok = ::ftruncate(fd, written) == 0;
    ::close(fd);
    return ok ? written : 0;
  }

  /// Frees what fill() took.
  bool release() { return QFile::remove(fillerPath()); }

 private:
  QString fillerPath() const { return m_path + "/someone-elses-download"; }

  QString m_path;
};

/// Every file at `path` (a file, or a folder's files at any depth) with its contents:
/// equal before and after a write that failed means the write changed nothing.
inline QStringList filesWithContents(const QString& path) {
  QStringList files;
  QDirIterator it(path, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) files << it.next();
  if (files.isEmpty() && QFileInfo(path).isFile()) files << path;
  files.sort();
  QStringList contents;
  for (const QString& name : files) {
    QFile file(name);
    contents << name + ":" + (file.open(QIODevice::ReadOnly) ? file.readAll().toBase64() : QByteArray("unreadable"));
  }
  return contents;
}

/// What a failed write of ours might leave under `folder`: staging names (".tmp",
/// ".incomplete", ".incoming").
inline QStringList stagingLeftovers(const QString& folder) {
  QStringList found;
  QDirIterator it(folder, QDir::Files | QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString path = it.next();
    if (path.endsWith(".tmp") || path.contains(".incomplete") || path.contains(".incoming")) found << path;
  }
  return found;
}

}  // namespace testing
