// SPDX-License-Identifier: MIT
/* The shared writer and output check (schema/writer.c): refusals, locks, temporary names, one run id in both files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rg/schema.h"
#include "../check.h"

static char dir[64];

static const char *at(const char *name)
{
	static char buf[8][PATH_MAX];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Entries of dir other than . and .., as one sorted-insensitive count. */
static int entries(void)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

/* rg_output_check in a child process: its exit code, and 100 + errno's EBUSY when busy. */
static int check_in_child(const char *csv, const char *json)
{
	char err[PATH_MAX + 256];
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int rc = rg_output_check(csv, json, err, sizeof(err));
		int busy = rc == 1 && errno == EBUSY;

		rg_output_release();	/* what exit() would do */
		_exit(busy ? 100 : rc);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	struct rg_resultset rs;
	struct rg_env env;
	struct rg_result *r;
	char err[PATH_MAX + 256], name[NAME_MAX + 2], *csv, *json;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;

	snprintf(dir, sizeof(dir), "/tmp/rg-writer-XXXXXX");
	CHECK(mkdtemp(dir), "mkdtemp");
	memset(&env, 0, sizeof(env));
	snprintf(env.host, sizeof(env.host), "h");
	rg_results_init(&rs, &env);
	r = rg_results_add(&rs, "user", "tls", "pair");
	CHECK(r, "add");
	snprintf(r->reason, sizeof(r->reason), "two\nlines\tand\x1b[2J esc \xc2\x85 nel");

	/* Both files of a run, the same run id in each; control characters made printable. */
	CHECK(!rg_output_check(at("r.csv"), at("r.json"), err, sizeof(err)), "check: %s", err);
	CHECK(!access(at(".r.csv.lock"), F_OK) && !access(at(".r.json.lock"), F_OK), "no lock files");
	CHECK(check_in_child(at("r.csv"), NULL) == 100, "a second process got the CSV's lock");
	CHECK(check_in_child(at("other.csv"), at("r.json")) == 100, "a second process got the JSON's lock");
	CHECK(entries() == 2, "the refused check left files behind: %d entries", entries());
	CHECK(!rg_results_write(&rs, at("r.csv"), at("r.json"), err, sizeof(err)), "write: %s", err);
	rg_output_release();
	CHECK(entries() == 2, "after write and release: %d entries, want r.csv and r.json", entries());
	csv = slurp(at("r.csv"));
	json = slurp(at("r.json"));
	CHECK(csv && json && strstr(csv, rs.run_id) && strstr(json, rs.run_id), "run id %s missing",
	      rs.run_id);
	CHECK(csv && strstr(csv, ",two lines and?[2J esc ? nel\n"), "CSV reason: %s", csv);
	CHECK(json && strstr(json, "\"reason\":\"two lines and?[2J esc ? nel\""), "JSON reason");
	free(csv);
	free(json);
	CHECK(check_in_child(at("r.csv"), at("r.json")) == 0, "released locks still held");

	/* A lock file left by a dead process is no lock. */
	fd = open(at(".r.csv.lock"), O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, "999999999\n", 10) == 10 && !close(fd), "stale lock");
	CHECK(!rg_output_check(at("r.csv"), NULL, err, sizeof(err)), "stale lock refused: %s", err);
	rg_output_release();
	CHECK(access(at(".r.csv.lock"), F_OK), "stale lock file not removed");

	/* Refused before anything is created: same file, non-regular files, links, names. */
	CHECK(rg_output_check(at("x.csv"), at("./x.csv"), err, sizeof(err)) == 2 &&
	      strstr(err, "are the same file"), "same file: %s", err);
	CHECK(mkfifo(at("fifo"), 0644) == 0, "mkfifo");
	CHECK(rg_output_check(at("fifo"), NULL, err, sizeof(err)) == 2 && strstr(err, "(a FIFO)"),
	      "fifo: %s", err);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at("sock"));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)), "socket");
	CHECK(rg_output_check(NULL, at("sock"), err, sizeof(err)) == 2 && strstr(err, "(a socket)"),
	      "socket: %s", err);
	close(fd);
	CHECK(!symlink("r.csv", at("link.csv")), "symlink");
	CHECK(rg_output_check(at("link.csv"), NULL, err, sizeof(err)) == 2 &&
	      strstr(err, "is a symbolic link"), "symlink: %s", err);
	CHECK(rg_output_check(dir, NULL, err, sizeof(err)) == 2 && strstr(err, "is a directory"),
	      "directory: %s", err);
	CHECK(rg_output_check(at("nodir/x.csv"), NULL, err, sizeof(err)) == 2 &&
	      strstr(err, "does not exist"), "no directory: %s", err);
	CHECK(rg_output_check(at("r.csv/x.csv"), NULL, err, sizeof(err)) == 2 &&
	      strstr(err, "is not a directory"), "file as directory: %s", err);
	CHECK(entries() == 5, "refusals created files: %d entries", entries());

	/* The writers never replace what is not a regular file, even if it appeared after the check. */
	CHECK(rg_results_write_csv(&rs, at("fifo")) == -EEXIST, "fifo replaced by the writer");
	CHECK(rg_results_write(&rs, at("new.csv"), at("fifo"), err, sizeof(err)) == -EEXIST &&
	      access(at("new.csv"), F_OK), "pair write over a fifo: %s", err);
	CHECK(entries() == 5, "failed writes left files: %d entries", entries());

	/* A name of NAME_MAX bytes: temporary and lock names still fit; one more is refused. */
	memset(name, 'a', NAME_MAX);
	name[NAME_MAX] = '\0';
	memcpy(name + NAME_MAX - 4, ".csv", 4);
	rc = rg_output_check(at(name), NULL, err, sizeof(err));
	CHECK(rc == 0, "NAME_MAX name: %s", err);
	CHECK(!rg_results_write(&rs, at(name), NULL, err, sizeof(err)) && !access(at(name), F_OK),
	      "NAME_MAX name not written: %s", err);
	rg_output_release();
	CHECK(entries() == 6, "NAME_MAX name: %d entries", entries());
	CHECK(rg_output_check(at(name), at("long.json"), err, sizeof(err)) == 0, "again: %s", err);
	rg_output_release();
	strcat(name, "x");
	CHECK(rg_output_check(at(name), NULL, err, sizeof(err)) == 2 &&
	      strstr(err, "file name longer than"), "NAME_MAX + 1: %s", err);

	/*
	 * A leftover temporary file of a killed run whose PID is ours now (the
	 * old predictable ".NAME.PID.tmp"): the write still succeeds, with a
	 * name of its own, and leaves the leftover alone.
	 */
	{
		char old[64];
		int n = entries();

		snprintf(old, sizeof(old), ".left.csv.%d.tmp", (int)getpid());
		fd = open(at(old), O_WRONLY | O_CREAT | O_EXCL, 0644);
		CHECK(fd >= 0 && write(fd, "old", 3) == 3, "leftover");
		close(fd);
		CHECK(!rg_results_write(&rs, at("left.csv"), at("left.json"), err, sizeof(err)),
		      "write beside a leftover: %s", err);
		CHECK(entries() == n + 3, "leftover: %d entries, want %d", entries(), n + 3);
		csv = slurp(at(old));
		CHECK(csv && !strcmp(csv, "old"), "the leftover changed");
		free(csv);
		rg_output_release();
	}

	/* A file named like a lock that rgbench did not write is neither truncated nor removed. */
	fd = open(at(".mine.csv.lock"), O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "my notes\n", 9) == 9, "user's file");
	close(fd);
	CHECK(rg_output_check(at("mine.csv"), NULL, err, sizeof(err)) == 2 && errno == EEXIST &&
	      strstr(err, "is not an rgbench lock file"), "foreign lock file: %s", err);
	csv = slurp(at(".mine.csv.lock"));
	CHECK(csv && !strcmp(csv, "my notes\n"), "the user's file changed");
	free(csv);
	/* A dead run's lock (a pid line) is taken over. */
	fd = open(at(".dead.csv.lock"), O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "999999\n", 7) == 7, "dead lock");
	close(fd);
	CHECK(rg_output_check(at("dead.csv"), NULL, err, sizeof(err)) == 0, "dead lock: %s", err);
	rg_output_release();

	/*
	 * Issue 36 item 4: the folder is held from the check on. Swapped for a
	 * link to another folder after the check, the files still go into the
	 * folder checked (now moved), and nothing through the link.
	 */
	CHECK(!mkdir(at("held"), 0755) && !mkdir(at("elsewhere"), 0755), "mkdir held");
	CHECK(!rg_output_check(at("held/h.csv"), at("held/h.json"), err, sizeof(err)), "held: %s", err);
	CHECK(!rename(at("held"), at("moved")) && !symlink("elsewhere", at("held")), "swap");
	CHECK(!rg_results_write(&rs, at("held/h.csv"), at("held/h.json"), err, sizeof(err)),
	      "write to a swapped folder: %s", err);
	CHECK(!access(at("moved/h.csv"), F_OK) && !access(at("moved/h.json"), F_OK) &&
	      access(at("elsewhere/h.csv"), F_OK) && access(at("elsewhere/h.json"), F_OK),
	      "the files went through the link");
	rg_output_release();
	CHECK(access(at("moved/.h.csv.lock"), F_OK) && access(at("moved/.h.json.lock"), F_OK),
	      "the locks stayed in the moved folder");
	/* The same for one file of another kind (report's page, kmod's --raw). */
	CHECK(!unlink(at("held")) && !rename(at("moved"), at("held")), "swap back");
	CHECK(!rg_output_checkv((const char *const[]){ at("held/p.md") }, 1, err, sizeof(err)),
	      "held page: %s", err);
	CHECK(!rename(at("held"), at("moved")) && !symlink("elsewhere", at("held")), "swap again");
	CHECK(!rg_output_write(at("held/p.md"), "page\n", 5, err, sizeof(err)), "page: %s", err);
	CHECK(!access(at("moved/p.md"), F_OK) && access(at("elsewhere/p.md"), F_OK), "page through the link");
	rg_output_release();

	/*
	 * Item 3: a temporary file of a killed run (SIGKILL between create and
	 * rename: no handler runs) is removed by the next run that takes the lock;
	 * another name's, or a file that only looks alike, is left.
	 */
	{
		static const char *const left[] = { ".k.csv.Ab3xZ9.tmp", ".k.csv.ABCDEFG.tmp", ".kk.csv.Ab3xZ9.tmp" };

		for (int i = 0; i < 3; i++) {
			fd = open(at(left[i]), O_WRONLY | O_CREAT | O_EXCL, 0644);
			CHECK(fd >= 0 && write(fd, "half", 4) == 4 && !close(fd), "leftover %s", left[i]);
		}
		CHECK(!rg_output_check(at("k.csv"), NULL, err, sizeof(err)), "k: %s", err);
		CHECK(access(at(left[0]), F_OK) && !access(at(left[1]), F_OK) && !access(at(left[2]), F_OK),
		      "stale temporary files: the killed run's removed, the others kept");
		rg_output_release();
	}

	/* Item 7: what the start-up signal handler removes: this process's locks, not a child's view of them. */
	CHECK(!rg_output_check(at("sig.csv"), at("sig.json"), err, sizeof(err)), "sig: %s", err);
	{
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			rg_output_cleanup_signal();	/* the parent's locks: not the child's to remove */
			_exit(access(at(".sig.csv.lock"), F_OK) ? 1 : 0);
		}
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "a child removed its parent's lock");
	}
	rg_output_cleanup_signal();
	CHECK(access(at(".sig.csv.lock"), F_OK) && access(at(".sig.json.lock"), F_OK),
	      "the start-up handler's cleanup left a lock");
	rg_output_release();

	/*
	 * Item 5: a derived output (report, kmod --from-raw) never replaces a file
	 * that holds measurements unless forced; any other file it replaces.
	 */
	CHECK(!rg_results_write(&rs, at("m.csv"), at("m.json"), err, sizeof(err)), "m: %s", err);
	fd = open(at("notes.csv"), O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "my,notes\n", 9) == 9 && !close(fd), "notes");
	fd = open(at("raw.csv"), O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "suite,guard,scenario\n", 21) == 21 && !close(fd), "raw");
	for (int i = 0; i < 3; i++) {
		const char *p = at(i == 0 ? "m.csv" : i == 1 ? "m.json" : "raw.csv");

		CHECK(rg_output_checkv_flags(&p, 1, NULL, 0, RG_OUT_DERIVED, err, sizeof(err)) == 2 &&
		      strstr(err, "holds measured results") && strstr(err, "without --force"),
		      "measured %s: %s", p, err);
		CHECK(!rg_output_checkv_flags(&p, 1, NULL, 0, RG_OUT_DERIVED | RG_OUT_FORCE, err,
					      sizeof(err)), "forced %s: %s", p, err);
		rg_output_release();
		CHECK(!rg_output_checkv_flags(&p, 1, NULL, 0, 0, err, sizeof(err)), "run over %s: %s", p, err);
		rg_output_release();
	}
	{
		const char *p = at("notes.csv");

		CHECK(!rg_output_checkv_flags(&p, 1, NULL, 0, RG_OUT_DERIVED, err, sizeof(err)),
		      "derived over a file without measurements: %s", err);
		rg_output_release();
	}

	/* Item 12: a CSV named .json, a JSON named .csv; item 16: the empty name's one wording. */
	CHECK(rg_output_check_formats("x.json", NULL, err, sizeof(err)) == 2 &&
	      strstr(err, "the CSV output is named .json"), "csv as .json: %s", err);
	CHECK(rg_output_check_formats(NULL, "x.csv", err, sizeof(err)) == 2 &&
	      strstr(err, "the JSON output is named .csv"), "json as .csv: %s", err);
	CHECK(!rg_output_check_formats("x.csv", "x.json", err, sizeof(err)) &&
	      !rg_output_check_formats("x.dat", "x.dat.json", err, sizeof(err)), "good names refused");
	CHECK(rg_output_check("", NULL, err, sizeof(err)) == 2 && !strcmp(err, "an empty file name"),
	      "empty file: %s", err);
	CHECK(rg_output_check_dir("", err, sizeof(err)) == 2 && !strcmp(err, "an empty file name"),
	      "empty folder: %s", err);

	/* A set without rows replaces nothing: the old files stay, no temporary file is left. */
	{
		struct rg_resultset none;
		int n = entries();

		rg_results_init(&none, &env);
		CHECK(rg_results_write(&none, at("m.csv"), at("m.json"), err, sizeof(err)) == -ENODATA &&
		      strstr(err, "nothing measured"), "empty set written: %s", err);
		CHECK(entries() == n, "empty set: %d entries, want %d", entries(), n);
		csv = slurp(at("m.csv"));
		CHECK(csv && strstr(csv, rs.run_id), "empty set: m.csv changed");
		free(csv);
		rg_results_free(&none);
	}

	/* An unwritable place for the lock (here: a lock name that is a directory) is exit 2, not 1. */
	CHECK(!mkdir(at(".lk.csv.lock"), 0755), "lock dir");
	CHECK(rg_output_check(at("lk.csv"), NULL, err, sizeof(err)) == 2 && strstr(err, "lock"),
	      "a lock that cannot be made: %s", err);

	rg_results_free(&rs);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0, "cleanup");
	}
	return rg_test_done("schema.writer");
}
