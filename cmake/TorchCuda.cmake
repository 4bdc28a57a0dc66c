# SPDX-License-Identifier: GPL-3.0-or-later
# Checks on a CUDA LibTorch that CMake's own find_package(Torch) does not make. Functions
# only, so tests can call them with `cmake -P` (tests/cmake/).

# The CUDA version a LibTorch was built for ("13.2"), read from what each distribution
# carries: the PyPI wheel's torch/version.py, or the libtorch zip's build-version
# ("2.15.0+cu132"). Empty when neither says.
function(ensemblelab_torch_cuda_version torch_root out_var)
  set(version "")
  if(EXISTS "${torch_root}/version.py")
    file(STRINGS "${torch_root}/version.py" line REGEX "^cuda[^=]*= *'[0-9.]+'")
    string(REGEX MATCH "'([0-9]+\\.[0-9]+)" _ "${line}")
    set(version "${CMAKE_MATCH_1}")
  elseif(EXISTS "${torch_root}/build-version")
    file(READ "${torch_root}/build-version" line)
    if(line MATCHES "\\+cu([0-9]+)([0-9])")
      set(version "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    endif()
  endif()
  set(${out_var} "${version}" PARENT_SCOPE)
endfunction()

# Stops the configuration when the LibTorch and the CUDA toolkit disagree on CUDA's major
# version: libtorch_cuda needs libcudart.so.<its major>, our code would compile against the
# toolkit's headers and link its libcudart.so.<other major>, and the two runtimes in one
# process fail at the first kernel launch, far from the cause.
function(ensemblelab_require_matching_cuda torch_cuda toolkit_version toolkit_dir)
  if(torch_cuda STREQUAL "")
    message(STATUS "EnsembleLab: this LibTorch does not say which CUDA it was built for; "
                   "not checked against the toolkit's ${toolkit_version}")
    return()
  endif()
  string(REGEX MATCH "^[0-9]+" torch_major "${torch_cuda}")
  string(REGEX MATCH "^[0-9]+" toolkit_major "${toolkit_version}")
  if(NOT torch_major STREQUAL toolkit_major)
    message(FATAL_ERROR
      "EnsembleLab: this LibTorch was built for CUDA ${torch_cuda}, but the CUDA toolkit at "
      "${toolkit_dir} is CUDA ${toolkit_version}; their major versions must match. Either "
      "install the torch build for CUDA ${toolkit_major} (pip install torch --index-url "
      "https://download.pytorch.org/whl/cu${toolkit_major}<minor>), or install the CUDA "
      "${torch_major} toolkit and pass -DCUDAToolkit_ROOT=<its folder>. Nothing was built.")
  endif()
endfunction()

# The NCCL version a nccl.h declares ("2.30.7").
function(ensemblelab_nccl_version header out_var)
  file(STRINGS "${header}" lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  set(parts "")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${part} +([0-9]+)" _ "${lines}")
    list(APPEND parts "${CMAKE_MATCH_1}")
  endforeach()
  list(JOIN parts "." version)
  set(${out_var} "${version}" PARENT_SCOPE)
endfunction()

# Stops the configuration when `architectures` (ENSEMBLELAB_CUDA_ARCHITECTURES) names one older
# than Ampere: the grouped convolution's tensor-core kernels use bf16 and TF32 warp matrix
# functions, which begin with sm_80, and nvcc's own error would not say which setting to change.
# Names without a number ("native", "all") are let through.
function(ensemblelab_require_tensor_core_architectures architectures)
  foreach(arch IN LISTS architectures)
    if(arch MATCHES "^([0-9]+)" AND CMAKE_MATCH_1 LESS 80)
      message(FATAL_ERROR
        "EnsembleLab: ENSEMBLELAB_CUDA_ARCHITECTURES has ${arch}, but our CUDA kernels need sm_80 "
        "(Ampere) or newer for bf16 and TF32 tensor cores. Give 80 or later, e.g. "
        "-DENSEMBLELAB_CUDA_ARCHITECTURES=\"80;90\". Nothing was built.")
    endif()
  endforeach()
endfunction()
