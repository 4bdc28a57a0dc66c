// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/ListeningSocket.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include "core/comm/AddressLookup.h"
#include "core/common/Error.h"

namespace ensemble {

int listenOn(const std::string& host, int port) {
  const std::string service = std::to_string(port);
  const ResolvedAddresses addresses = resolveAddresses(host, service, SOCK_STREAM, AI_PASSIVE);
  if (addresses.status != 0) {
    throw DistributedError("rank 0 cannot serve the rendezvous on " + host + ": the name does not resolve (" +
                           ::gai_strerror(addresses.status) + "); --master-addr must be an address of rank 0's host");
  }
  int lastError = 0;
  for (const addrinfo* candidate = addresses.first(); candidate; candidate = candidate->ai_next) {
    const int fd = ::socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC, candidate->ai_protocol);
    if (fd < 0) {
      lastError = errno;
      continue;
    }
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);  // a port in TIME_WAIT is free
    if (::bind(fd, candidate->ai_addr, candidate->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) return fd;
    lastError = errno;
    ::close(fd);
  }
  const std::string where = host + ":" + service;
  if (lastError == EADDRNOTAVAIL) {
    throw DistributedError("rank 0 cannot serve the rendezvous on " + where + ": " + host +
                           " is not an address of this host; start rank 0 on the host --master-addr names, "
                           "with --master-addr one of its own addresses");
  }
  throw DistributedError("rank 0 could not serve the rendezvous on " + where + " (" + std::strerror(lastError) +
                         "); the port is probably in use by another run or program: choose another --master-port "
                         "for every rank");
}

}  // namespace ensemble
