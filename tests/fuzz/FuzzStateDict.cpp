// SPDX-License-Identifier: GPL-3.0-or-later
// `train --init-from`'s reader of state_dicts PyTorch saved (core/io/PyTorchStateDict.h):
// the input is the file. A file that loads gives named, defined, contiguous tensors; any
// other is refused with a message (an ensemble::Error), never a crash or a hang.
// Seeds (corpus/FuzzStateDict): torch.save of tests/init_from_fixtures.py's views() (pickle
// protocols 2 and 4), of a list, of a whole nn.Linear, of a dict around a state_dict, and a
// Conv2d + BatchNorm2d state_dict (num_batches_tracked, a 0-d int64).
#include <torch/torch.h>

#include "core/io/PyTorchStateDict.h"
#include "tests/fuzz/FuzzContract.h"

namespace {
std::string g_file;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_file = fuzzing::scratchPath("state_dict.pt");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzzing::writeScratch(g_file, data, size);
  fuzzing::expectParsedOrRejected([&] {
    for (const auto& item : ensemble::readPyTorchStateDict(g_file)) {
      fuzzing::require(item.value().defined() && item.value().is_contiguous(), "a loaded tensor is undefined or strided");
    }
  });
  return 0;
}
