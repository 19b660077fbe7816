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
	CHECK(rg_output_check(at("mine.csv"), NULL, err, sizeof(err)) == 1 && errno == EEXIST &&
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

	rg_results_free(&rs);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0, "cleanup");
	}
	return rg_test_done("schema.writer");
}
