// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/AddressLookup.h"

#include <sys/socket.h>

namespace ensemble {

ResolvedAddresses resolveAddresses(const std::string& host, const std::string& service, int socketType, int flags) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = socketType;
  hints.ai_flags = flags;
  addrinfo* found = nullptr;
  ResolvedAddresses resolved;
  resolved.status = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (resolved.status == 0) resolved.list.reset(found);
  return resolved;
}

}  // namespace ensemble
