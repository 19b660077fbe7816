# SPDX-License-Identifier: MIT
# Where a binary finds rgbench's own files (rg/paths.h): installed, under DATADIR/rgbench by
# the relative path from BINDIR (RG_BIN_TO_DATA); in the build tree, by a marker file beside
# each binary (rgbench-build-tree: one "name=path" line per file), never by a path compiled in.
#   rg_build_path(NAME PATH)  a component says where NAME is in the source or build tree
#   rg_build_markers()        (top CMakeLists.txt, last) writes the marker beside every executable
include(GNUInstallDirs)
file(RELATIVE_PATH RG_BIN_TO_DATA "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_DATADIR}/rgbench")

function(rg_build_path name path)
  set_property(GLOBAL APPEND PROPERTY RG_BUILD_PATHS "${name}=${path}")
endfunction()

# Every folder of the build below DIR that holds an executable target, into OUT.
function(_rg_exe_dirs dir out)
  set(dirs "${${out}}")
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE")
      get_property(bin DIRECTORY "${dir}" PROPERTY BINARY_DIR)
      list(APPEND dirs "${bin}")
      break()
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(d IN LISTS subdirs)
    _rg_exe_dirs("${d}" dirs)
  endforeach()
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()

function(rg_build_markers)
  get_property(paths GLOBAL PROPERTY RG_BUILD_PATHS)
  list(JOIN paths "\n" text)
  set(dirs "")
  _rg_exe_dirs("${PROJECT_SOURCE_DIR}" dirs)
  foreach(d IN LISTS dirs)
    file(CONFIGURE OUTPUT "${d}/rgbench-build-tree" CONTENT "${text}\n" @ONLY)
  endforeach()
endfunction()
