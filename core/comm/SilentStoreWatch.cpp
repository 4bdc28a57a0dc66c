// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/SilentStoreWatch.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace ensemble {
namespace {

/// Every descriptor this process holds open now.
std::set<int> openDescriptors() {
  std::set<int> descriptors;
  DIR* folder = ::opendir("/proc/self/fd");
  if (folder == nullptr) return descriptors;
  const int listing = ::dirfd(folder);
  while (const dirent* entry = ::readdir(folder)) {
    if (entry->d_name[0] == '.') continue;
    const int fd = std::atoi(entry->d_name);
    if (fd != listing) descriptors.insert(fd);
  }
  ::closedir(folder);
  return descriptors;
}

/// The remote TCP port of connected socket `fd`, or 0.
int peerPort(int fd) {
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISSOCK(status.st_mode)) return 0;
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
  return 0;
}

/// This process's open descriptors that are TCP connections to `port` (any host).
std::set<int> connectionsToPort(int port) {
  std::set<int> connections;
  for (const int fd : openDescriptors()) {
    if (peerPort(fd) == port) connections.insert(fd);
  }
  return connections;
}

}  // namespace

SilentStoreWatch::SilentStoreWatch(int storePort, std::chrono::milliseconds limit)
    : m_storePort(storePort),
      m_limit(limit),
      m_descriptorsBefore(openDescriptors()),
      m_lastHeard(Clock::now()),
      m_thread([this] { watch(); }) {}

SilentStoreWatch::~SilentStoreWatch() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void SilentStoreWatch::heard() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_lastHeard = Clock::now();
}

bool SilentStoreWatch::fired() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_fired;
}

void SilentStoreWatch::watch() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_stopping) {
    const Clock::time_point deadline = m_lastHeard + m_limit;
    if (Clock::now() < deadline) {
      m_wake.wait_until(lock, deadline);
      continue;
    }
    for (const int fd : connectionsToPort(m_storePort)) {
      if (m_descriptorsBefore.count(fd)) continue;
      // Shut down, not closed: the store client still owns the descriptor and closes it;
      // its waiting recv() returns at once, as if the peer had left.
      ::shutdown(fd, SHUT_RDWR);
      m_fired = true;
    }
    // Watched on until the rendezvous ends: a client shut down while it connects tries again
    // (LibTorch 2.x's retries until its timeout), and that connection is as silent. Watching
    // stopped after the first pass, a CI run's rank 1 waited on the second for ever.
    // Without a connection yet, the client is still trying to connect (which its own timeout
    // ends), and a connection made from here on gets the whole limit to be answered.
    m_lastHeard = Clock::now();
  }
}

}  // namespace ensemble
