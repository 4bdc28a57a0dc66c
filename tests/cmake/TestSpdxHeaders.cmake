# SPDX-License-Identifier: GPL-3.0-or-later
# Every source file says its license (GPL-3.0-or-later, see LICENSE) in an SPDX line near
# its top, so a file copied out of the project still carries it. A file without one
# fails here, named.
#   cmake -DSOURCE_DIR=<repo> -P TestSpdxHeaders.cmake
cmake_minimum_required(VERSION 3.16)
set(patterns "")
foreach(folder app bench cmake core packaging resources scripts tests ui)
  foreach(ext h cpp py sh cmake)
    list(APPEND patterns ${SOURCE_DIR}/${folder}/*.${ext})
  endforeach()
  list(APPEND patterns ${SOURCE_DIR}/${folder}/CMakeLists.txt)
endforeach()
file(GLOB_RECURSE sources ${patterns})
list(APPEND sources ${SOURCE_DIR}/CMakeLists.txt ${SOURCE_DIR}/.ci/run)
set(missing "")
foreach(source IN LISTS sources)
  file(STRINGS ${source} head LIMIT_COUNT 3)
  if(NOT head MATCHES "SPDX-License-Identifier: GPL-3\\.0-or-later")
    string(APPEND missing "\n  ${source}")
  endif()
endforeach()
list(LENGTH sources count)
if(missing)
  message(FATAL_ERROR "no 'SPDX-License-Identifier: GPL-3.0-or-later' line in the first 3 lines of:${missing}")
endif()
message(STATUS "${count} source files carry the SPDX line")
