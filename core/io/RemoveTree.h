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
/// std::filesystem (built with the wheel's older libstdc++), and the dynamic linker binds our
/// calls to it ahead of the system libstdc++. Under GCC 13's runtime that copy's remove_all
/// jumps to address 0: every ensemble-lab-bench run on the GPU machine (torch 2.11 wheel,
/// GCC 13.3) died in it with SIGSEGV (docs/GPU.md, "Why the bench crashed").
bool removeTree(const std::string& path, std::error_code& error);

}  // namespace ensemble
