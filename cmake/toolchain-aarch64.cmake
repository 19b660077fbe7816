# SPDX-License-Identifier: MIT
# Cross-build for aarch64 with Debian's gcc-aarch64-linux-gnu; ctest runs the
# binaries under qemu-aarch64 (user mode). The emulated CPU comes from the
# QEMU_CPU environment variable, which tests/CMakeLists.txt sets per test:
# "max" has LSE, "cortex-a72" does not.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
# The loader and libc must come from the same package: the arm64 libraries we
# link (libbenchmark:arm64, libhwloc:arm64) pull in libc6:arm64 under
# /lib/aarch64-linux-gnu, and pairing its libc.so.6 with the older loader of
# libc6-arm64-cross (-L /usr/aarch64-linux-gnu) hangs in pthread_create
# (ld.so's thread-stack list differs between the two builds). "-L /" uses
# libc6:arm64's own /lib/ld-linux-aarch64.so.1.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/)
