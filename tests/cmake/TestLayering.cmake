# SPDX-License-Identifier: GPL-3.0-or-later
# Layers point down only: each folder of core/ may include only the folders below it, and
# nothing in core/ includes the front ends (app/, ui/) or Qt; and only
# core/common/Environment.cpp calls getenv. A new include that points up
# fails here with the file, the line and the rule it breaks.
#   cmake -DSOURCE_DIR=<repo> -P TestLayering.cmake
cmake_minimum_required(VERSION 3.16)
set(below_common "")
set(below_data common)
set(below_devices common)
set(below_models common)
set(below_metrics common)
set(below_io common)
set(below_comm common)
set(below_config common models)
set(below_runs common data metrics io config)
set(below_train common data devices models metrics io comm config runs)

set(violations "")
foreach(layer common data devices models metrics io comm config runs train)
  file(GLOB sources ${SOURCE_DIR}/core/${layer}/*.h ${SOURCE_DIR}/core/${layer}/*.cpp)
  foreach(source IN LISTS sources)
    file(STRINGS ${source} includes REGEX "^#include [<\"]")
    foreach(line IN LISTS includes)
      if(line MATCHES "^#include \"core/([a-z]+)/" AND NOT CMAKE_MATCH_1 STREQUAL layer)
        set(target ${CMAKE_MATCH_1})
        if(NOT target IN_LIST below_${layer})
          string(APPEND violations "\n  ${source}: ${line} (core/${layer} may include only: ${below_${layer}})")
        endif()
      elseif(line MATCHES "^#include [<\"](app|ui)/" OR line MATCHES "^#include <Q")
        string(APPEND violations "\n  ${source}: ${line} (core/ is Qt-free and knows no front end)")
      endif()
    endforeach()
  endforeach()
endforeach()
# The engine's environment is read in one place (core/common/Environment.cpp), by the
# names declared there.
file(GLOB_RECURSE engine_sources ${SOURCE_DIR}/core/*.h ${SOURCE_DIR}/core/*.cpp)
foreach(source IN LISTS engine_sources)
  if(source MATCHES "core/common/Environment\\.cpp$")
    continue()
  endif()
  file(STRINGS ${source} reads REGEX "getenv[ ]*\\(")
  foreach(line IN LISTS reads)
    string(APPEND violations "\n  ${source}: ${line} (read the environment through environment::read)")
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "includes that point up a layer:${violations}")
endif()
message(STATUS "core/ layers point down only")
