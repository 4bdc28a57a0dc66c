// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Who owns the CPU cores during a run. Either several replicas run side by side, one per
// core (ReplicaWorkers), each on one intra-op thread; or a single CPU replica gets every
// core as LibTorch intra-op threads. In both cases OpenBLAS must not start threads of its
// own: measured here, its idle threads spinning against ours cost the CNN ensemble about
// 30% (docs/BENCHMARKS.md).

#include <vector>

namespace ensemble {

struct DeviceRef;

/// Threads for a step's replicas (ReplicaWorkers): one per core for CPU replicas, each on
/// one intra-op thread, unless environment::kReplicaThreads says otherwise; GPUs queue
/// their work asynchronously, so one thread drives them. Stacked members are one network:
/// one thread.
int replicaThreadCount(const std::vector<DeviceRef>& devices, bool stacked);

/// LibTorch intra-op threads for the thread that drives the run: every core when one CPU
/// replica (or one stacked network) has the machine to itself, one when replicas share the
/// cores (side by side, or with other processes of a group on this host); 0 (unchanged)
/// for GPUs.
int intraOpThreadCount(const std::vector<DeviceRef>& devices, bool distributed, bool stacked);

/// Tells OpenBLAS (when it is the loaded BLAS) to run each call on its caller's thread.
/// Idempotent; does nothing with another BLAS.
void useCallerThreadForBlas();

/// The nice value runAtBackgroundPriority() gives a thread: low enough that an interactive
/// thread at the default 0 gets a core as soon as it wakes (CFS weights 1024 against 110).
constexpr int kBackgroundNiceness = 10;

/// Lowers the calling thread's CPU priority to kBackgroundNiceness (never raises it): the
/// GUI's training thread calls it so that training, which keeps every core busy, cannot
/// starve the event loop. Threads created afterwards by this thread (replica workers,
/// LibTorch's intra-op pool) inherit it on Linux. When nothing else wants the cores the
/// training runs as fast as before. Does nothing on systems without per-thread nice values.
void runAtBackgroundPriority();

/// The calling thread's nice value on Linux; 0 elsewhere.
int currentThreadNiceness();

/// Names the calling thread (at most 15 characters on Linux) for top, gdb and /proc.
void nameCurrentThread(const char* name);

/// Sets the calling thread's LibTorch intra-op thread count for the guard's lifetime.
class IntraOpThreads final {
 public:
  explicit IntraOpThreads(int threads);
  ~IntraOpThreads();
  IntraOpThreads(const IntraOpThreads&) = delete;
  IntraOpThreads& operator=(const IntraOpThreads&) = delete;

 private:
  int m_previous;
};

}  // namespace ensemble
