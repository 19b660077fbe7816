// SPDX-License-Identifier: MIT
/* The output checks before a run: temporary and lock names, checked and locked paths, the spare descriptor. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema_int.h"

/* ---- output paths: temporary and lock names, checks, locks ----------------- */

/* FNV-1a, 64 bits: a short stand-in for a name too long to extend. */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The directory part of path ("." when none) and the start of the name. */
static const char *split_path(const char *path, char *dir, size_t dirlen)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, dirlen, ".");
	else if (slash == path)
		snprintf(dir, dirlen, "/");
	else
		snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
	return slash ? slash + 1 : path;
}

static long name_max(const char *dir)
{
	long m = pathconf(dir, _PC_NAME_MAX);

	return m > 0 ? m : NAME_MAX;
}

/*
 * A hidden name beside base in the directory dirfd: ".BASE<suffix>", or
 * ".rgbench-HASH<suffix>" when that would exceed the directory's NAME_MAX.
 * Deterministic, so two runs on the same path agree on the lock name.
 * 0 or -ENAMETOOLONG.
 */
static int side_base(char *buf, size_t len, int dirfd, const char *base, const char *suffix)
{
	long m = dirfd >= 0 ? fpathconf(dirfd, _PC_NAME_MAX) : -1;
	int n;

	if (m <= 0)
		m = NAME_MAX;
	if (strlen(base) + 1 + strlen(suffix) <= (size_t)m)
		n = snprintf(buf, len, ".%s%s", base, suffix);
	else
		n = snprintf(buf, len, ".rgbench-%016llx%s", (unsigned long long)name_hash(base), suffix);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The same as a path: "DIR/.NAME<suffix>" beside path. 0 or -ENAMETOOLONG. */
static int side_name(char *buf, size_t len, const char *path, const char *suffix)
{
	char dir[PATH_MAX], name[NAME_MAX + 64];
	const char *base = split_path(path, dir, sizeof(dir));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), n;

	n = side_base(name, sizeof(name), dfd, base, suffix);
	if (dfd >= 0)
		close(dfd);
	if (n)
		return n;
	n = snprintf(buf, len, "%.*s%s", (int)(base - path), path, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int rg_output_tmp_base(char *buf, size_t len, int dirfd, const char *base)
{
	return side_base(buf, len, dirfd, base, ".XXXXXX.tmp");
}

int rg_output_tmp_name(char *buf, size_t len, const char *path)
{
	/*
	 * A template: open_tmp() fills the X's with random characters and
	 * creates the file exclusively, so a leftover of a killed run (a
	 * predictable ".NAME.PID.tmp" plus PID reuse) can never fail a run.
	 */
	return side_name(buf, len, path, ".XXXXXX.tmp");
}

/*
 * One descriptor kept from the output check to the first write: a run that used up
 * what ulimit -n allows (its locks, counters, topology files) still has one to write
 * its results with, and a limit too low for even that is found before measuring.
 */
static int g_spare_fd = -1;

static int keep_spare_fd(void)
{
	if (g_spare_fd < 0)
		g_spare_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return g_spare_fd < 0 && (errno == EMFILE || errno == ENFILE) ? -errno : 0;
}

void rg_output_use_spare_fd(void)
{
	if (g_spare_fd >= 0)
		close(g_spare_fd);
	g_spare_fd = -1;
}

/*
 * The stop signals, held back while a lock or temporary file is created and
 * recorded, so that the start-up handler (rg_output_cleanup_signal(), called
 * from a signal handler) sees every file this process made.
 */
void rg_output_block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, old);
}

void rg_output_restore_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * Output locks this process holds: a flock()ed file beside each output, and
 * the output's directory, opened at the check and held to the write: the
 * writer creates, renames and removes only relative to it, so a directory
 * moved or swapped for a symbolic link during the run is never written
 * through (the files go into the folder that was checked).
 */
#define RG_MAX_OUTPUT_LOCKS 8
static struct {
	int fd;
	int dirfd;
	pid_t pid;		/* the taker: a forked child must not remove its parent's */
	char path[PATH_MAX + 64];	/* the lock's path, for messages */
	char lock[NAME_MAX + 1];	/* its name in dirfd */
	char out[PATH_MAX];		/* the output path as the command gave it */
	char base[NAME_MAX + 1];	/* the output's name in dirfd */
} g_locks[RG_MAX_OUTPUT_LOCKS];
static volatile sig_atomic_t g_nlocks;

/* Temporary files being written (writer.c): removed by rg_output_cleanup_signal(). */
#define RG_MAX_TMPS 4
static struct {
	volatile sig_atomic_t used;
	int dirfd;
	pid_t pid;
	char name[NAME_MAX + 1];
} g_tmps[RG_MAX_TMPS];

int rg_output_tmp_add(int dirfd, const char *name)
{
	for (int i = 0; i < RG_MAX_TMPS; i++)
		if (!g_tmps[i].used) {
			g_tmps[i].dirfd = dirfd;
			g_tmps[i].pid = getpid();
			snprintf(g_tmps[i].name, sizeof(g_tmps[i].name), "%s", name);
			g_tmps[i].used = 1;
			return i;
		}
	return -1;
}

void rg_output_tmp_drop(int slot)
{
	if (slot >= 0 && slot < RG_MAX_TMPS)
		g_tmps[slot].used = 0;
}

/* Async-signal-safe: only unlinkat() and getpid() on what is recorded. */
void rg_output_cleanup_signal(void)
{
	pid_t me = getpid();

	for (int i = 0; i < RG_MAX_TMPS; i++)
		if (g_tmps[i].used && g_tmps[i].pid == me)
			unlinkat(g_tmps[i].dirfd, g_tmps[i].name, 0);
	for (int i = 0; i < g_nlocks; i++)
		if (g_locks[i].pid == me)
			unlinkat(g_locks[i].dirfd, g_locks[i].lock, 0);
}

int rg_output_dirfd(const char *path)
{
	pid_t me = getpid();

	for (int i = 0; i < g_nlocks; i++)
		if (g_locks[i].pid == me && g_locks[i].dirfd >= 0 && !strcmp(g_locks[i].out, path))
			return g_locks[i].dirfd;
	return -1;
}

/* Drop the locks from index keep on (the lock goes with the last descriptor). */
static void drop_locks(int keep)
{
	sigset_t old;

	rg_output_block_signals(&old);
	while (g_nlocks > keep) {
		int k = g_nlocks - 1;

		/* Unlink while still holding it: a waiter that opened it re-checks the inode. */
		if (g_locks[k].pid == getpid())
			unlinkat(g_locks[k].dirfd, g_locks[k].lock, 0);
		close(g_locks[k].fd);
		close(g_locks[k].dirfd);
		g_nlocks = k;
	}
	rg_output_restore_signals(&old);
}

void rg_output_release(void)
{
	drop_locks(0);
	rg_output_use_spare_fd();
}

/* A temporary name of the writers for base: ".BASE.XXXXXX.tmp" (or the hashed form), X any of [A-Za-z0-9]. */
static bool is_tmp_of(const char *name, const char *prefix)
{
	size_t p = strlen(prefix), n = strlen(name);

	if (n != p + 10 || strncmp(name, prefix, p) || strcmp(name + n - 4, ".tmp"))
		return false;
	for (size_t i = p; i < p + 6; i++)
		if (!isalnum((unsigned char)name[i]))
			return false;
	return true;
}

/*
 * With the lock held, a temporary file of this output beside it is a killed
 * run's (SIGKILL, a crash, a power cut): only the lock's holder writes them.
 * Removed, as plot removes a killed plot's staging folder.
 */
static void remove_stale_tmps(int dirfd, const char *base)
{
	char prefix[NAME_MAX + 16];
	struct dirent *de;
	int fd;
	DIR *d;

	if (side_base(prefix, sizeof(prefix), dirfd, base, ".XXXXXX.tmp") < 0)
		return;
	prefix[strlen(prefix) - 10] = '\0';	/* ".NAME." */
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (is_tmp_of(de->d_name, prefix))
			unlinkat(dirfd, de->d_name, 0);
	closedir(d);
}

/*
 * 0 locked; 1 with err set, errno EBUSY when another live process holds it;
 * 2 when the lock file cannot be made at all (an output that cannot be written).
 * dirfd (the output's directory) is kept with the lock on success, closed on failure.
 */
static int take_lock(int dirfd, const char *path, const char *base, char *err, size_t errlen)
{
	static bool registered;
	char lock[NAME_MAX + 1], lockpath[PATH_MAX + 64], pid[32];
	struct stat a, b;
	sigset_t old;
	ssize_t got;
	int fd = -1, rc = 1, e = 0;

	if (g_nlocks == RG_MAX_OUTPUT_LOCKS) {
		snprintf(err, errlen, "%s: too many output files", path);
		close(dirfd);
		errno = EMFILE;
		return 2;
	}
	if (side_base(lock, sizeof(lock), dirfd, base, ".lock")) {
		snprintf(err, errlen, "%s: path too long", path);
		close(dirfd);
		errno = ENAMETOOLONG;
		return 2;
	}
	snprintf(lockpath, sizeof(lockpath), "%.*s%s", (int)(strlen(path) - strlen(base)), path, lock);
	if (!registered) {
		atexit(rg_output_release);
		registered = true;
	}
	rg_output_block_signals(&old);
	for (int tries = 0; tries < 100; tries++) {
		ssize_t n;

		fd = openat(dirfd, lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
			    0644);
		if (fd < 0) {
			e = errno;
			snprintf(err, errlen, "%s: cannot create the lock file %s: %s", path, lockpath,
				 strerror(e));
			rc = 2;
			goto out;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			e = errno;
			n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			close(fd);
			fd = -1;
			if (e == EWOULDBLOCK) {
				snprintf(err, errlen, "%s is being written by another rgbench run "
					 "(pid %s, lock %s)", path, *pid ? pid : "?", lockpath);
				e = EBUSY;
			} else {
				snprintf(err, errlen, "%s: cannot lock %s: %s", path, lockpath, strerror(e));
				rc = 2;
			}
			goto out;
		}
		/* The holder before us may have unlinked it: then lock the new file. */
		if (!fstat(fd, &a) && !fstatat(dirfd, lock, &b, AT_SYMLINK_NOFOLLOW) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot lock %s: it keeps changing", path, lockpath);
		e = EAGAIN;
		goto out;
	}
	/*
	 * Never truncate a file rgbench did not create: an existing lock file
	 * must be a regular file holding nothing or a dead holder's pid line.
	 */
	got = fstat(fd, &a) ? -1 : pread(fd, pid, sizeof(pid) - 1, 0);
	pid[got > 0 ? got : 0] = '\0';
	if (got < 0 || !S_ISREG(a.st_mode) || a.st_size >= (off_t)sizeof(pid) - 1 ||
	    strspn(pid, "0123456789") + (got && pid[got - 1] == '\n') != (size_t)got) {
		snprintf(err, errlen, "%s: %s is not an rgbench lock file (it is left alone: "
			 "remove it or choose another output)", path, lockpath);
		close(fd);
		fd = -1;
		e = EEXIST;
		rc = 2;
		goto out;
	}
	/* Whatever a dead holder left in it, the file now says who holds it. */
	{
		int len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

		if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)len, 0) != len) {
			e = errno;
			snprintf(err, errlen, "%s: cannot write the lock file %s: %s", path, lockpath,
				 strerror(e));
			unlinkat(dirfd, lock, 0);
			close(fd);
			fd = -1;
			rc = 2;
			goto out;
		}
	}
	g_locks[g_nlocks].fd = fd;
	g_locks[g_nlocks].dirfd = dirfd;
	g_locks[g_nlocks].pid = getpid();
	snprintf(g_locks[g_nlocks].path, sizeof(g_locks[g_nlocks].path), "%s", lockpath);
	snprintf(g_locks[g_nlocks].lock, sizeof(g_locks[g_nlocks].lock), "%s", lock);
	snprintf(g_locks[g_nlocks].out, sizeof(g_locks[g_nlocks].out), "%s", path);
	snprintf(g_locks[g_nlocks].base, sizeof(g_locks[g_nlocks].base), "%s", base);
	g_nlocks = g_nlocks + 1;
	rg_output_restore_signals(&old);
	remove_stale_tmps(dirfd, base);
	return 0;
out:
	rg_output_restore_signals(&old);
	close(dirfd);
	errno = e;
	return rc;
}

struct out_id {
	dev_t dev;
	ino_t ino;
	const char *base;
	int dirfd;		/* the output's directory, held from the check to the write */
	bool exists;		/* a regular file of that name is there */
};

/*
 * An existing regular file the writer's rename() could not replace, found
 * before any measuring: immutable or append-only (chattr +i/+a: EPERM on
 * rename), or another user's file in a sticky directory (/tmp: only its
 * owner, the directory's owner or CAP_FOWNER may replace it). 0, or 2 with
 * why in err.
 */
static int check_replaceable(const char *path, const struct out_id *id, const struct stat *st,
			     const struct stat *dir, char *err, size_t errlen)
{
	int fd = openat(id->dirfd, id->base, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	int flags = 0;
	uid_t me = geteuid();

	if (fd >= 0) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
			flags = 0;	/* a file system without flags has no immutable files */
		close(fd);
	}
	if (flags & (FS_IMMUTABLE_FL | FS_APPEND_FL))
		return snprintf(err, errlen, "%s: cannot be replaced: the file is %s (chattr +%c)",
				path, flags & FS_IMMUTABLE_FL ? "immutable" : "append-only",
				flags & FS_IMMUTABLE_FL ? 'i' : 'a'), 2;
	if ((dir->st_mode & S_ISVTX) && me != 0 && st->st_uid != me && dir->st_uid != me)
		return snprintf(err, errlen, "%s: cannot be replaced: another user's file (uid %u) in "
				"a sticky directory", path, (unsigned)st->st_uid), 2;
	return 0;
}

bool rg_output_holds_measurements_at(int dirfd, const char *name)
{
	static const char *const heads[] = { "schema_version,", "{\"schema_version\":", "suite,guard," };
	int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	char head[32];
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, head, sizeof(head) - 1, 0);
	close(fd);
	head[n > 0 ? n : 0] = '\0';
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		if (!strncmp(head, heads[i], strlen(heads[i])))
			return true;
	return false;
}

bool rg_dir_result_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && !strstr(name, ".tmp.") &&
	       ((n > 4 && !strcmp(name + n - 4, ".csv")) || (n > 5 && !strcmp(name + n - 5, ".json")));
}

/*
 * Everything about one output path that can be known before the run. 0 or 2.
 * On return id->dirfd is the output's directory, opened (or -1): the caller's.
 */
static int check_path(const char *path, struct out_id *id, char *err, size_t errlen)
{
	char dir[PATH_MAX], side[NAME_MAX + 64];
	const char *base;
	struct stat st, dst;
	size_t len = strlen(path);

	id->dirfd = -1;
	id->exists = false;
	if (!len)
		return snprintf(err, errlen, "an empty file name"), 2;
	if (path[len - 1] == '/')
		return snprintf(err, errlen, "%s: not a file name", path), 2;
	if (len >= PATH_MAX)
		return snprintf(err, errlen, "%.64s...: path longer than %d bytes", path, PATH_MAX - 1), 2;
	base = split_path(path, dir, sizeof(dir));
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		return snprintf(err, errlen, "%s: not a file name", path), 2;
	if (stat(dir, &st))
		return snprintf(err, errlen, "%s: directory %s does not exist", path, dir), 2;
	if (!S_ISDIR(st.st_mode))
		return snprintf(err, errlen, "%s: %s is not a directory", path, dir), 2;
	if (access(dir, W_OK | X_OK))
		return snprintf(err, errlen, "%s: directory %s is not writable%s", path, dir,
				errno == EROFS ? " (a read-only file system)" :
				errno == EPERM ? " (immutable)" : ""), 2;
	/* From here on, the directory is this descriptor: what the writer will use. */
	id->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (id->dirfd < 0 || fstat(id->dirfd, &st))
		return snprintf(err, errlen, "%s: directory %s: %s", path, dir, strerror(errno)), 2;
	dst = st;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->base = base;
	if (strlen(base) > (size_t)name_max(dir))
		return snprintf(err, errlen, "%s: file name longer than %ld bytes", path, name_max(dir)), 2;
	if (side_base(side, sizeof(side), id->dirfd, base, ".XXXXXX.tmp") ||
	    side_base(side, sizeof(side), id->dirfd, base, ".lock"))
		return snprintf(err, errlen, "%s: path too long for its temporary file", path), 2;
	if (fstatat(id->dirfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return snprintf(err, errlen, "%s: %s", path, strerror(errno)), 2;
		return 0;
	}
	if (S_ISLNK(st.st_mode))
		return snprintf(err, errlen, "%s: is a symbolic link (rgbench neither follows nor "
				"replaces links; give the target's path)", path), 2;
	if (S_ISDIR(st.st_mode))
		return snprintf(err, errlen, "%s: is a directory", path), 2;
	if (!S_ISREG(st.st_mode))
		return snprintf(err, errlen, "%s: exists and is not a regular file (%s)", path,
				S_ISCHR(st.st_mode) ? "a character device" :
				S_ISBLK(st.st_mode) ? "a block device" :
				S_ISFIFO(st.st_mode) ? "a FIFO" :
				S_ISSOCK(st.st_mode) ? "a socket" : "not a file"), 2;
	id->exists = true;
	return check_replaceable(path, id, &st, &dst, err, errlen);
}

/* The CSV/JSON twin of a result file's name (x.csv <-> x.json) into buf. 0, or -1 for neither. */
static int twin_name(const char *path, char *buf, size_t size)
{
	size_t len = strlen(path);

	if (len > 4 && !strcmp(path + len - 4, ".csv"))
		return snprintf(buf, size, "%.*s.json", (int)(len - 4), path) < (int)size ? 0 : -1;
	if (len > 5 && !strcmp(path + len - 5, ".json"))
		return snprintf(buf, size, "%.*s.csv", (int)(len - 5), path) < (int)size ? 0 : -1;
	return -1;
}

/* path names the same entry as id (same directory and name), or the same existing file. */
static bool names_same(const char *path, const char *out, const struct out_id *id)
{
	char dir[PATH_MAX];
	const char *base;
	struct stat a, b;

	if (strlen(path) >= PATH_MAX)
		return false;
	base = split_path(path, dir, sizeof(dir));
	if (!stat(dir, &a) && a.st_dev == id->dev && a.st_ino == id->ino && !strcmp(base, id->base))
		return true;
	return !stat(path, &a) && !stat(out, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* An output that would replace an input of the same command, or that input's twin. 0 or 2. */
static int check_not_input(const char *out, const struct out_id *id, const char *const *in,
			   size_t nin, char *err, size_t errlen)
{
	char twin[PATH_MAX];
	struct stat st;

	for (size_t k = 0; k < nin; k++) {
		if (!in[k])
			continue;
		if (!stat(in[k], &st) && S_ISDIR(st.st_mode)) {
			/* The reader's files of a directory operand (plots/read_dir.c) are inputs too. */
			if (st.st_dev == id->dev && st.st_ino == id->ino && rg_dir_result_name(id->base))
				return snprintf(err, errlen, "%s: is an input of this command (a result "
						"file in the directory %s, which it reads): rgbench "
						"never replaces what it reads", out, in[k]), 2;
			continue;
		}
		if (names_same(in[k], out, id))
			return snprintf(err, errlen, "%s: is an input of this command (%s): "
					"rgbench never replaces what it reads", out, in[k]), 2;
		if (!twin_name(in[k], twin, sizeof(twin)) && names_same(twin, out, id))
			return snprintf(err, errlen, "%s: is the CSV/JSON twin of the input %s: "
					"rgbench never replaces what it reads", out, in[k]), 2;
	}
	return 0;
}

int rg_output_checkv_flags(const char *const *paths, size_t n, const char *const *in, size_t nin,
			   unsigned int flags, char *err, size_t errlen)
{
	struct out_id id[RG_MAX_OUTPUT_LOCKS];
	int held = g_nlocks, rc = 0;
	size_t i;

	if (n > RG_MAX_OUTPUT_LOCKS)
		return snprintf(err, errlen, "too many output files"), 2;
	for (i = 0; i < n; i++)
		id[i].dirfd = -1;
	/* "-": standard output, at most one of them, and open; never a file, so no lock. */
	for (i = 0; i < n; i++) {
		if (!rg_output_is_stdout(paths[i]))
			continue;
		for (size_t k = 0; k < i; k++)
			if (rg_output_is_stdout(paths[k]))
				return snprintf(err, errlen, "-: two outputs to standard output (e.g. "
						"--out - --json -): only one may be -, give the other "
						"a file name"), 2;
		if (fcntl(STDOUT_FILENO, F_GETFL) < 0)
			return snprintf(err, errlen, "-: standard output is closed"), 2;
	}
	for (i = 0; i < n && !rc; i++) {
		if (!paths[i] || rg_output_is_stdout(paths[i]))
			continue;
		if (check_path(paths[i], &id[i], err, errlen) ||
		    check_not_input(paths[i], &id[i], in, nin, err, errlen)) {
			rc = 2;
			break;
		}
		if ((flags & RG_OUT_DERIVED) && !(flags & RG_OUT_FORCE) && id[i].exists &&
		    rg_output_holds_measurements_at(id[i].dirfd, id[i].base)) {
			snprintf(err, errlen, "%s: holds measured results (a run's CSV, JSON or module "
				 "file): not replaced without --force", paths[i]);
			rc = 2;
			break;
		}
		for (size_t k = 0; k < i; k++)
			if (paths[k] && !rg_output_is_stdout(paths[k]) && id[k].dev == id[i].dev && id[k].ino == id[i].ino &&
			    !strcmp(id[k].base, id[i].base)) {
				snprintf(err, errlen, "%s and %s are the same file: each output needs "
					 "its own", paths[k], paths[i]);
				rc = 2;
				break;
			}
	}
	for (i = 0; i < n && !rc; i++) {
		if (!paths[i] || rg_output_is_stdout(paths[i]))
			continue;
		rc = take_lock(id[i].dirfd, paths[i], id[i].base, err, errlen);
		id[i].dirfd = -1;	/* the lock's now, or closed */
		if (rc) {
			int e = errno;

			drop_locks(held);	/* all or nothing: what this call took */
			errno = e;
		}
	}
	for (i = 0; i < n; i++)
		if (id[i].dirfd >= 0)
			close(id[i].dirfd);
	if (rc)
		return rc;
	if (n && keep_spare_fd()) {
		struct rlimit rl = { 0 };

		getrlimit(RLIMIT_NOFILE, &rl);
		snprintf(err, errlen, "no file descriptor left to write the results with "
			 "(ulimit -n %llu): raise the limit", (unsigned long long)rl.rlim_cur);
		drop_locks(held);
		return 2;
	}
	return 0;
}

bool rg_output_is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

int rg_output_checkv_in(const char *const *paths, size_t n, const char *const *in, size_t nin,
			char *err, size_t errlen)
{
	return rg_output_checkv_flags(paths, n, in, nin, 0, err, errlen);
}

int rg_output_check_dir(const char *dir, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	const char *base;
	struct stat st;
	size_t len = strlen(dir);

	if (!len)
		return snprintf(err, errlen, "an empty file name"), 2;
	if (len >= PATH_MAX)
		return snprintf(err, errlen, "%.64s...: path longer than %d bytes", dir, PATH_MAX - 1), 2;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len == 1 && dir[0] == '/')
		return snprintf(err, errlen, "/: rgbench publishes into a folder of its own, not /"), 2;
	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%.*s", (int)len, dir);
		base = split_path(path, parent, sizeof(parent));
		/* "--out ." or "x/..": the folder they name, by its real path. */
		if ((!strcmp(base, ".") || !strcmp(base, "..")) && !realpath(path, parent))
			return snprintf(err, errlen, "%s: %s", dir, strerror(errno)), 2;
		if (!strcmp(base, ".") || !strcmp(base, "..")) {
			if (!strcmp(parent, "/"))
				return snprintf(err, errlen, "/: rgbench publishes into a folder of its "
						"own, not /"), 2;
			snprintf(path, sizeof(path), "%s", parent);
			base = split_path(path, parent, sizeof(parent));
		}
		if (stat(parent, &st) || !S_ISDIR(st.st_mode))
			return snprintf(err, errlen, "%s: directory %s does not exist", dir, parent), 2;
		if (access(parent, W_OK | X_OK))
			return snprintf(err, errlen, "%s: directory %s is not writable", dir, parent), 2;
		if (!lstat(path, &st) && S_ISLNK(st.st_mode))
			return snprintf(err, errlen, "%s: is a symbolic link (rgbench neither follows nor "
					"replaces links; give the target's path)", dir), 2;
		if (!lstat(path, &st) && !S_ISDIR(st.st_mode))
			return snprintf(err, errlen, "%s exists and is not a directory", dir), 2;
		if (!lstat(path, &st) && access(path, W_OK | X_OK))
			return snprintf(err, errlen, "%s: directory is not writable", dir), 2;
		{
			int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (pfd < 0)
				return snprintf(err, errlen, "%s: directory %s: %s", dir, parent,
						strerror(errno)), 2;
			return take_lock(pfd, path, base, err, errlen);
		}
	}
}

int rg_output_checkv(const char *const *paths, size_t n, char *err, size_t errlen)
{
	return rg_output_checkv_in(paths, n, NULL, 0, err, errlen);
}

int rg_output_check_formats(const char *csv, const char *json, char *err, size_t errlen)
{
	size_t n = csv ? strlen(csv) : 0;

	if (n > 5 && !strcmp(csv + n - 5, ".json"))
		return snprintf(err, errlen, "%s: the CSV output is named .json (the JSON goes to --json "
				"FILE)", csv), 2;
	n = json ? strlen(json) : 0;
	if (n > 4 && !strcmp(json + n - 4, ".csv"))
		return snprintf(err, errlen, "%s: the JSON output is named .csv (the CSV goes to --out "
				"FILE)", json), 2;
	return 0;
}

int rg_output_check(const char *csv, const char *json, char *err, size_t errlen)
{
	const char *p[2] = { csv, json };

	return rg_output_checkv(p, 2, err, errlen);
}
