// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/BrokenPipes.h"

#include <csignal>

namespace ensemble {

void ignoreBrokenPipes() {
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) != 0) return;
  if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) return;  // the program's own choice
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, nullptr);
}

}  // namespace ensemble
