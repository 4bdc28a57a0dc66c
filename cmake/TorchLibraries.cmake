# SPDX-License-Identifier: GPL-3.0-or-later
# After find_package(Torch): make TORCH_LIBRARIES name only that LibTorch's own libraries.
#
# 1. TorchConfig.cmake looks for libc10 with find_library(... PATHS <torch>/lib), and PATHS come
# after the system's folders: on a machine that also has Debian's libtorch-dev, a torch
# wheel's build would link Debian's libc10.so.1.13 beside the wheel's libc10.so, and two
# LibTorch versions would meet in one process (it aborts at start-up with an internal
# assert in DispatchKeySet).
# 2. A torch wheel carries its own CUDA libraries (nvidia/cu<major>/lib), newer than the
# toolkit's, and libtorch_cuda loads those; torch's config links the toolkit's cudart and
# nvrtc, whose sonames are the same, so they would be loaded in their place. CUDA::cudart,
# CUDA::nvrtc and the nvrtc in TORCH_LIBRARIES are pointed at the wheel's copies.
function(ensemblelab_use_torchs_own_libraries)
  set(ENSEMBLELAB_TORCH_CUDA_LIBS "the CUDA toolkit (${CUDAToolkit_LIBRARY_DIR})" PARENT_SCOPE)
  set(libraries ${TORCH_LIBRARIES})
  file(GLOB wheel_cuda_dirs LIST_DIRECTORIES true "${TORCH_INSTALL_PREFIX}/../nvidia/cu*/lib")
  if(wheel_cuda_dirs)
    list(GET wheel_cuda_dirs 0 wheel_cuda_libs)
    get_filename_component(wheel_cuda_libs "${wheel_cuda_libs}" ABSOLUTE)
    set(ENSEMBLELAB_TORCH_CUDA_LIBS "the torch wheel (${wheel_cuda_libs})" PARENT_SCOPE)
    foreach(name cudart nvrtc)
      file(GLOB wheel_copy "${wheel_cuda_libs}/lib${name}.so.[0-9]*")
      list(FILTER wheel_copy EXCLUDE REGEX "builtins|alt")
      if(NOT wheel_copy)
        continue()
      endif()
      list(GET wheel_copy 0 wheel_copy)
      if(TARGET CUDA::${name})
        set_target_properties(CUDA::${name} PROPERTIES IMPORTED_LOCATION "${wheel_copy}")
      endif()
      if(name STREQUAL "nvrtc" AND CUDA_NVRTC_LIB)
        list(TRANSFORM libraries REPLACE "^${CUDA_NVRTC_LIB}$" "${wheel_copy}")
        if(TARGET caffe2::nvrtc_runtime)
          set_property(TARGET caffe2::nvrtc_runtime PROPERTY INTERFACE_LINK_LIBRARIES "${wheel_copy}")
        endif()
      endif()
    endforeach()
  endif()

  foreach(name c10)
    set(found "${${name}_LIBRARY}")
    if(NOT found)
      continue()
    endif()
    string(FIND "${found}" "${TORCH_INSTALL_PREFIX}/" position)
    if(position EQUAL 0)
      continue()
    endif()
    find_library(ENSEMBLELAB_TORCH_${name} ${name} PATHS "${TORCH_INSTALL_PREFIX}/lib" NO_DEFAULT_PATH)
    if(NOT ENSEMBLELAB_TORCH_${name})
      message(FATAL_ERROR "EnsembleLab: the LibTorch at ${TORCH_INSTALL_PREFIX} has no lib${name}; "
                          "CMake found ${found}, another LibTorch's. Point CMAKE_PREFIX_PATH at a whole LibTorch.")
    endif()
    message(STATUS "EnsembleLab: LibTorch's config found ${found} (another LibTorch); "
                   "using ${ENSEMBLELAB_TORCH_${name}}")
    list(TRANSFORM libraries REPLACE "^${found}$" "${ENSEMBLELAB_TORCH_${name}}")
    set(${name}_LIBRARY "${ENSEMBLELAB_TORCH_${name}}" CACHE FILEPATH "LibTorch's ${name}" FORCE)
  endforeach()
  set(TORCH_LIBRARIES "${libraries}" PARENT_SCOPE)
endfunction()
