# SPDX-License-Identifier: MIT
# libperf for the cycle/instruction counters: the system's when packaged (pkg-config), else
# built from the newest kernel source tarball in /usr/src (Debian/Ubuntu: linux-source).
#
# Defines the INTERFACE target rg_libperf and RG_HAVE_LIBPERF (0/1), and
# RG_LIBPERF_HOW (a short "why/how" string for the configure log). Without libperf the
# counters say why in `rgbench --list` and in every row (RG_LIBPERF_WHY).
#
#   -DRG_LIBPERF=AUTO (default) system libperf, else source build, else none
#   -DRG_LIBPERF=OFF            never (counters report "n/a: built without libperf")
#   -DRG_LINUX_SOURCE=<tar.*>   kernel source tarball (default: the newest
#                               /usr/src/linux-source-<version>.tar.{xz,gz,bz2})
#   -DRG_LIBPERF_CACHE=<dir>    opt-in: its tools/ subtrees are extracted there once and
#                               copied into each build tree (e.g. ~/.cache/rgbench/libperf-src;
#                               default empty: extracted in each build tree, nothing written
#                               outside it)
#
# Nothing from the kernel tree is committed: the needed tools/ subtrees are
# copied into ${CMAKE_BINARY_DIR}/libperf-src at build time (cmake/libperf_extract.cmake).
set(RG_LIBPERF AUTO CACHE STRING "libperf for counters: AUTO or OFF")
set(RG_LINUX_SOURCE "" CACHE FILEPATH
    "kernel source tarball that tools/lib/perf is built from (empty: the newest in /usr/src)")
set(RG_LIBPERF_CACHE "" CACHE PATH
    "opt-in: where the tarball's tools/ subtrees are extracted once for every build tree (empty: in each)")

# The newest /usr/src/linux-source-<version>.tar.* by version (6.12 after 6.1), or "".
function(rg_newest_linux_source out)
  file(GLOB _tars LIST_DIRECTORIES false /usr/src/linux-source-*.tar.xz
       /usr/src/linux-source-*.tar.gz /usr/src/linux-source-*.tar.bz2)
  list(SORT _tars COMPARE NATURAL ORDER DESCENDING)
  list(LENGTH _tars _n)
  if(_n GREATER 0)
    list(GET _tars 0 _tar)
  else()
    set(_tar "")
  endif()
  set(${out} "${_tar}" PARENT_SCOPE)
endfunction()

add_library(rg_libperf INTERFACE)
set(RG_HAVE_LIBPERF 0)
set(RG_LIBPERF_HOW "disabled (RG_LIBPERF=OFF)")

if(NOT RG_LIBPERF STREQUAL "OFF")
  # 1. A packaged libperf (Fedora, Arch, newer Debian/Ubuntu ship one).
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(RG_SYS_LIBPERF QUIET IMPORTED_TARGET libperf)
  endif()
  set(_tarball "${RG_LINUX_SOURCE}")
  if(_tarball STREQUAL "")
    rg_newest_linux_source(_tarball)
  endif()
  if(RG_SYS_LIBPERF_FOUND)
    target_link_libraries(rg_libperf INTERFACE PkgConfig::RG_SYS_LIBPERF)
    set(RG_HAVE_LIBPERF 1)
    set(RG_LIBPERF_HOW "system libperf ${RG_SYS_LIBPERF_VERSION} (pkg-config)")
  elseif(NOT _tarball STREQUAL "" AND EXISTS "${_tarball}")
    # 2. Build it from the kernel source tarball.
    get_filename_component(_tarname "${_tarball}" NAME)
    string(REGEX REPLACE "\\.tar\\.(xz|gz|bz2)$" "" _top "${_tarname}")
    set(_root "${CMAKE_BINARY_DIR}/libperf-src")
    set(_src "${_root}/${_top}")
    set(_members "")
    foreach(p tools/lib/perf tools/lib/api tools/lib/str_error_r.c tools/lib/zalloc.c
              tools/include tools/arch/x86/include tools/arch/arm64/include
              tools/build tools/scripts)
      list(APPEND _members "${_top}/${p}")
    endforeach()
    string(REPLACE ";" " " _prefix_map "${RG_PREFIX_MAP}")
    set(_make_args "EXTRA_CFLAGS=${_prefix_map}")
    if(RG_ARCH STREQUAL "aarch64")
      list(APPEND _make_args ARCH=arm64)
      if(CMAKE_CROSSCOMPILING)
        list(APPEND _make_args CROSS_COMPILE=aarch64-linux-gnu-)
      endif()
    else()
      list(APPEND _make_args ARCH=x86)
    endif()
    set(_libperf "${_src}/tools/lib/perf/libperf.a")
    set(_libapi "${_src}/tools/lib/api/libapi.a")
    string(REPLACE ";" "|" _members_arg "${_members}")
    add_custom_command(
      OUTPUT "${_src}/.extracted"
      COMMAND ${CMAKE_COMMAND} "-DTARBALL=${_tarball}" "-DTOP=${_top}" "-DMEMBERS=${_members_arg}"
              "-DCACHE=${RG_LIBPERF_CACHE}" "-DDEST=${_root}"
              -P "${PROJECT_SOURCE_DIR}/cmake/libperf_extract.cmake"
      COMMAND ${CMAKE_COMMAND} -E touch "${_src}/.extracted"
      DEPENDS "${_tarball}" "${PROJECT_SOURCE_DIR}/cmake/libperf_extract.cmake"
      COMMENT "Extracting tools/lib/perf from ${_tarname} into the build tree (cache: '${RG_LIBPERF_CACHE}')"
      VERBATIM)
    # libperf's Makefile also builds libapi.a (its dependency).
    add_custom_command(
      OUTPUT "${_libperf}" "${_libapi}"
      COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MAKELEVEL make -s -C "${_src}/tools/lib/perf" ${_make_args} libperf.a
      COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MAKELEVEL make -s -C "${_src}/tools/lib/api" ${_make_args} libapi.a
      DEPENDS "${_src}/.extracted"
      COMMENT "Building libperf.a and libapi.a (${_make_args})"
      VERBATIM)
    add_custom_target(rg_libperf_build DEPENDS "${_libperf}" "${_libapi}")
    add_dependencies(rg_libperf rg_libperf_build)
    # Non-imported INTERFACE target: the include dir need not exist at configure time.
    target_include_directories(rg_libperf SYSTEM INTERFACE "${_src}/tools/lib/perf/include")
    target_link_libraries(rg_libperf INTERFACE "${_libperf}" "${_libapi}")
    set(RG_HAVE_LIBPERF 1)
    set(RG_LIBPERF_HOW "built from ${_tarball} (no system libperf: pkg-config libperf not found)")
  elseif(NOT RG_LINUX_SOURCE STREQUAL "")
    set(_why "no system libperf and RG_LINUX_SOURCE=${RG_LINUX_SOURCE} does not exist")
  else()
    set(_why "no system libperf (pkg-config libperf) and no /usr/src/linux-source-*.tar.*")
  endif()
endif()
if(NOT RG_HAVE_LIBPERF)
  if(RG_LIBPERF STREQUAL "OFF")
    set(_why "RG_LIBPERF=OFF")
  else()
    set(RG_LIBPERF_HOW "not found: ${_why}; counters off (scripts/deps.sh installs linux-source or libperf-devel)")
  endif()
  target_compile_definitions(rg_libperf INTERFACE "RG_LIBPERF_WHY=\"${_why}\"")
endif()
target_compile_definitions(rg_libperf INTERFACE RG_HAVE_LIBPERF=${RG_HAVE_LIBPERF})
message(STATUS "rgbench: libperf ${RG_LIBPERF_HOW}")
