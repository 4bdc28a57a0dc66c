#include "core/common/ErrorMessage.h"

#include <c10/util/Exception.h>

#include <exception>
#include <new>

#include "core/common/Error.h"

namespace ensemble {

std::string describeCurrentException() {
  try {
    throw;
  } catch (const Error& e) {
    return e.what();
  } catch (const c10::Error& e) {
    std::string message = e.what_without_backtrace();
    if (message.find("out of memory") != std::string::npos) {
      message = "out of memory: " + message +
                "; try a smaller --batch-size, a smaller model, or fewer replicas per device";
    } else if (message.find("can't allocate memory") != std::string::npos) {
      message = "out of host memory: " + message +
                "; try a smaller --batch-size or fewer replicas, and set --memory-budget so a run that "
                "does not fit is refused before it starts";
    }
    return message;
  } catch (const std::bad_alloc&) {
    return "out of host memory; try a smaller --batch-size or fewer replicas";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace ensemble
