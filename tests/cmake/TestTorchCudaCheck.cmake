# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -P TestTorchCudaCheck.cmake
# Reads the CUDA version of fake LibTorch trees laid out as the wheel and the libtorch zip
# lay them out, then asks for a toolkit of another major version: the last step must stop
# the configuration with the message a user sees (CTest matches it). On the way, GPU
# architectures from Ampere on (and names without a number) pass the tensor-core check, and an
# older one stops it, which a second run of this script asks for (-DOLD_ARCHITECTURE=ON).
include(${SOURCE_DIR}/cmake/TorchCuda.cmake)

ensemblelab_require_tensor_core_architectures("80;86;90;90a;100-real;120-virtual;native")
if(OLD_ARCHITECTURE)
  message(STATUS "TorchCuda: Ampere and newer let through")
  ensemblelab_require_tensor_core_architectures("90;75")
  message(STATUS "TorchCuda: sm_75 was let through")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(WRITE "${WORK_DIR}/wheel/version.py"
     "__version__ = '2.15.0+cu132'\ndebug = False\ncuda: Optional[str] = '13.2'\n")
file(WRITE "${WORK_DIR}/zip/build-version" "2.15.0+cu128\n")
file(MAKE_DIRECTORY "${WORK_DIR}/cpu")

ensemblelab_torch_cuda_version("${WORK_DIR}/wheel" wheel)
ensemblelab_torch_cuda_version("${WORK_DIR}/zip" zip)
ensemblelab_torch_cuda_version("${WORK_DIR}/cpu" cpu)
if(NOT wheel STREQUAL "13.2" OR NOT zip STREQUAL "12.8" OR NOT cpu STREQUAL "")
  message(FATAL_ERROR "read wheel '${wheel}' (13.2), zip '${zip}' (12.8), cpu '${cpu}' ('')")
endif()
ensemblelab_require_matching_cuda("13.2" "13.0.88" "/usr/local/cuda")  # minor versions may differ
message(STATUS "TorchCuda: versions read right")
ensemblelab_require_matching_cuda("${zip}" "13.0.88" "/usr/local/cuda")
message(STATUS "TorchCuda: a CUDA 12 LibTorch with the CUDA 13 toolkit was let through")
