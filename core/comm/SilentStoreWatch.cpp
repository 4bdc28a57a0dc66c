// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/SilentStoreWatch.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

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

/// What descriptor `fd` is open on, as /proc/self/fd names it ("socket:[81234]" for a
/// socket: its inode, which no later socket shares), or "" when it is closed.
std::string openedObject(int fd) {
  char target[256];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t length = ::readlink(link.c_str(), target, sizeof target - 1);
  return length > 0 ? std::string(target, std::size_t(length)) : std::string();
}

/// The sockets this process holds open now, by what they are open on.
std::set<std::string> openSockets() {
  std::set<std::string> sockets;
  for (const int fd : openDescriptors()) {
    if (std::string object = openedObject(fd); object.rfind("socket:", 0) == 0) sockets.insert(std::move(object));
  }
  return sockets;
}

/// This process's open descriptors that are TCP connections to `port` (any host), with what
/// each is open on.
std::vector<std::pair<int, std::string>> connectionsToPort(int port) {
  std::vector<std::pair<int, std::string>> connections;
  for (const int fd : openDescriptors()) {
    if (peerPort(fd) == port) connections.emplace_back(fd, openedObject(fd));
  }
  return connections;
}

}  // namespace

SilentStoreWatch::SilentStoreWatch(int storePort, std::chrono::milliseconds limit)
    : m_storePort(storePort),
      m_limit(limit),
      m_socketsBefore(openSockets()),
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
    for (const auto& [fd, socket] : connectionsToPort(m_storePort)) {
      // Told apart by socket, not by number: a descriptor another thread closed since may have
      // been given to the store client's new connection, which was then never shut down.
      if (m_socketsBefore.count(socket)) continue;
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
