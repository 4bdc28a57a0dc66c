// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/RunControl.h"

#include <chrono>

namespace ensemble {

void RunControl::requestStop() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop.store(true);
  }
  m_wake.notify_all();
}

void RunControl::pause() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_pause.store(true);
}

void RunControl::unpause() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pause.store(false);
  }
  m_wake.notify_all();
}

bool RunControl::waitWhilePaused() {
  std::unique_lock<std::mutex> lock(m_mutex);
  if (!m_pause.load() || m_stop.load()) return false;
  m_parked.store(true);
  // Poll as well as wait: requestStopFromSignal() cannot notify.
  while (m_pause.load() && !m_stop.load()) {
    m_wake.wait_for(lock, std::chrono::milliseconds(100));
  }
  m_parked.store(false);
  return true;
}

}  // namespace ensemble
