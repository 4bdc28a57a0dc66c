// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/TorchLogging.h"

#include <c10/util/Logging.h>

#include "core/common/Environment.h"

namespace ensemble {

void quietTorchLogging() {
  if (environment::read(environment::kTorchCppLogLevel) || environment::read(environment::kGlogMinLogLevel)) return;
  // Both libraries read their variable as they load, before main: setting it now would be
  // too late, so the level is set where each keeps it.
#ifdef C10_USE_GLOG
  FLAGS_minloglevel = google::GLOG_FATAL;  // Debian's LibTorch logs through glog
#else
  FLAGS_caffe2_log_level = c10::GLOG_FATAL;  // the wheel's, through c10's own logger
#endif
}

}  // namespace ensemble
