// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <string>
#include <system_error>

namespace ensemble {

/// Removes `path` and everything under it, as `rm -rf` does, without following symbolic links.
/// A path that does not exist is not an error. Returns false, with `error` set to the first
/// failure, where something could not be removed; what could be removed is gone.
///
/// Why not std::filesystem::remove_all: the PyPI torch wheels' libtorch exports a copy of
/// std::filesystem built with another libstdc++, and a program that does not name libstdc++
/// before libtorch binds its calls to that copy. Under GCC 13's runtime the copy's remove_all
/// jumped to address 0: every ensemble-lab-bench run on the GPU machine (torch 2.11 wheel,
/// GCC 13.3) died in it (docs/GPU.md, "Why the bench crashed"). Our programs now link
/// libstdc++ first (CMakeLists.txt); this keeps the call that crashed out of that copy's reach
/// in any program that links our library without doing so.
bool removeTree(const std::string& path, std::error_code& error);

}  // namespace ensemble
