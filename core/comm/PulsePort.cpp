// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/PulsePort.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/comm/AddressLookup.h"
#include "core/common/Error.h"

namespace ensemble {
namespace {

int boundPort(int socket) {
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  if (::getsockname(socket, reinterpret_cast<sockaddr*>(&bound), &length) != 0) return 0;
  if (bound.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  if (bound.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  return 0;
}

/// One connection attempt to `candidate`, bounded by `within`.
KnockAnswer knockOnce(const addrinfo& candidate, std::chrono::milliseconds within) {
  const int fd = ::socket(candidate.ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return KnockAnswer::Silent;
  KnockAnswer answer = KnockAnswer::Silent;
  if (::connect(fd, candidate.ai_addr, candidate.ai_addrlen) == 0) {
    answer = KnockAnswer::Accepted;
  } else if (errno == ECONNREFUSED) {
    answer = KnockAnswer::Refused;
  } else if (errno == EINPROGRESS) {
    pollfd waiting{fd, POLLOUT, 0};
    int error = 0;
    socklen_t length = sizeof error;
    if (::poll(&waiting, 1, int(within.count())) == 1 &&
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0) {
      answer = error == 0 ? KnockAnswer::Accepted : error == ECONNREFUSED ? KnockAnswer::Refused : KnockAnswer::Silent;
    }
  }
  ::close(fd);
  return answer;
}

}  // namespace

PulsePort::PulsePort(const std::string& address) {
  const ResolvedAddresses addresses = resolveAddresses(address, "0", SOCK_STREAM, AI_PASSIVE);
  std::string lastError = addresses.status != 0 ? ::gai_strerror(addresses.status) : "no address";
  for (const addrinfo* candidate = addresses.first(); candidate && m_socket < 0; candidate = candidate->ai_next) {
    const int fd = ::socket(candidate->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      lastError = std::strerror(errno);
    } else if (::bind(fd, candidate->ai_addr, candidate->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      m_socket = fd;
    } else {
      lastError = std::strerror(errno);
      ::close(fd);
    }
  }
  if (m_socket < 0) {
    throw DistributedError("cannot listen on " + address + " for the other ranks' liveness checks (" + lastError + ")");
  }
  m_port = boundPort(m_socket);
  m_acceptor = std::thread([socket = m_socket] {
    // Ends when the destructor shuts the socket down: accept() then fails with EINVAL.
    for (;;) {
      const int knocked = ::accept4(socket, nullptr, nullptr, SOCK_CLOEXEC);
      if (knocked >= 0) {
        ::close(knocked);
      } else if (errno != EINTR && errno != ECONNABORTED) {
        return;
      }
    }
  });
}

PulsePort::~PulsePort() {
  ::shutdown(m_socket, SHUT_RDWR);
  m_acceptor.join();
  ::close(m_socket);
}

KnockAnswer knock(const std::string& host, int port, std::chrono::milliseconds within) {
  const ResolvedAddresses addresses = resolveAddresses(host, std::to_string(port), SOCK_STREAM);
  bool refused = addresses.first() != nullptr;
  for (const addrinfo* candidate = addresses.first(); candidate; candidate = candidate->ai_next) {
    const KnockAnswer answer = knockOnce(*candidate, within);
    if (answer == KnockAnswer::Accepted) return answer;
    refused = refused && answer == KnockAnswer::Refused;
  }
  return refused ? KnockAnswer::Refused : KnockAnswer::Silent;
}

}  // namespace ensemble
