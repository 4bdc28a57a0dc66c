// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/CpuThreads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#if AT_PARALLEL_OPENMP
#include <omp.h>
#endif

#ifdef __linux__
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/common/Environment.h"
#include "core/devices/DeviceSpec.h"

namespace ensemble {

int replicaThreadCount(const std::vector<DeviceRef>& devices, bool stacked) {
  if (stacked) return 1;
  if (const char* forced = environment::read(environment::kReplicaThreads); forced && std::atoi(forced) > 0) {
    return std::atoi(forced);
  }
  const bool allCpu = std::all_of(devices.begin(), devices.end(),
                                  [](const DeviceRef& d) { return d.kind == DeviceRef::Kind::Cpu; });
  if (!allCpu) return 1;
  return int(std::max<std::size_t>(1, std::min<std::size_t>(devices.size(), std::thread::hardware_concurrency())));
}

int intraOpThreadCount(const std::vector<DeviceRef>& devices, bool distributed, bool stacked) {
  if (devices.empty() || devices.front().kind != DeviceRef::Kind::Cpu) return 0;
  if ((devices.size() > 1 && !stacked) || distributed) return 1;
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

void useCallerThreadForBlas() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Looked up at run time: libtorch links the generic libblas.so.3, which is OpenBLAS
    // only where the system's alternative points there.
    using SetThreads = void (*)(int);
    if (auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
  });
}

#ifdef __linux__
namespace {
// On Linux nice is a per-thread attribute, addressed by the thread id (not the process id).
id_t currentThreadId() { return static_cast<id_t>(::syscall(SYS_gettid)); }
}  // namespace

void runAtBackgroundPriority() {
  if (currentThreadNiceness() >= kBackgroundNiceness) return;
  // Failure leaves the thread at its priority: training is then only as polite as before.
  ::setpriority(PRIO_PROCESS, currentThreadId(), kBackgroundNiceness);
}

int currentThreadNiceness() {
  errno = 0;  // -1 is also a valid nice value
  const int nice = ::getpriority(PRIO_PROCESS, currentThreadId());
  return errno == 0 ? nice : 0;
}

void nameCurrentThread(const char* name) { ::pthread_setname_np(::pthread_self(), name); }
#else
void runAtBackgroundPriority() {}
int currentThreadNiceness() { return 0; }
void nameCurrentThread(const char*) {}
#endif

namespace {

/// Sets the calling thread's intra-op thread count. With LibTorch's OpenMP backend (Debian's
/// and the wheels') that count is the thread's OpenMP `nthreads-var`, which at::parallel_for
/// and at::get_num_threads read. at::set_num_threads sets it too, but also rebuilds LibTorch's
/// pthreadpool (XNNPACK's and QNNPACK's, which no model here uses), and the new pool's worker
/// spins for its first ~25 ms: measured on a 2-core EPYC, that spin took a core from every
/// evaluation that RunAnalysis scoped (two rebuilds a pass, ~25 ms of a 1,000-image pass's
/// ~78). The caller must have let LibTorch initialise this thread's count first
/// (initialiseThisThreadsIntraOpThreads), or that first initialisation would overwrite ours.
void setThisThreadsIntraOpThreads(int threads) {
#if AT_PARALLEL_OPENMP
  omp_set_num_threads(threads);
#else
  at::set_num_threads(threads);
#endif
}

/// Runs LibTorch's once-per-thread initialisation of the calling thread's intra-op count, for
/// LibTorch and for this binary, and returns the count. It resets the count to the process's
/// default (at::init_num_threads) the first time each copy of the flag that records it is asked
/// on a thread. In LibTorch 2.x that flag is a thread_local in an inline function
/// (at::internal::lazy_init_num_threads) that libtorch_cpu does not export: libtorch_cpu has
/// one copy, which at::get_num_threads asks, and this binary another, which the first
/// at::parallel_for compiled here (our CPU loops) asks. Left to that first loop, the reset
/// undid a guard's count on a thread new to our loops: with the torch wheel's LibTorch 2.15, a
/// count of 3 ran our next parallel_for on 2 threads, the default on two cores (TestTraining).
/// (LibTorch 1.13 exports the function, so there is one flag.)
int initialiseThisThreadsIntraOpThreads() {
  at::internal::lazy_init_num_threads();
  return at::get_num_threads();
}

}  // namespace

IntraOpThreads::IntraOpThreads(int threads) : m_previous(initialiseThisThreadsIntraOpThreads()) {
  if (threads > 0 && threads != m_previous) setThisThreadsIntraOpThreads(threads);
}

IntraOpThreads::~IntraOpThreads() {
  if (at::get_num_threads() != m_previous) setThisThreadsIntraOpThreads(m_previous);
}

}  // namespace ensemble
