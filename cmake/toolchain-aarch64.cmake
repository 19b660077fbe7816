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
# The guest must load libc.so.6 from the same glibc as the cross ld.so: with
# libc6:arm64 installed (libbenchmark-dev:arm64 pulls it in) the host's
# /etc/ld.so.cache points ld.so at /lib/aarch64-linux-gnu/libc.so.6, a
# different glibc build, and every pthread_create() then spins forever.
# QEMU_LD_PREFIX: a program the guest executes (rgbench's run processes, --runs 2 and
# more) starts through binfmt_misc's qemu-aarch64-static, which -L does not reach: it took
# libc6:arm64's ld.so while LD_LIBRARY_PATH, inherited, gave it the cross libc.so.6, and
# its first pthread_create() spun without end in ld.so's stack cache (2026-12-04: the
# smoke tests' 2-thread groups under --runs 2 hung); the variable sends it to the same
# sysroot as the first process.
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-aarch64;-L;/usr/aarch64-linux-gnu;-E;LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib;-E;QEMU_LD_PREFIX=/usr/aarch64-linux-gnu)
