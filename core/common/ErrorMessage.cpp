// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/ErrorMessage.h"

#include <c10/util/Exception.h>

#include <exception>
#include <new>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/common/LongWords.h"

namespace ensemble {

std::string describeException(const std::exception& error) {
  if (const auto* torchError = dynamic_cast<const c10::Error*>(&error)) return torchError->what_without_backtrace();
  return error.what();
}

bool isHostOutOfMemory(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error)) return true;
  const auto* torchError = dynamic_cast<const c10::Error*>(&error);
  return torchError && torchError->msg().find("can't allocate memory") != std::string::npos;
}

namespace {

/// describeCurrentException's message, whole.
std::string describeWithoutCutting() {
  try {
    throw;
  } catch (const Error& e) {
    return e.what();
  } catch (const c10::Error& e) {
    std::string message = e.what_without_backtrace();
    if (message.find("out of memory") != std::string::npos) {
      message = "out of memory: " + message +
                "; try a smaller " + mention::field("batch_size") + ", a smaller model, or fewer replicas per device";
    } else if (message.find("can't allocate memory") != std::string::npos) {
      message = "out of host memory: " + message +
                "; try a smaller " + mention::field("batch_size") + " or fewer replicas, and set " +
                mention::field("memory_budget_mb") + " so a run that does not fit is refused before it starts";
    }
    return message;
  } catch (const std::bad_alloc&) {
    return "out of host memory; try a smaller " + mention::field("batch_size") + " or fewer replicas";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace

std::string describeCurrentException() { return withLongWordsCut(describeWithoutCutting()); }

}  // namespace ensemble
