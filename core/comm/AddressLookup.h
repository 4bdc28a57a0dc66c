// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// getaddrinfo with its list owned: what every place that turns a host name into sockets
// (the store's listening socket, the route towards rank 0, the reachability probe) asks.
// Torch-free.
#include <netdb.h>

#include <memory>
#include <string>

namespace ensemble {

struct ResolvedAddresses {
  /// getaddrinfo's status: 0, or an EAI_* code for gai_strerror.
  int status = 0;
  /// The candidates in getaddrinfo's order (empty when status is not 0).
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list{nullptr, &::freeaddrinfo};

  const addrinfo* first() const { return list.get(); }
};

/// The addresses of `host` for `service` (a port number) and sockets of `socketType`
/// (SOCK_STREAM, SOCK_DGRAM), IPv4 and IPv6; `flags` as getaddrinfo's (AI_PASSIVE).
ResolvedAddresses resolveAddresses(const std::string& host, const std::string& service, int socketType, int flags = 0);

}  // namespace ensemble
