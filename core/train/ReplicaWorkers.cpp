// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/ReplicaWorkers.h"

#include "core/train/CpuThreads.h"

namespace ensemble {

ReplicaWorkers::ReplicaWorkers(int threads) {
  for (int i = 1; i < threads; ++i) m_threads.emplace_back([this] { work(); });
}

ReplicaWorkers::~ReplicaWorkers() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  for (auto& thread : m_threads) thread.join();
}

void ReplicaWorkers::forEach(std::size_t count, const std::function<void(std::size_t)>& job) {
  if (m_threads.empty() || count <= 1) {
    for (std::size_t i = 0; i < count; ++i) job(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_job = &job;
    m_count = count;
    m_next = 0;
    m_finished = 0;
    m_error = nullptr;
    ++m_generation;
  }
  m_wake.notify_all();
  drain();
  std::unique_lock<std::mutex> lock(m_mutex);
  m_done.wait(lock, [this] { return m_finished == m_count; });
  m_job = nullptr;
  if (m_error) std::rethrow_exception(m_error);
}

void ReplicaWorkers::drain() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (m_job && m_next < m_count) {
    const std::size_t index = m_next++;
    const auto* job = m_job;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*job)(index);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !m_error) m_error = error;
    if (++m_finished == m_count) m_done.notify_all();
  }
}

void ReplicaWorkers::work() {
  nameCurrentThread("replica");
  const IntraOpThreads oneThread(1);  // each replica on one core; the workers are the parallelism
  std::size_t seen = 0;
  std::unique_lock<std::mutex> lock(m_mutex);
  for (;;) {
    m_wake.wait(lock, [&] { return m_stopping || m_generation != seen; });
    if (m_stopping) return;
    seen = m_generation;
    lock.unlock();
    drain();
    lock.lock();
  }
}

}  // namespace ensemble
