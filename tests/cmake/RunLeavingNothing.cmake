# SPDX-License-Identifier: GPL-3.0-or-later
# Runs COMMAND (a list: the program and its arguments) with TMPDIR set to SCRATCH, emptied
# first, and fails where the command fails or leaves anything in SCRATCH: what a test writes
# to the temporary folder is its own to remove, not litter on a developer's machine.
#   cmake -DSCRATCH=<folder> "-DCOMMAND=<program>;<argument>..." -P RunLeavingNothing.cmake
cmake_minimum_required(VERSION 3.16)
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
set(ENV{TMPDIR} "${SCRATCH}")
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE exit_code)
if(NOT exit_code EQUAL 0)
  message(FATAL_ERROR "${COMMAND} exited with ${exit_code}")
endif()
file(GLOB left_behind "${SCRATCH}/*")
if(left_behind)
  message(FATAL_ERROR "${COMMAND} left in its TMPDIR (${SCRATCH}):\n  ${left_behind}")
endif()
