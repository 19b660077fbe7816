# SPDX-License-Identifier: MIT
# Which Google Benchmark API the found headers have for a run that did not measure: 1.8 and
# later (Run::skipped, Run::skip_message) or 1.7 and earlier (Run::error_occurred, error_message).
#
# A compile check against the found library, not its version number. Defines
# RG_GB_HAS_SKIPPED (0/1) on rg_gbench; stops configuring when neither API compiles.
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_LIBRARIES benchmark::benchmark)
set(CMAKE_REQUIRED_QUIET ON)
check_cxx_source_compiles([[
#include <benchmark/benchmark.h>
int main()
{
	benchmark::BenchmarkReporter::Run r;
	return r.skipped != benchmark::internal::NotSkipped || !r.skip_message.empty();
}]] RG_GB_SKIPPED_API)
if(NOT RG_GB_SKIPPED_API)
  check_cxx_source_compiles([[
#include <benchmark/benchmark.h>
int main()
{
	benchmark::BenchmarkReporter::Run r;
	return r.error_occurred || !r.error_message.empty();
}]] RG_GB_ERROR_API)
endif()
cmake_pop_check_state()

if(RG_GB_SKIPPED_API)
  set(RG_GB_HAS_SKIPPED 1)
  set(_how "Run::skipped/skip_message (1.8 and later)")
elseif(RG_GB_ERROR_API)
  set(RG_GB_HAS_SKIPPED 0)
  set(_how "Run::error_occurred/error_message (1.7 and earlier)")
else()
  message(FATAL_ERROR "rgbench: Google Benchmark ${benchmark_VERSION} (${benchmark_DIR}) has neither "
          "Run::skipped/skip_message nor Run::error_occurred/error_message (the checks: CMakeFiles/CMakeConfigureLog.yaml or CMakeError.log)")
endif()
target_compile_definitions(rg_gbench PRIVATE RG_GB_HAS_SKIPPED=${RG_GB_HAS_SKIPPED})
message(STATUS "rgbench: Google Benchmark ${benchmark_VERSION}: ${_how}")
