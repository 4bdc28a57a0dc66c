// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/Heartbeat.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace ensemble {

struct Heartbeat::Shared {
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  bool stopped = false;
};

Heartbeat::Heartbeat(c10::intrusive_ptr<c10d::Store> store, std::string key, std::chrono::milliseconds period)
    : m_shared(std::make_shared<Shared>()) {
  std::thread([shared = m_shared, store = std::move(store), key = std::move(key), period] {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(shared->mutex);
        if (shared->wake.wait_for(lock, period, [&] { return shared->stopping; })) break;
      }
      // Outside the lock: this call may never return (see the header).
      try {
        store->add(key, 1);
      } catch (const std::exception&) {
        break;  // the store is gone (rank 0 ended); a failing collective will say so
      }
    }
    {
      std::lock_guard<std::mutex> lock(shared->mutex);
      shared->stopped = true;
    }
    shared->wake.notify_all();
  }).detach();
}

Heartbeat::~Heartbeat() {
  std::unique_lock<std::mutex> lock(m_shared->mutex);
  m_shared->stopping = true;
  m_shared->wake.notify_all();
  // The thread is detached from the start; waiting for its `stopped` is the join, bounded.
  m_shared->wake.wait_for(lock, kStopBound, [this] { return m_shared->stopped; });
}

}  // namespace ensemble
