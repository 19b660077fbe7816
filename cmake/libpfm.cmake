# SPDX-License-Identifier: MIT
# libpfm4 (Debian: libpfm4-dev): named PMU events for the CPU found at run time (bench/pmu_pfm.c).
# Defines the interface target rg_libpfm with RG_HAVE_LIBPFM=0 or 1 and says which in
# the `-- rgbench:` configure lines. Without it only the named events are off: the
# sysfs reader (bench/pmu_events.c) still lists what the kernel exposes.
# -DRG_LIBPFM=OFF builds without it on purpose.
option(RG_LIBPFM "use libpfm4 for named PMU events when it is installed" ON)
add_library(rg_libpfm INTERFACE)
set(RG_HAVE_LIBPFM 0)
if(RG_LIBPFM)
  find_path(RG_LIBPFM_INCLUDE perfmon/pfmlib_perf_event.h)
  find_library(RG_LIBPFM_LIBRARY pfm)
  if(RG_LIBPFM_INCLUDE AND RG_LIBPFM_LIBRARY)
    set(RG_HAVE_LIBPFM 1)
    target_include_directories(rg_libpfm INTERFACE "${RG_LIBPFM_INCLUDE}")
    target_link_libraries(rg_libpfm INTERFACE "${RG_LIBPFM_LIBRARY}")
    message(STATUS "rgbench: libpfm4 ${RG_LIBPFM_LIBRARY} (named PMU events; sysfs where its tables lack the CPU)")
  else()
    message(STATUS "rgbench: libpfm4 not found (named PMU events off, sysfs events only; Debian: libpfm4-dev)")
  endif()
else()
  message(STATUS "rgbench: libpfm4 off (-DRG_LIBPFM=OFF: sysfs events only)")
endif()
target_compile_definitions(rg_libpfm INTERFACE RG_HAVE_LIBPFM=${RG_HAVE_LIBPFM})
