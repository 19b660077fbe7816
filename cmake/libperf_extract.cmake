# SPDX-License-Identifier: MIT
# cmake -DTARBALL=<tar.*> -DTOP=<top dir in it> -DMEMBERS=<a|b|...> -DCACHE=<dir> -DDEST=<dir>
#       -P libperf_extract.cmake
#
# The tools/ subtrees libperf needs, from the kernel source tarball into DEST/TOP.
# Decompressing the whole tarball takes about 10 CPU seconds, and every build tree
# (native, sanitizer, cross) needs the same members: they are extracted once per
# tarball into CACHE (keyed by its name, size and time) under a lock, then copied.
# An empty or unwritable CACHE extracts straight into DEST.
cmake_minimum_required(VERSION 3.22...3.25)
foreach(v TARBALL TOP MEMBERS DEST)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "libperf_extract.cmake: -D${v}= missing")
  endif()
endforeach()
string(REPLACE "|" ";" MEMBERS "${MEMBERS}")

function(rg_extract into)
  file(MAKE_DIRECTORY "${into}")
  execute_process(COMMAND tar -C "${into}" -xf "${TARBALL}" ${MEMBERS} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "extracting ${MEMBERS} from ${TARBALL} failed (${rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${DEST}/${TOP}")
if(NOT CACHE)
  rg_extract("${DEST}")
  return()
endif()
file(SIZE "${TARBALL}" size)
file(TIMESTAMP "${TARBALL}" stamp "%Y%m%d%H%M%S" UTC)
string(MD5 key "${TARBALL} ${size} ${stamp} ${MEMBERS}")
string(SUBSTRING "${key}" 0 12 key)
set(entry "${CACHE}/${TOP}-${key}")
execute_process(COMMAND ${CMAKE_COMMAND} -E make_directory "${CACHE}" RESULT_VARIABLE made
                OUTPUT_QUIET ERROR_QUIET)
if(made EQUAL 0)
  execute_process(COMMAND ${CMAKE_COMMAND} -E touch "${CACHE}/.lock" RESULT_VARIABLE made
                  OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT made EQUAL 0)
  message(STATUS "libperf: ${CACHE} is not writable; extracting into the build tree")
  rg_extract("${DEST}")
  return()
endif()
file(LOCK "${CACHE}/.lock" GUARD PROCESS TIMEOUT 1800 RESULT_VARIABLE locked)
if(NOT locked STREQUAL "0")
  message(FATAL_ERROR "cannot lock ${CACHE}/.lock: ${locked}")
endif()
if(NOT EXISTS "${entry}/.complete")
  file(REMOVE_RECURSE "${entry}.tmp" "${entry}")
  rg_extract("${entry}.tmp")
  file(TOUCH "${entry}.tmp/.complete")
  file(RENAME "${entry}.tmp" "${entry}")
endif()
file(LOCK "${CACHE}/.lock" RELEASE)
file(MAKE_DIRECTORY "${DEST}")
file(COPY "${entry}/${TOP}" DESTINATION "${DEST}")
