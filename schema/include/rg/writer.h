/* SPDX-License-Identifier: MIT */
/* The one writer of result files and its output policy: CSV and JSON written all or nothing, output locks, and the text that goes into them. */
#ifndef RG_WRITER_H
#define RG_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rg/text.h"

struct rg_resultset;

/*
 * "-" as an output path is standard output (a file named - is ./-): the data
 * is written there in full, after every file of the same batch is in place,
 * with no temporary file and no lock; the checks below refuse two outputs of
 * one command on "-" and a closed stdout. A terminal is written to like a
 * pipe (the data is text). A failed write there (a closed pipe: EPIPE, since
 * the stop-signal kit ignores SIGPIPE) is "cannot write the standard output:
 * why", the files written stay.
 */
bool rg_output_is_stdout(const char *path);
/*
 * The lines naming what a run wrote, to f (stderr; NULL: none, under -qq or
 * --silent): "PROG: wrote N rows to CSV" (or "... to standard output") and
 * "PROG: wrote JSON" for each path that is not NULL, names made printable.
 */
void rg_output_say_wrote(FILE *f, const char *prog, size_t nrows, const char *csv, const char *json);

/*
 * Write the set to path, atomically: the data goes to a temporary file beside
 * it (".NAME.XXXXXX.tmp", random and created exclusively, or ".rgbench-HASH.XXXXXX.tmp" when that would exceed
 * NAME_MAX), is fsync'ed, then renamed over path. An interrupted run leaves
 * either the old file or the complete new one. A path that exists and is not a
 * regular file is never replaced (-EEXIST; -EISDIR for a directory).
 * 0 or -errno (nothing left behind on error).
 */
int rg_results_write_csv(const struct rg_resultset *rs, const char *path);
int rg_results_write_json(const struct rg_resultset *rs, const char *path);

/*
 * Both files of one run (either path may be NULL): both temporary files are
 * written and fsync'ed first, then renamed one right after the other, so a
 * full disk or a write error changes neither. Both carry rs->run_id, so a kill
 * between the two renames leaves a pair the reader refuses as mismatched.
 * 0, or -errno with "cannot write PATH: why" in err. A set without rows is
 * never written (a command that produced nothing replaces nothing):
 * -ENODATA, "nothing measured: PATH not written ...".
 */
int rg_results_write(const struct rg_resultset *rs, const char *csv, const char *json,
		     char *err, size_t errlen);
/*
 * The same with one more output of the run in the batch (extra: len bytes of
 * data, e.g. --benchmark_out's report; NULL for none): every temporary file
 * is complete before the first rename, so a failure on any of them changes
 * none of the outputs.
 */
int rg_results_write_with(const struct rg_resultset *rs, const char *csv, const char *json,
			  const char *extra, const char *data, size_t len, char *err, size_t errlen);

/*
 * Any other output file (e.g. kmod's --raw, the module's own CSV): len bytes
 * of data written to path the same way, atomically (a temporary file beside
 * it, fsync'ed, renamed over path; a path that is not a regular file is never
 * replaced). 0, or -errno with "cannot write PATH: why" in err.
 */
int rg_output_write(const char *path, const char *data, size_t len, char *err, size_t errlen);

/*
 * Check the output paths of a run before measuring, and reserve them:
 *  - each path names a file in an existing, writable directory, with a name
 *    within NAME_MAX and PATH_MAX (its temporary and lock names always fit);
 *  - an existing path must be a regular file: a directory, device, FIFO or
 *    socket is refused, and so is a symbolic link (rgbench never writes
 *    through a link nor replaces one: give the target's path);
 *  - no two paths name the same file (e.g. --out x.csv --json ./x.csv);
 *  - each path is locked against other runs writing it: a lock file beside it
 *    (".NAME.lock", flock()ed, holding the pid), so a second run on the same
 *    output fails here instead of interleaving its files with the first. A
 *    lock left by a process that died is free again (flock dies with it).
 * Locks are held until rg_output_release() or process exit.
 * The directory of each path is opened here and held with its lock: the
 * writers create and rename relative to it, so a folder moved or swapped for
 * a symbolic link during the run is never written through. With the lock
 * taken, a temporary file of that output left by a killed run is removed.
 * Returns 0; 2 when a path is unusable (a usage error: "PATH: why" in err),
 * its lock file included (cannot be created, not an rgbench lock file);
 * 1 when another run holds the lock (errno EBUSY).
 */
int rg_output_check(const char *csv, const char *json, char *err, size_t errlen);
/* The same for n paths (NULL entries are skipped), e.g. kmod's --out, --json and --raw. */
int rg_output_checkv(const char *const *paths, size_t n, char *err, size_t errlen);
/*
 * The same, and no output may name one of the command's nin input files
 * (NULL entries and directories skipped), by any spelling or hard link, nor
 * that input's CSV/JSON twin (x.csv <-> x.json): "OUT: is an input of this
 * command (IN)", 2. E.g. report's --out, kmod's outputs against --from-raw.
 */
int rg_output_checkv_in(const char *const *paths, size_t n, const char *const *in, size_t nin,
			char *err, size_t errlen);
/*
 * The same with a policy: flags RG_OUT_DERIVED for a command whose output
 * costs milliseconds (report, kmod --from-raw): an existing file that holds
 * measurements (a result CSV or JSON, a module file) is refused, "OUT: holds
 * measured results ...: not replaced without --force", 2, unless
 * RG_OUT_FORCE is also given.
 */
enum { RG_OUT_DERIVED = 1u << 0, RG_OUT_FORCE = 1u << 1 };
int rg_output_checkv_flags(const char *const *paths, size_t n, const char *const *in, size_t nin,
			   unsigned int flags, char *err, size_t errlen);
/* True when the file name in dirfd (AT_FDCWD: a path) starts like a result CSV or JSON or a module file. */
bool rg_output_holds_measurements_at(int dirfd, const char *name);
/*
 * A CSV output named .json or a JSON output named .csv (either may be NULL):
 * 2 with "PATH: the CSV output is named .json ..." in err; else 0. The
 * reader goes by the name, so such a pair could be written but never read:
 * every command with --out and --json calls it before its output check.
 */
int rg_output_check_formats(const char *csv, const char *json, char *err, size_t errlen);
/*
 * The start-up side of the stop signals (called from a signal handler, so
 * async-signal-safe): remove every lock file and temporary file this process
 * made. tools/rgbench.c hands it to rg_cl_catch_startup_signals().
 */
void rg_output_cleanup_signal(void);
/*
 * A name the reader takes from a directory operand (its read_dir.c): ends in
 * .csv or .json, does not start with '.', holds no ".tmp.". The output check
 * refuses such a name in a directory the command reads.
 */
bool rg_dir_result_name(const char *name);
/*
 * The same policy for an output that is a folder (plot --out DIR): its
 * parent exists and is writable, DIR is no symbolic link (a dangling one
 * included) and, when it exists, a writable directory; then DIR is locked
 * (".DIR.lock" beside it) so that a second command on the same DIR fails
 * here, before any work. 0; 2 unusable ("DIR: why" in err); 1 locked.
 */
int rg_output_check_dir(const char *dir, char *err, size_t errlen);
/* Drop every output lock this process holds (also done at exit). */
void rg_output_release(void);
/* The temporary name template the writers use for path (".NAME.XXXXXX.tmp", fits NAME_MAX). 0 or -ENAMETOOLONG. */
int rg_output_tmp_name(char *buf, size_t len, const char *path);

/* rg_str_printable(), rg_str_is_printable(), rg_utf8_repair(), rg_csv_put_field(): rg/text.h. */

#endif /* RG_WRITER_H */
