#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tests' way to boot a Debian kernel under qemu: the installed tree's boot script, ab/vm.sh (its header has the usage).
exec bash "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/ab/vm.sh" "$@"
