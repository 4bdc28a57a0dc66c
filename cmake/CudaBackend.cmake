# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU half of the engine, for a CUDA LibTorch (e.g. the PyPI torch wheel, see
# scripts/build-cuda.sh): the CUDA runtime for device queries, NCCL for several GPUs in one
# process, and c10d's ProcessGroupNCCL across processes. Included by core/CMakeLists.txt;
# configures the target ensemble_core. With a CPU LibTorch it does nothing.
include(${PROJECT_SOURCE_DIR}/cmake/TorchCuda.cmake)

if(NOT (TARGET torch_cuda OR TORCH_CUDA_LIBRARIES))
  message(STATUS "EnsembleLab: LibTorch without CUDA (${TORCH_INSTALL_PREFIX}): CPU replicas only")
  return()
endif()

# torch's own config has found the toolkit (find_package(CUDAToolkit)) by now.
ensemblelab_torch_cuda_version("${TORCH_INSTALL_PREFIX}" ENSEMBLELAB_TORCH_CUDA_VERSION)
ensemblelab_require_matching_cuda("${ENSEMBLELAB_TORCH_CUDA_VERSION}" "${CUDAToolkit_VERSION}"
                                  "${CUDAToolkit_BIN_DIR}/..")
target_compile_definitions(ensemble_core PUBLIC ENSEMBLELAB_WITH_CUDA=1)
# cudaGetDeviceCount's own error text says why a machine has no usable GPU; CUDA::cudart is
# the runtime libtorch_cuda loads (the wheel's own: see cmake/TorchLibraries.cmake).
target_link_libraries(ensemble_core PRIVATE CUDA::cudart)
# Training steps captured in CUDA graphs (core/train/CudaGraphStep.cpp): ATen's CUDA headers
# stay out of the other sources' unity batches.
target_compile_definitions(ensemble_core PRIVATE ENSEMBLELAB_WITH_CUDA_GRAPHS=1)
set_source_files_properties(${PROJECT_SOURCE_DIR}/core/train/CudaGraphStep.cpp
                            PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
message(STATUS "EnsembleLab: LibTorch ${Torch_VERSION} for CUDA ${ENSEMBLELAB_TORCH_CUDA_VERSION}, "
               "CUDA toolkit ${CUDAToolkit_VERSION}, CUDA libraries of ${ENSEMBLELAB_TORCH_CUDA_LIBS}")

# Our own CUDA kernels (the fused ReLU + average pool, the fused first layer, the grouped
# convolution), compiled by the toolkit's nvcc for
# Ampere (sm_80) and Hopper (sm_90) by default, against the shared runtime LibTorch uses, so
# both launch on the same streams. (torch's CMake config may have enabled CUDA already, with
# its own guess of the architectures: ours are a property of our target.)
set(ENSEMBLELAB_CUDA_ARCHITECTURES "80;90" CACHE STRING "GPU architectures of EnsembleLab's CUDA kernels")
ensemblelab_require_tensor_core_architectures("${ENSEMBLELAB_CUDA_ARCHITECTURES}")
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  enable_language(CUDA)
  # torch's config appends -gencode flags for its own architecture list (compute_50 among
  # them, which CUDA 13's nvcc refuses) to CMAKE_CUDA_FLAGS; in core/ they give way to ours.
  string(REGEX REPLACE "-gencode[ =]+arch=[^ ]+" "" CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS}")
  target_sources(ensemble_core PRIVATE ${PROJECT_SOURCE_DIR}/core/models/ReluAvgPoolKernels.cu
                                       ${PROJECT_SOURCE_DIR}/core/models/ConvReluPoolKernels.cu
                                       ${PROJECT_SOURCE_DIR}/core/models/GroupedConvKernels.cu
                                       ${PROJECT_SOURCE_DIR}/core/models/FusedLayersCuda.cpp)
  # ATen's CUDA headers stay out of the other sources' unity batches; each kernel file keeps its
  # own translation unit, as their headers' file-local constants (kThreads) would clash in one.
  set_source_files_properties(${PROJECT_SOURCE_DIR}/core/models/FusedLayersCuda.cpp
                              ${PROJECT_SOURCE_DIR}/core/models/ReluAvgPoolKernels.cu
                              ${PROJECT_SOURCE_DIR}/core/models/ConvReluPoolKernels.cu
                              ${PROJECT_SOURCE_DIR}/core/models/GroupedConvKernels.cu
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON SKIP_PRECOMPILE_HEADERS ON)
  set_target_properties(ensemble_core PROPERTIES CUDA_RUNTIME_LIBRARY Shared CUDA_STANDARD 17
                                                 CUDA_ARCHITECTURES "${ENSEMBLELAB_CUDA_ARCHITECTURES}")
  target_compile_definitions(ensemble_core PRIVATE ENSEMBLELAB_WITH_CUDA_KERNELS=1)
  message(STATUS "EnsembleLab: CUDA kernels for architectures ${ENSEMBLELAB_CUDA_ARCHITECTURES} "
                 "(nvcc ${CMAKE_CUDA_COMPILER_VERSION})")
else()
  message(STATUS "EnsembleLab: no nvcc: the GPU runs LibTorch's unfused convolution, ReLU and avg_pool2d")
endif()

# NCCL, looked for in this order; the first place holding both nccl.h and libnccl wins:
#   1. NCCL_ROOT (CMake variable or environment), and only there when it is set;
#   2. the nvidia-nccl wheel beside the torch wheel: the NCCL libtorch_cuda itself loads, so
#      the headers we compile against match the library in the process;
#   3. the CUDA toolkit's folders; 4. the system's default paths.
option(ENSEMBLELAB_NCCL "Build the NCCL communicator and c10d's NCCL process group (CUDA LibTorch)" ON)
if(NOT ENSEMBLELAB_NCCL)
  message(STATUS "EnsembleLab: NCCL off (-DENSEMBLELAB_NCCL=OFF): several GPUs average through the host")
  return()
endif()

function(_ensemblelab_find_nccl origin)
  cmake_parse_arguments(ARG "DEFAULT_PATHS" "" "PATHS" ${ARGN})
  set(search NO_DEFAULT_PATH)
  if(ARG_DEFAULT_PATHS)
    set(search "")
  endif()
  unset(ENSEMBLELAB_NCCL_INCLUDE_DIR CACHE)
  unset(ENSEMBLELAB_NCCL_LIBRARY CACHE)
  find_path(ENSEMBLELAB_NCCL_INCLUDE_DIR nccl.h PATHS ${ARG_PATHS} PATH_SUFFIXES include ${search})
  find_library(ENSEMBLELAB_NCCL_LIBRARY NAMES nccl libnccl.so.2 PATHS ${ARG_PATHS}
               PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu ${search})
  if(ENSEMBLELAB_NCCL_INCLUDE_DIR AND ENSEMBLELAB_NCCL_LIBRARY)
    set(ENSEMBLELAB_NCCL_ORIGIN "${origin}" PARENT_SCOPE)
  endif()
endfunction()

set(ENSEMBLELAB_NCCL_ORIGIN "")
if(NOT NCCL_ROOT AND DEFINED ENV{NCCL_ROOT})
  set(NCCL_ROOT "$ENV{NCCL_ROOT}")
endif()
get_filename_component(_nccl_wheel "${TORCH_INSTALL_PREFIX}/../nvidia/nccl" ABSOLUTE)
if(NCCL_ROOT)
  _ensemblelab_find_nccl("NCCL_ROOT" PATHS "${NCCL_ROOT}")
  if(NOT ENSEMBLELAB_NCCL_ORIGIN)
    message(FATAL_ERROR "EnsembleLab: NCCL_ROOT is ${NCCL_ROOT}, but it holds no include/nccl.h "
                        "with lib/libnccl.so: point NCCL_ROOT at NCCL's folder, or unset it to "
                        "search the torch wheel's nvidia-nccl and the CUDA toolkit. Nothing was built.")
  endif()
endif()
if(NOT ENSEMBLELAB_NCCL_ORIGIN)
  _ensemblelab_find_nccl("the nvidia-nccl wheel" PATHS "${_nccl_wheel}")
endif()
if(NOT ENSEMBLELAB_NCCL_ORIGIN)
  _ensemblelab_find_nccl("the CUDA toolkit" PATHS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_DIR}
                         "${CUDAToolkit_BIN_DIR}/..")
endif()
if(NOT ENSEMBLELAB_NCCL_ORIGIN)
  _ensemblelab_find_nccl("the system" DEFAULT_PATHS)
endif()
if(NOT ENSEMBLELAB_NCCL_ORIGIN)
  message(FATAL_ERROR
    "EnsembleLab: this LibTorch is built with CUDA, but NCCL was not found (looked in "
    "${_nccl_wheel}, the CUDA toolkit at ${CUDAToolkit_BIN_DIR}/.., and the system). "
    "Install it: `pip install nvidia-nccl-cu${CUDAToolkit_VERSION_MAJOR}` into torch's "
    "environment, or Debian/Ubuntu's libnccl-dev; or pass -DNCCL_ROOT=<folder with "
    "include/nccl.h and lib/libnccl.so>; or -DENSEMBLELAB_NCCL=OFF to build without it "
    "(several GPUs then average through the host). Nothing was built.")
endif()

ensemblelab_nccl_version("${ENSEMBLELAB_NCCL_INCLUDE_DIR}/nccl.h" ENSEMBLELAB_NCCL_VERSION)
target_include_directories(ensemble_core PRIVATE ${ENSEMBLELAB_NCCL_INCLUDE_DIR})
target_link_libraries(ensemble_core PRIVATE ${ENSEMBLELAB_NCCL_LIBRARY})
target_compile_definitions(ensemble_core PRIVATE ENSEMBLELAB_WITH_NCCL=1)
message(STATUS "EnsembleLab: NCCL ${ENSEMBLELAB_NCCL_VERSION} from ${ENSEMBLELAB_NCCL_ORIGIN} "
               "(${ENSEMBLELAB_NCCL_LIBRARY})")

# c10d's NCCL process group (--backend nccl across processes) is compiled into a CUDA
# LibTorch; its header needs USE_C10D_NCCL.
find_path(ENSEMBLELAB_C10D_NCCL_INCLUDE_DIR torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp
          HINTS ${TORCH_INCLUDE_DIRS})
if(ENSEMBLELAB_C10D_NCCL_INCLUDE_DIR AND ENSEMBLELAB_WITH_C10D)
  target_compile_definitions(ensemble_core PRIVATE ENSEMBLELAB_WITH_C10D_NCCL=1 USE_C10D_NCCL)
  message(STATUS "EnsembleLab: c10d process groups with NCCL")
else()
  message(STATUS "EnsembleLab: no c10d ProcessGroupNCCL in this LibTorch: GPU ranks across processes average "
                 "through Gloo on the host (--backend gloo), where it is built")
endif()
