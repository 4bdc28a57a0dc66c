# SPDX-License-Identifier: GPL-3.0-or-later
# Sanitizer and fuzzing builds of our own code (LibTorch and Qt stay as Debian built them).
#
#   -DENSEMBLELAB_SANITIZE=address,undefined   ASan + UBSan (scripts/sanitize.sh)
#   -DENSEMBLELAB_SANITIZE=thread              TSan, for the tests that cross threads
#   -DENSEMBLELAB_FUZZ=ON (with clang)          libFuzzer harnesses in tests/fuzz (scripts/fuzz.sh)
set(ENSEMBLELAB_SANITIZE "" CACHE STRING "Sanitizers for our code: address,undefined or thread")
option(ENSEMBLELAB_FUZZ "Build the libFuzzer harnesses (needs clang)" OFF)

if(ENSEMBLELAB_SANITIZE)
  message(STATUS "EnsembleLab: building with -fsanitize=${ENSEMBLELAB_SANITIZE}")
  # -O1 -g1 (after the build type's flags, so they win): what the sanitizers' authors
  # recommend, line numbers in every report, and 40% less compile time than -O2 -g
  # (TestTraining.cpp: 32 s against 55 s), which keeps CI's sanitizer stage in its budget.
  add_compile_options(-fsanitize=${ENSEMBLELAB_SANITIZE} -fno-omit-frame-pointer -O1 -g1)
  add_link_options(-fsanitize=${ENSEMBLELAB_SANITIZE})
  if(ENSEMBLELAB_SANITIZE MATCHES "undefined")
    # Undefined behaviour is an error, not a line in a log that a passing test hides.
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

# For tests/: the tests learn they run sanitized from ENSEMBLELAB_SANITIZED (to allow for the
# slowdown). Under ASan + UBSan their own code is left uninstrumented: it sets runs up and
# compares what comes back, and instrumenting it tripled its compile time (TestCli.cpp: 55
# against 19 CPU-seconds), 1,113 of the stage's 2,450 build CPU-seconds on a 2-core AMD EPYC.
# Every test still links the runtimes, so every allocation, and all of our code under test
# (core/, ui/, app/), is checked. Under TSan every access must be seen: all stays instrumented.
if(ENSEMBLELAB_SANITIZE AND NOT ENSEMBLELAB_SANITIZE MATCHES "thread")
  set(_ensemblelab_tests_instrumented_lightly ON)
endif()
function(ensemblelab_sanitize_tests_lightly)
  if(NOT ENSEMBLELAB_SANITIZE)
    return()
  endif()
  add_compile_definitions(ENSEMBLELAB_SANITIZED)
  if(_ensemblelab_tests_instrumented_lightly)
    get_directory_property(options COMPILE_OPTIONS)
    list(REMOVE_ITEM options -fsanitize=${ENSEMBLELAB_SANITIZE} -fno-sanitize-recover=undefined)
    set_directory_properties(PROPERTIES COMPILE_OPTIONS "${options}")
  endif()
endfunction()

# A test that compiles our code into itself (TestCudaKernelsOnCpu: the kernels' source) gets
# that code checked: the sanitizers back on for the whole target, without the precompiled
# header, which was built without them.
function(ensemblelab_sanitize_test_fully target)
  if(_ensemblelab_tests_instrumented_lightly)
    target_compile_options(${target} PRIVATE -fsanitize=${ENSEMBLELAB_SANITIZE} -fno-sanitize-recover=undefined)
    set_target_properties(${target} PROPERTIES DISABLE_PRECOMPILE_HEADERS ON)
  endif()
endfunction()

if(ENSEMBLELAB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ENSEMBLELAB_FUZZ needs clang (libFuzzer): configure with CXX=clang++-14")
  endif()
  # Everything of ours gets coverage and ASan/UBSan; only the harnesses link libFuzzer.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
