// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs the replicas of one step side by side: a few persistent threads (one per core, the
// caller included) take replica indices until none are left. The replicas of an ensemble
// or a data-parallel step are independent until their averages, so this changes no
// result, only how many cores a step uses: LibTorch runs each on one intra-op thread.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ensemble {

class ReplicaWorkers final {
 public:
  /// `threads` in all, the caller's included; 1 runs everything on the caller.
  explicit ReplicaWorkers(int threads);
  ~ReplicaWorkers();
  ReplicaWorkers(const ReplicaWorkers&) = delete;
  ReplicaWorkers& operator=(const ReplicaWorkers&) = delete;

  /// Calls job(i) for i in [0, count), spread over the threads, and returns when all are
  /// done. The first exception a job throws is rethrown here (after the others finish).
  void forEach(std::size_t count, const std::function<void(std::size_t)>& job);

  int threads() const { return int(m_threads.size()) + 1; }

 private:
  void work();
  void drain();

  std::vector<std::thread> m_threads;
  std::mutex m_mutex;
  std::condition_variable m_wake, m_done;
  const std::function<void(std::size_t)>* m_job = nullptr;
  std::size_t m_count = 0, m_next = 0, m_finished = 0;
  std::size_t m_generation = 0;
  std::exception_ptr m_error;
  bool m_stopping = false;
};

}  // namespace ensemble
