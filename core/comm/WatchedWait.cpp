// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/WatchedWait.h"

namespace ensemble {

void waitWatchingPeers(c10d::Work& work, std::chrono::milliseconds slice, const std::function<std::string()>& gonePeer) {
  for (;;) {
    try {
      work.wait(slice);
      return;
    } catch (const std::exception&) {
      // Work::wait(timeout) throws both the operation's error and "the time is up". A
      // finished operation (perhaps just after the time was up) says which, without a limit.
      if (work.isCompleted()) {
        work.wait();
        return;
      }
    }
    if (std::string gone = gonePeer(); !gone.empty()) throw PeerGone(gone);
  }
}

}  // namespace ensemble
