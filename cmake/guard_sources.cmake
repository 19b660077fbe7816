# SPDX-License-Identifier: MIT
# rg_guard_sources(): one generated translation unit per guard of guards.def, from a template.
#
# rg_guard_sources(OUT TEMPLATE PREFIX) configures TEMPLATE (@RG_ID@ is the guard id)
# into gen/PREFIX<id>.c of the calling folder's build directory for each id in
# RG_GUARD_IDS (guards/CMakeLists.txt), and sets OUT to the list of those files.
function(rg_guard_sources out template prefix)
  set(srcs "")
  foreach(id IN LISTS RG_GUARD_IDS)
    set(RG_ID ${id})
    configure_file("${template}" "${CMAKE_CURRENT_BINARY_DIR}/gen/${prefix}${id}.c" @ONLY)
    list(APPEND srcs "${CMAKE_CURRENT_BINARY_DIR}/gen/${prefix}${id}.c")
  endforeach()
  set(${out} "${srcs}" PARENT_SCOPE)
endfunction()
