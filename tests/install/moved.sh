#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install.moved: DESTDIR=T/stage cmake --install BUILD --prefix /opt/rgbench-first, the tree moved to
# T/moved (another prefix, the first one never exists), then from there: every command's --version,
# --help and --list, `rgbench help`, the module's guard list read from the installed sources,
# `rgbench report` and `rgbench plot` on a fixture, `rgbench --plan`; and no file installed holds
# the path of the source or build tree (strings of the binaries, the text of every other file).
#   moved.sh SRC BUILD BINDIR DATADIR
set -uo pipefail
src=$1 build=$2 bindir=$3 datadir=$4
T=$(mktemp -d "${TMPDIR:-/tmp}/rg-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

DESTDIR=$T/stage cmake --install "$build" --prefix /opt/rgbench-first >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; echo "FAIL: cmake --install"; exit 1; }
[[ ! -e /opt/rgbench-first ]] || { echo "FAIL: /opt/rgbench-first exists outside DESTDIR"; exit 1; }
mv "$T/stage/opt/rgbench-first" "$T/moved"
P=$T/moved R=$T/moved/$bindir/rgbench D=$T/moved/$datadir/rgbench

# The layout: what a user runs and what it reads, in their conventional places.
for f in "$bindir/rgbench" "$bindir/rgbench-report" "$datadir/rgbench/rgplot.py" \
	"$datadir/rgbench/rgplot_base.py" "$datadir/rgbench/kmod/Kbuild" "$datadir/rgbench/kmod/main.c" \
	"$datadir/rgbench/kmod/rg_kguards.h" "$datadir/rgbench/kmod/rg_kguards_extra.h" \
	"$datadir/rgbench/kmod/COPYING" "$datadir/doc/rgbench/LICENSE" \
	"$datadir/rgbench/fleet/fleet.sh" "$datadir/rgbench/fleet/rgbench.yml" \
	"$datadir/rgbench/fleet/callback_plugins/rgbench_fleet.py" "$datadir/doc/rgbench/README.md" \
	"$datadir/rgbench/ab/ab.sh" "$datadir/rgbench/ab/vm.sh" "$datadir/rgbench/ab/guest.sh" \
	"$datadir/rgbench/ab/module.sh" "$datadir/rgbench/ab/ab_table.py" "$datadir/rgbench/ab/step_from.py" \
	"$datadir/rgbench/ab/pin_vcpus.py" \
	"$datadir/bash-completion/completions/rgbench"; do
	[[ -f $P/$f ]] && ok "installed $f" || fail "$f is not installed"
done
if [[ -f $build/docs/man/rgbench.1 ]]; then
	for m in rgbench $("$build/tools/rgbench" --list | sed -n 's/^subcommands://p' | tr ' ' '\n' | grep -E '^[a-z]+$' | grep -vx help | sed 's/^/rgbench-/'); do
		[[ -f $P/$datadir/man/man1/$m.1 ]] || fail "man page $m.1 is not installed"
	done
	if command -v man >/dev/null; then
		MANPATH=$P/$datadir/man man -w rgbench-compare >/dev/null 2>&1 || fail "man -w rgbench-compare finds no page"
	else
		echo "note: no man here (man-db; a pristine Debian 13 has none): the pages are installed, their lookup through MANPATH unchecked"
	fi
else
	echo "note: no scdoc, the man pages were not built"
fi
for f in "$bindir/rgbench" "$bindir/rgbench-report" "$datadir/rgbench/fleet/fleet.sh" \
	"$datadir/rgbench/ab/ab.sh" "$datadir/rgbench/ab/vm.sh"; do
	[[ -x $P/$f ]] || fail "$f is not executable"
done

# run NAME EXPECTED-RC CMD...: the exit code, stdout in $T/out, stderr in $T/err.
run() {
	local name=$1 want=$2 rc
	shift 2
	(cd "$T" && env -u RG_PLOT_SCRIPT -u RG_KMOD_SRC -u RG_FLEET_SCRIPT -u RG_AB_SCRIPT "$@") >"$T/out" 2>"$T/err"
	rc=$?
	if ((rc == want)); then ok "$name (exit $rc)"; else
		fail "$name: exit $rc, expected $want"; head -5 "$T/err"
	fi
}
version_re='^rgbench [0-9]+\.[0-9]+\.[0-9]+-(g[0-9a-f]{12}(-dirty)?|unknown)$'
run "rgbench --version" 0 "$R" --version
grep -Eq "$version_re" "$T/out" && ok "version: $(cat "$T/out")" || fail "--version printed '$(cat "$T/out")'"
v=$(cat "$T/out")
run "rgbench -V" 0 "$R" -V
[[ $(cat "$T/out") == "$v" ]] || fail "-V printed '$(cat "$T/out")', not '$v'"
run "rgbench --help" 0 "$R" --help
grep -q '^usage: rgbench' "$T/out" || fail "--help has no usage line"
run "rgbench help" 0 "$R" help
grep -q '^usage: rgbench' "$T/out" || fail "rgbench help has no usage line"
run "rgbench --list" 0 "$R" --list
grep -q '^subcommands: bpf' "$T/out" || fail "--list has no subcommands line"
for sub in $(sed -n 's/^subcommands://p' "$T/out" | tr ' ' '\n' | grep -E '^[a-z]+$' | grep -vx help); do
	if grep -q "^subcommands:.* $sub (not built)" "$T/out" 2>/dev/null; then continue; fi
	run "rgbench $sub --version" 0 "$R" "$sub" --version
	[[ $(cat "$T/out") == "$v" ]] || fail "rgbench $sub --version printed '$(cat "$T/out")'"
	run "rgbench $sub -V" 0 "$R" "$sub" -V
	run "rgbench $sub --help" 0 "$R" "$sub" --help
	grep -q "usage: rgbench $sub" "$T/out" || fail "rgbench $sub --help has no usage line"
	run "rgbench help $sub" 0 "$R" help "$sub"
	grep -q "usage: rgbench $sub" "$T/out" || fail "rgbench help $sub has no usage line"
done
run "rgbench bpf --list" 0 "$R" bpf --list
run "rgbench-report --version" 0 "$P/$bindir/rgbench-report" --version
[[ $(cat "$T/out") == "$v" ]] || fail "rgbench-report --version printed '$(cat "$T/out")'"

# kmod names the installed sources and reads its guard list from them.
run "rgbench kmod --help" 0 "$R" kmod --help
grep -qF "built from $D/kmod " "$T/out" || fail "kmod --help does not name $D/kmod: $(grep 'built from' "$T/out")"
run "rgbench kmod --guards nosuchguard" 2 "$R" kmod --guards nosuchguard
grep -q "the module has no guard 'nosuchguard'" "$T/err" || fail "kmod did not read the installed module's guards: $(cat "$T/err")"

# The results room from the moved tree, on a fixture: the report, and the plots (matplotlib).
fixture=$src/tests/plots/drawn/default-x86.json
run "rgbench report FIXTURE" 0 "$R" report "$fixture" --out "$T/report.md"
[[ -s $T/report.md ]] && ok "report written" || fail "no report"
if "${RG_PYTHON:-/usr/bin/python3}" -c 'import matplotlib' 2>/dev/null; then
	run "rgbench plot FIXTURE" 0 "$R" plot "$fixture" --out "$T/plots" --format svg
	ls "$T"/plots/*.svg >/dev/null 2>&1 && ok "plots drawn by the installed rgplot.py" || fail "no plot"
else
	echo "note: python3-matplotlib missing: rgbench plot not run"
fi
run "rgbench --plan --quick" 0 "$R" --plan --quick --guards tls
# fleet: the installed command finds its installed script and playbook.
run "rgbench fleet --help" 0 "$R" fleet --help
grep -q '^usage: rgbench fleet' "$T/out" || fail "fleet --help: $(head -2 "$T/out")"
# ab: the installed command finds its installed script (and the guest boot script beside it).
run "rgbench ab --help" 0 "$R" ab --help
grep -q '^usage: rgbench ab' "$T/out" || fail "ab --help: $(head -2 "$T/out")"
run "rgbench ab --plan" 0 "$R" ab --kernel a=6.1.0-57 --kernel b=6.1.0-58 --rounds 2 --plan
[[ $(awk 'NR > 1 { printf "%s", $2 }' "$T/out") == abba ]] || fail "ab --plan: not A B B A: $(tr '\n' ' ' <"$T/out")"

# Bash completion, installed, completing with the installed rgbench's own tables.
complete_words() {	# WORDS...: what completing the last word offers, one a line
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"
		_rgbench; printf "%s\n" "${COMPREPLY[@]}"' _ "$P/$datadir/bash-completion/completions/rgbench" "$@" 2>&1
}
expect_completion() {	# WANT WORDS...
	local want=$1
	shift
	local got
	got=$(complete_words "$@")
	grep -qx -- "$want" <<<"$got" && ok "completion of '$*' offers $want" ||
		fail "completion of '$*' does not offer $want: $(tr '\n' ' ' <<<"$got")"
}
expect_completion compare "$R" co
expect_completion export "$R" exp
expect_completion --guards "$R" --gu
expect_completion tls "$R" --guards t
expect_completion tls,rseq "$R" --guards tls,rs
expect_completion ladder "$R" --scenarios la
expect_completion --attach "$R" bpf --at
expect_completion fentry "$R" bpf --attach fe
expect_completion rctx-kernel "$R" kmod --guards rctx-k
expect_completion --from-raw "$R" kmod --from
expect_completion --across-hosts "$R" compare --across-h
expect_completion ab "$R" a
expect_completion --no-user "$R" ab --no-u
expect_completion arm64 "$R" ab --arch ar
expect_completion report "$R" help rep

# Nothing installed names the source or build tree: either folder as a whole path (followed
# by /, the end, or a character no file name here has), so that a tree at /root/rgbench does
# not find the docs' /root/rgbench-fleet (the fleet's folder in root's home).
ere() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'; }
tree_re="($(ere "$src")|$(ere "$build"))(\$|[^[:alnum:]._+~-])"
# One exception, in a build with UBSan (a test build, never installed for users): GCC 12
# writes UBSan's source locations with the path the compiler was given, whatever
# -ffile-prefix-map says (through ccache's base_dir, as scripts/test.sh builds, a relative
# one; without ccache, RG_TEST_CCACHE=0, the whole path). Exactly the path of one of the
# tree's C or C++ sources or headers (the build folder's generated ones too), nothing more, is
# then allowed.
ubsan_files=$T/ubsan-sources
: >"$ubsan_files"
if grep -q '^RG_SANITIZE:STRING=.*undefined' "$build/CMakeCache.txt" 2>/dev/null; then
	find "$src" "$build" -type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cpp' \) >"$ubsan_files"
fi
while IFS= read -r -d '' f; do
	if file -b "$f" | grep -q '^ELF'; then
		# (grep reads all of it: with -q it stops at the first match, strings then dies of
		# SIGPIPE, and under pipefail the pipeline failed, so a path early in the file passed)
		strings -a "$f" | grep -E -e "$tree_re" | grep -vxF -f "$ubsan_files" >/dev/null &&
			fail "strings of ${f#"$P"/} hold a path of the tree"
	else
		grep -qE -e "$tree_re" "$f" && fail "${f#"$P"/} holds a path of the tree"
	fi
done < <(find "$P" -type f -print0)
((fails == 0)) && { echo "install.moved: all passed"; exit 0; }
echo "install.moved: $fails failed"
exit 1
