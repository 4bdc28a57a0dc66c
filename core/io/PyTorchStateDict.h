// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads a state_dict that Python's torch.save wrote: `torch.save(model.state_dict(), F)`.
// LibTorch's own unpickler cannot: a state_dict is a collections.OrderedDict, which it
// turns into None (it expects OrderedDicts only inside tensors' backward hooks). So this
// runs the few pickle opcodes torch.save emits for one (protocols 2 to 5): dicts, tuples,
// strings, numbers, the memo, and the two calls that rebuild a tensor from its storage
// record. Anything else (a pickled module, a custom class) is refused by name: no code
// from the file is ever run.
#include <string>

#include "core/common/TensorDict.h"

namespace ensemble {

/// The tensors of the state_dict in the torch.save file at `path`, by name, in the file's
/// order, each contiguous and on the CPU. Throws CheckpointError naming the file and what
/// is wrong: not a torch.save file, the legacy (pre-1.6) format, truncated or damaged, or
/// not a state_dict (a list, a whole model, a dict of other things: the first such entry).
TensorDict readPyTorchStateDict(const std::string& path);

}  // namespace ensemble
