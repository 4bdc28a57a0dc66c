// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/RouteToHost.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/comm/AddressLookup.h"
#include "core/comm/PulsePort.h"
#include "core/common/Error.h"

namespace ensemble {
namespace {

std::string advice(const std::string& host) {
  return "; set GLOO_SOCKET_IFNAME to the network interface of this host that reaches " + host +
         " (as `ip route get` shows it), or check --master-addr";
}

std::string numeric(const sockaddr* address, socklen_t length) {
  char text[NI_MAXHOST] = {};
  if (::getnameinfo(address, length, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0) return {};
  return text;
}

}  // namespace

std::string localAddressTowards(const std::string& host) {
  const ResolvedAddresses addresses = resolveAddresses(host, "9", SOCK_DGRAM);
  if (addresses.status != 0) {
    throw DistributedError("cannot find the address of rank 0's host " + host + " (" +
                           ::gai_strerror(addresses.status) + ")" + advice(host));
  }
  std::string lastError = "no address";
  for (const addrinfo* candidate = addresses.first(); candidate; candidate = candidate->ai_next) {
    const int fd = ::socket(candidate->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      lastError = std::strerror(errno);
      continue;
    }
    // connect() on a datagram socket only looks up the route and fixes the source address.
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    const bool routed = ::connect(fd, candidate->ai_addr, candidate->ai_addrlen) == 0 &&
                        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0;
    if (!routed) lastError = std::strerror(errno);
    ::close(fd);
    if (routed) {
      if (std::string address = numeric(reinterpret_cast<sockaddr*>(&local), length); !address.empty()) return address;
    }
  }
  throw DistributedError("no address of this host reaches rank 0's host " + host + " (" + lastError + ")" +
                         advice(host));
}

bool acceptsConnections(const std::string& host, int port, std::chrono::milliseconds within) {
  return knock(host, port, within) == KnockAnswer::Accepted;
}

}  // namespace ensemble
