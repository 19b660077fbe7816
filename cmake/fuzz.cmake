# SPDX-License-Identifier: MIT
# rg_add_fuzzer(NAME SOURCE LIB): a libFuzzer target (ASan) of SOURCE linked with LIB (an
# INTERFACE target that hands over the sources to instrument), only when the compiler is clang
# and the build is native and has tests: analysis/read's reader, kernel/kmod's raw converter. Their
# fuzz/run.sh builds them with clang whatever compiler the main build uses.
function(rg_add_fuzzer name source lib)
  if(CMAKE_C_COMPILER_ID MATCHES "Clang" AND NOT CMAKE_CROSSCOMPILING AND BUILD_TESTING)
    add_executable(${name} ${source})
    target_link_libraries(${name} PRIVATE ${lib})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address -g)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address)
  endif()
endfunction()
