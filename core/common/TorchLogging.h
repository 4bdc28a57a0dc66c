// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// LibTorch logs to stderr on its own: c10d's socket time-outs, glog's "Logging before
// InitGoogleLogging()" notice. Each failure it logs reaches the person as our message, which
// says what happened and what to do, so the CLI's output had said it twice, once as a
// timestamped line from socket.cpp. Torch-free header.
namespace ensemble {

/// Keeps LibTorch's log lines to fatal ones, unless the person set TORCH_CPP_LOG_LEVEL or
/// GLOG_minloglevel (then theirs stands: INFO shows everything, for a bug report).
void quietTorchLogging();

}  // namespace ensemble
