// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/metrics/TestSetChange.h"

namespace ensemble {

std::string changedTestSetNote(const EvaluationResult& then, const EvaluationResult& now) {
  if (then.samples != now.samples) {
    return "the run's dataset changed since it trained: it was scored on " + std::to_string(then.samples) +
           " test images (summary.json), its dataset now gives " + std::to_string(now.samples) +
           "; these numbers are on the images there now";
  }
  // As many images, other ones (or other labels): the files were replaced since. Runs
  // written before the fingerprint was recorded, and shifted sets, carry none.
  if (!then.testSetDigest.empty() && !now.testSetDigest.empty() && then.testSetDigest != now.testSetDigest) {
    return "the run's dataset changed since it trained: its " + std::to_string(now.samples) +
           " test images or their labels differ from those it was scored on (summary.json's test_set_crc32 " +
           then.testSetDigest + ", now " + now.testSetDigest + "); these numbers are on the images there now";
  }
  return {};
}

}  // namespace ensemble
