# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DEXECUTABLES="a;b" -DLIBRARIES="libnccl.so;..." [-DSAME_AS=<libtorch_cuda.so>] -P TestLinkedLibraries.cmake
# What the dynamic loader resolves for each executable (ldd) must include every library
# named; with SAME_AS, each must resolve to the very file that library resolves it to, so
# that LibTorch and our code share one CUDA runtime and one NCCL (same soname, one load).
function(resolved_path ldd_output library out_var)
  string(REGEX MATCH "[^\n]*${library}[^\n]*" line "${ldd_output}")
  string(REGEX MATCH "=> ([^ ]+)" _ "${line}")
  set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

set(reference "")
if(SAME_AS)
  execute_process(COMMAND ldd "${SAME_AS}" OUTPUT_VARIABLE reference)
endif()
foreach(executable IN LISTS EXECUTABLES)
  execute_process(COMMAND ldd "${executable}" OUTPUT_VARIABLE resolved RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ldd ${executable} failed (${status})")
  endif()
  foreach(library IN LISTS LIBRARIES)
    resolved_path("${resolved}" "${library}" path)
    if(path STREQUAL "" OR path STREQUAL "not")
      message(FATAL_ERROR "${executable} does not load ${library}:\n${resolved}")
    endif()
    get_filename_component(path "${path}" REALPATH)
    message(STATUS "${executable}: ${library} => ${path}")
    resolved_path("${reference}" "${library}" expected)
    if(NOT expected STREQUAL "")
      get_filename_component(expected "${expected}" REALPATH)
      if(NOT path STREQUAL expected)
        message(FATAL_ERROR "${executable} loads ${path}, but ${SAME_AS} wants ${expected}: two different "
                            "${library} in one process")
      endif()
    endif()
  endforeach()
endforeach()
