# After find_package(Torch): make TORCH_LIBRARIES name only that LibTorch's own libraries.
# TorchConfig.cmake looks for libc10 with find_library(... PATHS <torch>/lib), and PATHS come
# after the system's folders: on a machine that also has Debian's libtorch-dev, a torch
# wheel's build would link Debian's libc10.so.1.13 beside the wheel's libc10.so, and two
# LibTorch versions would meet in one process (it aborts at start-up with an internal
# assert in DispatchKeySet).
function(ensemblelab_use_torchs_own_libraries)
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
    set(libraries ${TORCH_LIBRARIES})
    list(TRANSFORM libraries REPLACE "^${found}$" "${ENSEMBLELAB_TORCH_${name}}")
    set(TORCH_LIBRARIES "${libraries}" PARENT_SCOPE)
    set(${name}_LIBRARY "${ENSEMBLELAB_TORCH_${name}}" CACHE FILEPATH "LibTorch's ${name}" FORCE)
  endforeach()
endfunction()
