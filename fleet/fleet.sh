#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench fleet: one built rgbench Debian package installed on every host of an Ansible inventory
# and run there (the README's first command, nothing built on a host), through fleet/rgbench.yml;
# every result file fetched to OUT/<host's folder>/ (its inventory name as a safe file name,
# rgbench --safe-name, unique), then one report over the hosts that finished. The packages are
# given (--deb FILE, one per architecture) or built here, once per architecture the hosts have
# that no --deb is for (each host asked first): this checkout's commit, dpkg-buildpackage, with
# -a ARCH (Debian's cross build) for another architecture than this machine's. `rgbench fleet`
# runs this script (fleet/fleet_run.c); docs/fleet-run.md.
#
#   rgbench fleet -i INVENTORY [--deb FILE]... [--no-build] [--forks N] [--out DIR] [--] [rgbench options...]
#
# Exit: 0 every host finished and the report was made; 1 a host failed (each says why in one
# line; the report is made from the others) or the report could not be made, or the control
# machine lacks what is needed (Ansible, python3, dpkg-deb, a temporary folder; to build: git,
# dpkg-buildpackage and the Build-Depends, of the hosts' architecture for a cross build), or
# the package build failed, or the inventory is a FIFO, socket or device; 2 usage (a bad
# option, an rgbench option rgbench refuses, an inventory that does not exist, does not parse
# or has no host, an --out that exists, a --deb that is not an rgbench package or repeats an
# architecture, no --deb and no source checkout to build one from, --no-build without --deb);
# 128+signal interrupted (Ctrl-C: the playbook stops, every file already
# fetched stays). Before the playbook starts, a failure leaves nothing behind.
set -uo pipefail
me="rgbench fleet"
say() { echo "$me: $*" >&2; }
usage_error() { say "$* (see $me --help)"; exit 2; }
bad_input() { say "$*"; exit 2; }
# shown TEXT: TEXT for the terminal (a path the user gave, in a message): a backslash doubled,
# a tab, newline or other control character as \t, \n, \xHH: one line, no escape sequence.
# (Inventory names reach the terminal through the callback's shown(), the same rule.)
shown() {
	local s=$1 o= c i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		\\) o+='\\' ;;
		$'\t') o+='\t' ;;
		$'\n') o+='\n' ;;
		$'\r') o+='\r' ;;
		[[:cntrl:]]) printf -v c '\\x%02x' "'$c"; o+=$c ;;
		*) o+=$c ;;
		esac
	done
	printf '%s' "$o"
}

usage() {
	cat <<'EOF'
usage: rgbench fleet -i INVENTORY [--deb FILE]... [--no-build] [--forks N] [--out DIR] [--] [rgbench options...]
Installs one built rgbench Debian package on every host of an Ansible inventory (apt: its
Depends come from the host's archive) and runs the installed rgbench there with the same
options, as the README's first command does (CSV, JSON, plots, report), hosts in parallel;
nothing is built on a host. Fetches every result file into DIR/<name>/ (the inventory name as
a safe file name: rgbench --safe-name; -2, -3... when two meet) and writes DIR/report.md with
rgbench report over the hosts that finished. Each host is asked its dpkg architecture first;
for each architecture the hosts have that no --deb is for, the package is built here, once,
from this checkout's commit (git archive of HEAD; uncommitted changes are not in it) with
dpkg-buildpackage -us -uc -b (-a ARCH, Debian's cross build, for another architecture than
this machine's: arm64 on amd64), its version the release plus the commit, and shared by
every host of that architecture.
  -i, --inventory FILE  Ansible inventory (INI or YAML, Ansible's own formats)
  --deb FILE            the rgbench .deb to install (built elsewhere: dpkg-buildpackage, or a
                        cross build); one per architecture, each host gets the one of its
                        dpkg architecture (amd64, arm64)
  --no-build            build nothing: only the --deb packages (a host of another
                        architecture fails at copy)
  --forks N             hosts at once (default 5, Ansible's; 1 to 256)
  --out DIR             where the results go (default results/fleet-<UTC time>; must not exist)
  rgbench options       e.g. --quick, --guards tls,rseq; everything after -- goes to rgbench;
                        checked here first (rgbench --check-options): a bad one is exit 2
DIR/ansible.log has Ansible's own output; DIR/status.tsv one line per host.
Needs ansible-playbook, python3 and dpkg-deb, to build the package git, dpkg-buildpackage and
the Build-Depends, for arm64 on amd64 crossbuild-essential-arm64 and the :arm64 libraries
(scripts/deps.sh fleet installs all of them on Debian); on every host ssh, python3, apt
and sudo for a user that is not root (Debian or a derivative).
Exit: 0 all hosts ok, 1 a host failed, no report, no package or something missing here,
2 usage, 128+signal interrupted.
  -V, --version         the release and commit of this build; -h, --help: this text
Examples:
  rgbench fleet -i hosts.ini -- --quick
  rgbench fleet -i hosts.yml --deb rgbench_amd64.deb --deb rgbench_arm64.deb --forks 20
  rgbench fleet -i mixed.ini --no-build --deb rgbench_amd64.deb -- --quick
EOF
}

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
inv= forks=5 out= args=() debs=() build=1
while (($#)); do
	case "$1" in
	-i|--inventory) (($# >= 2)) || usage_error "$1 needs a file"; inv=$2; shift 2 ;;
	--inventory=*) inv=${1#*=}; shift ;;
	--deb) (($# >= 2)) || usage_error "--deb needs a file"; debs+=("$2"); shift 2 ;;
	--deb=*) debs+=("${1#*=}"); shift ;;
	--no-build) build=0; shift ;;
	--forks) (($# >= 2)) || usage_error "--forks needs a number"; forks=$2; shift 2 ;;
	--forks=*) forks=${1#*=}; shift ;;
	--out) (($# >= 2)) || usage_error "--out needs a folder"; out=$2; shift 2 ;;
	--out=*) out=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; args+=("$@"); break ;;
	*) args+=("$1"); shift ;;
	esac
done
[[ -n $inv ]] || usage_error "-i INVENTORY is required"
# The input policy (rg/input.h): a regular file (or a folder of them, Ansible's own form),
# never a FIFO or a device, which Ansible would block on or act on.
if [[ ! -e $inv ]]; then
	bad_input "cannot read the inventory '$(shown "$inv")': no such file or folder"
elif [[ ! -f $inv && ! -d $inv ]]; then
	case $(stat -L -c %F -- "$inv" 2>/dev/null) in
	fifo) kind="a FIFO" ;;
	socket) kind="a socket" ;;
	"character special file") kind="a character device" ;;
	"block special file") kind="a block device" ;;
	*) kind="neither" ;;
	esac
	# (exit 1, as every command's input that is a FIFO, socket or device: README's table)
	say "cannot read the inventory '$(shown "$inv")': not a regular file or folder ($kind)"
	exit 1
elif [[ ! -r $inv ]]; then
	bad_input "cannot read the inventory '$(shown "$inv")': permission denied"
fi
[[ $forks =~ ^[1-9][0-9]*$ ]] && ((forks <= 256)) || usage_error "--forks: expected 1 to 256 (got '$(shown "$forks")')"
for a in "${args[@]}"; do
	case "$a" in
	--out|--out=*|--json|--json=*) usage_error "'$(shown "$a")' is for the fleet to choose on each host (the fleet's folder is --out before the rgbench options)" ;;
	esac
done
if [[ -n $out ]]; then
	# A new folder: not a file, a folder or a link (a dangling one would be followed by mkdir).
	[[ ! -e $out && ! -L $out ]] || usage_error "--out '$(shown "$out")' exists: every run gets a new folder"
fi
rgbench=${RGBENCH:-$src/build/tools/rgbench}
[[ -x $rgbench ]] || { say "no rgbench to make the report with ($rgbench): build it first (scripts/run.sh)"; exit 1; }
# The run's options: rgbench's own check of a run's options (the hosts run the package's
# rgbench with them), here, once, before any host: a bad one is one usage line, not a failed
# run on every host. What only a host can judge (its CPUs, its events) is judged there.
if ((${#args[@]})) && ! why=$("$rgbench" --check-options "${args[@]}" 2>&1 >/dev/null); then
	why=${why%%$'\n'*}
	bad_input "an rgbench option is refused: $(shown "${why#rgbench: }")"
fi
# What the control machine needs, before anything is made.
command -v ansible-playbook >/dev/null ||
	{ say "ansible-playbook not found: scripts/deps.sh fleet installs Ansible (ansible-core)"; exit 1; }
command -v python3 >/dev/null ||
	{ say "python3 not found: the fleet needs it (Ansible does; scripts/deps.sh fleet installs it)"; exit 1; }
command -v dpkg-deb >/dev/null ||
	{ say "dpkg-deb not found: the fleet installs a Debian package (dpkg)"; exit 1; }


# The inventory must parse (Ansible only warns by default): the playbook then stops before
# its play starts, and the callback has listed no host.
export ANSIBLE_INVENTORY_UNPARSED_FAILED=True ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=True
export ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_NOCOLOR=1
# One ssh round trip per task instead of four (no requiretty sudoers needed by anything here).
export ANSIBLE_PIPELINING=${ANSIBLE_PIPELINING:-True}
# Ansible's main process checks its workers every 1 ms by default (for a responsive terminal):
# it wakes a thousand times a second while the hosts run rgbench. Every 50 ms is plenty for a
# run of minutes (the test fleet.names, 7 hosts: 58 and 62 s of CPU with 1 ms, 56 and 55 s
# with 50 ms). A value in the environment wins.
export ANSIBLE_INTERNAL_POLL_INTERVAL=${ANSIBLE_INTERNAL_POLL_INTERVAL:-0.05}
# Ansible's input (the vars) and the fleet's own records (Ansible's
# output, the status lines) live outside DIR until the end: a full disk where the results go
# must not stop the playbook or lose a host's status. They are copied into DIR at the end.
# Made before DIR: a temporary folder that cannot be made leaves no DIR behind.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rgbench-fleet.XXXXXX" 2>&1) ||
	{ say "cannot make a temporary folder in $(shown "${TMPDIR:-/tmp}"): ${tmp##*: } (TMPDIR)"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# The packages the hosts get: each --deb an rgbench package of its own architecture, read
# here (architecture and version) before any host; none: the one built below, this checkout's.
declare -A deb_of=() ver_of=()
for d in "${debs[@]}"; do
	[[ -f $d && -r $d ]] || bad_input "--deb '$(shown "$d")': not a readable file"
	info=$(dpkg-deb -f "$d" Package Architecture Version 2>/dev/null) ||
		bad_input "--deb '$(shown "$d")': not a Debian package (dpkg-deb cannot read it)"
	pkg=$(sed -n 's/^Package: //p' <<<"$info") a=$(sed -n 's/^Architecture: //p' <<<"$info")
	[[ $pkg == rgbench ]] || bad_input "--deb '$(shown "$d")': the package is '$(shown "$pkg")', not rgbench"
	[[ -z ${deb_of[$a]:-} ]] || bad_input "--deb '$(shown "$d")': a second package for $(shown "$a") (one per architecture)"
	deb_of[$a]=$(realpath -- "$d") ver_of[$a]=$(sed -n 's/^Version: //p' <<<"$info")
done
commit= dirty=
((build || ${#debs[@]})) || usage_error "--no-build needs --deb FILE (the packages to install)"
if ((build)) && ! { [[ -f $src/debian/control ]] && commit=$(git -C "$src" rev-parse --verify -q HEAD 2>/dev/null); }; then
	# No checkout (an installed rgbench): only the given packages.
	((${#debs[@]})) ||
		usage_error "no --deb FILE, and $(shown "$src") is not a source checkout to build the package from"
	build=0
fi
if ((build)); then
	[[ -z $(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null) ]] ||
		dirty=" (uncommitted changes are not in it)"
fi

# ssh connections are shared within this run only (the hosts are asked their architecture
# before the playbook runs): a master left from an earlier run to a host whose sshd has gone
# since would answer for it. end_masters: Ansible's ssh masters (ControlPersist) would linger a
# minute after the run: end them.
export ANSIBLE_SSH_CONTROL_PATH_DIR=${ANSIBLE_SSH_CONTROL_PATH_DIR:-$tmp/cp}
end_masters() {
	local s
	for s in "$ANSIBLE_SSH_CONTROL_PATH_DIR"/*; do
		[[ -S $s ]] && ssh -O exit -o ControlPath="$s" rgbench-fleet >/dev/null 2>&1
	done
}
trap 'end_masters; rm -rf "$tmp"' EXIT

# The architectures to build for: each host's `dpkg --print-architecture` (one raw task, in
# parallel), less those a --deb is for, and only those debian/control builds (amd64, arm64): a
# host of another architecture, or one that does not answer, fails at copy in the playbook,
# with its reason, as does an inventory that does not parse.
want=()
if ((build)); then
	answered=$(ANSIBLE_STDOUT_CALLBACK=minimal ansible all -i "$inv" -f "$forks" -m raw \
		-a 'echo "rgbench-arch: $(dpkg --print-architecture)"' </dev/null 2>/dev/null |
		sed -n 's/^rgbench-arch: \([a-z0-9][a-z0-9-]*\)\r\{0,1\}$/\1/p' | sort -u)
	buildable=" $(sed -n 's/^Architecture: *//p' "$src/debian/control" | grep -v '^all$' | head -n 1) "
	for a in $answered; do
		[[ -z ${deb_of[$a]:-} && $buildable == *" $a "* ]] && want+=("$a")
	done
fi
# Before anything is built: what each build needs is here (Debian's tools, the Build-Depends
# of that architecture; a cross build: its compiler and the :ARCH libraries).
here=$(dpkg --print-architecture 2>/dev/null)
for a in "${want[@]}"; do
	if [[ $a == "$here" ]]; then cross=() how="dpkg-buildpackage -us -uc -b"
	else cross=(-a "$a") how="cross: dpkg-buildpackage -a $a -us -uc -b"; fi
	command -v dpkg-buildpackage >/dev/null ||
		{ say "dpkg-buildpackage not found: building the package for $a needs dpkg-dev (or give --deb FILE for $a)"; exit 1; }
	if ! why=$(cd "$src" && dpkg-checkbuilddeps "${cross[@]}" 2>&1); then
		why=$(shown "${why#dpkg-checkbuilddeps: error: }")
		if ((${#cross[@]})); then
			say "cannot cross-build the package for $a here ($how): $why (scripts/deps.sh fleet on amd64 installs them for arm64; or give --deb FILE for $a)"
		else
			say "cannot build the package here: $why (apt-get build-dep $(shown "$src"), or give --deb FILE for $a)"
		fi
		exit 1
	fi
done

# The packages, built once here per architecture from the commit (git archive: the tree a
# release tarball has), their Debian version the release plus the commit, so a host's apt never
# keeps another build; each in a tree of its own.
v=
for a in "${want[@]}"; do
	if [[ $a == "$here" ]]; then cross=() how="dpkg-buildpackage -us -uc -b"
	else cross=(-a "$a") how="cross: dpkg-buildpackage -a $a -us -uc -b"; fi
	say "building the package of commit ${commit:0:12}$dirty for $a ($how; minutes)"
	mkdir -p "$tmp/pkg-$a/rgbench"
	if ! { git -C "$src" archive "$commit" | tar -x -C "$tmp/pkg-$a/rgbench"; } >"$tmp/build.log" 2>&1; then
		say "git archive of ${commit:0:12} failed: $(shown "$(tail -n 1 "$tmp/build.log")")"; exit 1
	fi
	v=$(sed -n '1s/^rgbench (\([^)]*\)).*/\1/p' "$tmp/pkg-$a/rgbench/debian/changelog")
	v=$v+git$(TZ=UTC git -C "$src" show -s --format=%cd --date=format-local:%Y%m%d%H%M%S "$commit").${commit:0:12}
	sed -i "1s/^rgbench ([^)]*)/rgbench ($v)/" "$tmp/pkg-$a/rgbench/debian/changelog"
	if ! (cd "$tmp/pkg-$a/rgbench" && DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=$(nproc)} \
		dpkg-buildpackage "${cross[@]}" -us -uc -b) >>"$tmp/build.log" 2>&1; then
		cp "$tmp/build.log" "${TMPDIR:-/tmp}/rgbench-fleet-build.log" 2>/dev/null
		say "dpkg-buildpackage ${cross[*]}${cross:+ }failed: $(shown "$(grep -v '^[[:space:]]*$' "$tmp/build.log" | tail -n 1)") (the log: ${TMPDIR:-/tmp}/rgbench-fleet-build.log)"
		exit 1
	fi
	deb_of[$a]=$(echo "$tmp/pkg-$a"/rgbench_"$v"_"$a".deb) ver_of[$a]=$v
	[[ -f ${deb_of[$a]} ]] || { say "dpkg-buildpackage made no ${deb_of[$a]##*/}"; exit 1; }
	say "built ${deb_of[$a]##*/}"
done
trap - EXIT

# DIR: results/fleet-<UTC>, -2, -3... when it exists; mkdir claims it (never an earlier run's).
made_results=0 out_made=
# give_up MESSAGE: before the playbook, nothing made stays (DIR, a results/ made for it).
give_up() {
	[[ -n $out_made ]] && rmdir "$out_made" 2>/dev/null
	((made_results)) && rmdir results 2>/dev/null
	rm -rf "$tmp"
	say "$*"
	exit 1
}
if [[ -z $out ]]; then
	[[ -d results ]] || made_results=1
	err=$(mkdir -p results 2>&1) || { rm -rf "$tmp"; say "cannot create results/ here: ${err##*: }"; exit 1; }
	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	for ((k = 1; k <= 1000; k++)); do
		out=results/fleet-$stamp
		((k == 1)) || out+=-$k
		mkdir "$out" 2>/dev/null && break
		out=
	done
	[[ -n $out ]] || give_up "cannot create a results/fleet-$stamp folder"
else
	err=$(mkdir -p -- "$out" 2>&1) || { rm -rf "$tmp"; say "cannot create '$(shown "$out")': ${err##*: }"; exit 1; }
fi
out_made=$out
out=$(cd "$out" && pwd) || give_up "cannot enter the folder it made"
out_made=$out
status=$tmp/status.tsv
: >"$status"
play= phase=before
interrupted=0
keep_tmp=0
cleanup() {
	end_masters
	((keep_tmp)) || rm -rf "$tmp"
}
trap cleanup EXIT
on_signal() {	# before the playbook: stop, nothing made; during: stop it, keep the files
	interrupted=$1
	case $phase in
	before) rmdir "$out" 2>/dev/null; ((made_results)) && rmdir results 2>/dev/null
		say "interrupted; nothing started"; exit "$1" ;;
	play) [[ -n $play ]] && kill -INT "$play" 2>/dev/null ;;
	esac
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP
# rg_stamp names the run's files on each host: DIR's last part as a safe file name.
stamp=$("$rgbench" --safe-name "${out##*/}") || give_up "$rgbench --safe-name failed"
pkgs=()
for a in "${!deb_of[@]}"; do pkgs+=("$a" "${deb_of[$a]}" "${ver_of[$a]}"); done
err=$(python3 -c '
import json, sys
n = int(sys.argv[4])
p = sys.argv[5:5 + 3 * n]
json.dump({"rg_debs": {p[i]: p[i + 1] for i in range(0, len(p), 3)},
           "rg_version": {p[i]: p[i + 2] for i in range(0, len(p), 3)},
           "rg_out": sys.argv[2], "rg_stamp": sys.argv[3], "rg_args": sys.argv[5 + 3 * n:]},
          open(sys.argv[1], "w"))
' "$tmp/vars.json" "$out" "$stamp" "${#deb_of[@]}" "${pkgs[@]}" "${args[@]}" 2>&1) ||
	give_up "cannot write the playbook's variables: $(shown "${err##*$'\n'}")"

# The first progress line, said by the callback once the inventory has parsed ("N hosts ...").
what=
for a in "${!deb_of[@]}"; do what+="${what:+, }${deb_of[$a]##*/}"; done
start="of inventory $(shown "$inv"), $forks at once, $(shown "$what"), rgbench $(shown "${args[*]:-(no options)}"); results in $(shown "$out")"
t0=$(date +%s)
# The playbook runs in its own session (a Ctrl-C reaches it through on_signal, once). A shell
# starts background commands with SIGINT ignored, and Python then never turns SIGINT into
# Ansible's "User interrupted execution": it gets SIGINT back to default before it starts.
sigint_default='import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])'
exec 3>&2
phase=play	# (a signal from here on is passed to the playbook, once it has a pid)
RG_FLEET_STATUS=$status RG_FLEET_OUT=$out RG_FLEET_PROGRESS_FD=3 RG_FLEET_RGBENCH=$rgbench RG_FLEET_START=$start \
ANSIBLE_CALLBACK_PLUGINS=$src/fleet/callback_plugins${ANSIBLE_CALLBACK_PLUGINS:+:$ANSIBLE_CALLBACK_PLUGINS} \
ANSIBLE_CALLBACKS_ENABLED=rgbench_fleet${ANSIBLE_CALLBACKS_ENABLED:+,$ANSIBLE_CALLBACKS_ENABLED} \
	setsid python3 -c "$sigint_default" ansible-playbook -i "$inv" -f "$forks" -e "@$tmp/vars.json" \
	"$src/fleet/rgbench.yml" >"$tmp/ansible.log" 2>&1 </dev/null &
play=$!
((interrupted)) && kill -INT "$play" 2>/dev/null
exec 3>&-
while :; do
	wait "$play"
	prc=$?
	# wait returns early (>128) when a trapped signal arrives: the playbook is still stopping
	((prc > 128)) && kill -0 "$play" 2>/dev/null && continue
	break
done
play= phase=after
t1=$(date +%s)

# The hosts the play started on, by their folder names (the callback's rg_name, safe and
# unique), each with its inventory name as shown on a terminal; none: the inventory did not
# parse, or names no host.
declare -A shown_as=()
mapfile -t hosts < <(awk -F'\t' '$2 == "listed" && !seen[$1]++ { print $1 }' "$status")
while IFS=$'\t' read -r h what as; do
	[[ $what == listed ]] && shown_as[$h]=$as
done <"$status"
if ((${#hosts[@]} == 0)) && ((!interrupted)); then
	rmdir "$out" 2>/dev/null
	# Ansible wraps its warnings: the plugin's words for this kind of file, joined. ansible-core
	# 2.14 (Debian 12) says "[WARNING]:  * Failed to parse INV with ini plugin: WHY" and
	# "ERROR! ..."; 2.19 (Debian 13) "[WARNING]: Failed to parse inventory with 'ini' plugin:
	# Failed to parse inventory: WHY", then the same again in a longer form, and "[ERROR]: ...".
	why=$(python3 - "$inv" "$tmp/ansible.log" <<'PY'
import re, sys
inv, log = sys.argv[1], " ".join(open(sys.argv[2], errors="replace").read().split())
want = "yaml" if re.search(r"\.(ya?ml|json)$", inv) else "ini"
end = r"(?: \[WARNING\]| \[ERROR\]| ERROR!| Failed to parse inventory with|$)"
m = re.search(r"Failed to parse (?:\S+ with |inventory with ')" + want + r"'? plugin: (.*?)" + end, log)
if m:
    print(f"{want} plugin: {re.sub(r'^Failed to parse inventory: ', '', m.group(1))}")
else:
    m = re.search(r"(?:ERROR!|\[ERROR\]:) (.*?)(?: \[WARNING\]|$)", log)
    print(m.group(1) if m else "")
PY
)
	((made_results)) && rmdir results 2>/dev/null
	[[ -n $why ]] && bad_input "inventory '$(shown "$inv")' does not parse: $(shown "$why")"
	bad_input "inventory '$(shown "$inv")' has no host (ansible-playbook exited $prc)"
fi
if ! cp "$tmp/ansible.log" "$tmp/status.tsv" "$out/" 2>/dev/null; then
	keep_tmp=1
	say "cannot copy ansible.log and status.tsv into $out (full disk?): they stay in $tmp"
fi

# unpack NAME: DIR/.NAME.tar (the host's run, fetched whole) into DIR/NAME/, a file at a time,
# each written into DIR/HOST/.unpack/ and then renamed into place: only whole files. The tar
# is removed once every file is out; else it stays (it holds the rest) and unpack_why says why.
unpack() {
	local tar=$out/.$1.tar part=$out/$1/.unpack m dest err members
	unpack_why=
	[[ -f $tar ]] || return 0
	members=$(tar -tf "$tar" 2>&1) || { unpack_why="$tar is not a tar: ${members##*$'\n'}"; return 1; }
	while IFS= read -r m; do
		# Files under the host's folder only: a member from a host is untrusted too (no
		# absolute path, no "."/".." or hidden part, no empty part, no control character).
		case "$m" in
		""|/*|*/|*//*|.*|*/.*|*[[:cntrl:]]*) continue ;;
		esac
		dest=$out/$1/$m
		# (tar's own writes say "Wrote only N of M bytes" on a full disk; cat names the errno)
		if ! err=$({ mkdir -p "$part" "${dest%/*}" && tar -xOf "$tar" -- "$m" | cat >"$part/file" &&
			     mv -f "$part/file" "$dest"; } 2>&1); then
			rm -rf "$part"
			err=${err%%$'\n'*}	# the first line: "cat: write error: No space left on device"
			unpack_why="cannot write $dest: ${err##*: } (the rest stays in $tar)"
			return 1
		fi
	done <<<"$members"
	rm -rf "$part"
	rm -f "$tar"
}

# One line per host: ok with its files, or why not.
ok=() nfail=0
for h in "${hosts[@]}"; do
	line=$(awk -F'\t' -v h="$h" '$1 == h { l = $0 } END { print l }' "$status")
	IFS=$'\t' read -r _ what step why <<<"$line"
	as=${shown_as[$h]:-$h}
	if ! unpack "$h" && [[ $what != failed ]]; then
		what=failed step=unpack why=$unpack_why
	fi
	nfiles=0
	[[ -d $out/$h ]] && nfiles=$(find "$out/$h" -type f | wc -l)
	if [[ $what == ok && -n $(find "$out/$h" -maxdepth 1 -type f -name '*.json' -print -quit 2>/dev/null) ]]; then
		ok+=("$out/$h")
		echo "$me: $as: ok, $nfiles files in $(shown "$out")/$h"
	elif [[ $what == ok ]]; then
		nfail=$((nfail + 1))
		echo "$me: $as: failed at fetch: no result file came back ($nfiles files)"
	elif [[ $what == failed ]]; then
		nfail=$((nfail + 1))
		echo "$me: $as: failed at $step: $why ($nfiles files kept)"
	elif ((interrupted)); then
		nfail=$((nfail + 1))
		echo "$me: $as: interrupted ($nfiles files kept)"
	else
		nfail=$((nfail + 1))
		echo "$me: $as: failed: the playbook ended without finishing it (exit $prc; see ansible.log)"
	fi
done
if ((interrupted)); then
	say "interrupted after $((t1 - t0)) s; the files fetched so far stay in $(shown "$out")"
	exit "$interrupted"
fi
say "${#ok[@]} of ${#hosts[@]} hosts finished in $((t1 - t0)) s"

# The report over the hosts that finished.
rc=0
((nfail == 0)) || rc=1
if ((${#ok[@]} == 0)); then
	say "no host finished: no report"
	exit 1
fi
if "$rgbench" report "${ok[@]}" --out "$out/report.md" >/dev/null; then
	echo "$me: report over ${#ok[@]} hosts in $out/report.md"
else
	say "rgbench report over ${ok[*]} failed (its message is above): no report"
	rc=1
fi
exit "$rc"
