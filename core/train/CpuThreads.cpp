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
/// (at::get_num_threads does), or that first initialisation would overwrite ours.
void setThisThreadsIntraOpThreads(int threads) {
#if AT_PARALLEL_OPENMP
  omp_set_num_threads(threads);
#else
  at::set_num_threads(threads);
#endif
}

}  // namespace

IntraOpThreads::IntraOpThreads(int threads) : m_previous(at::get_num_threads()) {
  if (threads > 0 && threads != m_previous) setThisThreadsIntraOpThreads(threads);
}

IntraOpThreads::~IntraOpThreads() {
  if (at::get_num_threads() != m_previous) setThisThreadsIntraOpThreads(m_previous);
}

}  // namespace ensemble
