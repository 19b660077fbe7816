// SPDX-License-Identifier: MIT
/* rseq guards under forced migration and a signal storm: exact totals, aborts and migrations counted by the kernel. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rg/guard.h"
#include "rg/registry.h"
#include "rg/rseq.h"
#include "check.h"
#include "guard_tries.h"

/*
 * Worker threads are NOT pinned: a migrator thread moves each of them to
 * another CPU (sched_setaffinity on the thread) every few tens of
 * microseconds, and a storm thread signals them, the handler entering the
 * guard too. rseq and rctx read the CPU inside each restartable sequence, so
 * whatever the kernel does between an op's cpu_id load and its commit ends in
 * an abort and a retry on the new CPU: no update is lost, and the sum over all
 * CPUs' slots is back to 0 after every enter has been undone by its exit. (The
 * per-slot values need not be 0: an enter on CPU A and its exit on CPU B leave
 * +1 and -1, which is why the guards' contract, and every other test, pins.)
 *
 * The kernel counts what happened: rseq aborts by the rseq:rseq_ip_fixup
 * tracepoint (the kernel fires it exactly when it moves a thread to an abort
 * handler), migrations by the cpu-migrations software event, both inherited
 * by the worker threads. The negative control racy-percpu (plain load, add,
 * store on the current CPU's slot) must lose counts under the same treatment.
 *
 * Usage: test_migrate [pairs-per-thread [racy-seconds]]
 * Each worker repeats its pairs-per-thread until the migrator and the storm have
 * each acted 16 times in the run and, with RG_EXPECT_ABORTS=1, the kernel has
 * counted an rseq abort of an rseq guard (at most 10000 rounds). The storm signals a
 * worker again only once it has done a pair since the last signal, so that a
 * worker moves on between signals however slow its CPU is. A run that has not
 * ended after RG_MIGRATE_LIMIT seconds (default 300) fails with each worker's
 * progress; a progress line goes to stderr every 30 s before that.
 * RG_EXPECT_ABORTS=1: the abort and migration counts must be readable and > 0, and a
 * worker must have seen its CPU change
 * (set in the arm64 guest, where the test runs as root with tracefs mounted).
 * Exit: 0 pass, 1 fail, 77 skipped (no rseq registration: qemu-user, old glibc).
 */

#define NWORKERS 4

struct worker {
	pthread_t tid;
	pid_t ktid;		/* kernel thread id: a dead one gives ESRCH, never a stale pthread_t */
	struct rg_tries tries, h_tries;	/* own loop, signal handler */
	uint64_t iters, chunks, cpu_changes;
	uint64_t pairs;		/* pairs done so far this run, for the storm and the watch (atomic) */
	int done;
} __attribute__((aligned(RG_CACHELINE)));

static const struct rg_guard_info *cur_gi;
static struct rg_guard cur_g;
static struct worker workers[NWORKERS];
static int go, stop, enough;	/* enough: the workers may end (wait_workers decides) */
/* Moves and signals so far this run: workers go on (in chunks of iters) until enough of both. */
static uint64_t run_moves, run_signals;
static long ncpus_allowed;
static int allowed_cpus[1024];
static __thread struct worker *me;
/*
 * This thread's CPU as the kernel's rseq area says (cpu_id, current on every
 * return to userspace). Not rg_this_cpu(): for a thread that is not pinned it
 * reads the CPU cached when the thread started, which a migration leaves stale.
 */
static __thread const volatile uint32_t *my_cpu_id;

static unsigned int cur_cpu(void)
{
	return *my_cpu_id;
}

static void on_signal(int signo)
{
	struct worker *w = me;

	(void)signo;
	if (w)
		rg_tries_exit_signal(cur_gi, &cur_g, rg_tries_enter_signal(&w->h_tries, cur_gi, &cur_g));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int last = -1;

	rg_percpu_thread_init();
	my_cpu_id = (const volatile uint32_t *)((char *)rg_rseq_area() + RG_RSEQ_OFF_CPU_ID);
	me = w;
	__atomic_store_n(&w->ktid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		sched_yield();
	do {
		for (uint64_t i = 0; i < w->iters; i++) {
			bool ok;
			int cpu;

			ok = rg_tries_enter(&w->tries, cur_gi, &cur_g);
			cur_gi->exit(&cur_g, ok);
			__atomic_store_n(&w->pairs, w->pairs + 1, __ATOMIC_RELAXED);
			cpu = (int)cur_cpu();
			w->cpu_changes += last >= 0 && cpu != last;
			last = cpu;
		}
		w->chunks++;
	} while (!__atomic_load_n(&enough, __ATOMIC_ACQUIRE) && w->chunks < 10000);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The unprotected control, unpinned: this CPU's slot by rseq's cpu_id, plain load/add/store. */
static bool racy_unpinned_enter(struct rg_guard *g)
{
	uint32_t *slot = rg_guard_slot(g, cur_cpu());
	uint32_t v = RG_READ_ONCE(*slot);

	RG_WRITE_ONCE(*slot, v + 1);
	return v == 0;
}

static void racy_unpinned_exit(struct rg_guard *g, bool granted)
{
	uint32_t *slot = rg_guard_slot(g, cur_cpu());

	(void)granted;
	RG_WRITE_ONCE(*slot, RG_READ_ONCE(*slot) - 1);
}

/* Moves worker after worker to the next allowed CPU; counts the moves it made. */
static void *migrator_main(void *arg)
{
	struct timespec ts = { 0, 30000 };
	uint64_t *moves = arg;
	unsigned int k = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct worker *w = &workers[k % NWORKERS];
		pid_t tid = __atomic_load_n(&w->ktid, __ATOMIC_ACQUIRE);
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(allowed_cpus[(k / NWORKERS + k) % ncpus_allowed], &set);
		if (tid && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) &&
		    sched_setaffinity(tid, sizeof(set), &set) == 0) {
			(*moves)++;
			__atomic_add_fetch(&run_moves, 1, __ATOMIC_RELAXED);
		}
		k++;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Signals each worker that has done a pair since its last signal; counts the signals sent. */
static void *storm_main(void *arg)
{
	struct timespec ts = { 0, 20000 };
	uint64_t *sent = arg, seen[NWORKERS] = { 0 };

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < NWORKERS; i++) {
			pid_t tid = __atomic_load_n(&workers[i].ktid, __ATOMIC_ACQUIRE);
			uint64_t pairs = __atomic_load_n(&workers[i].pairs, __ATOMIC_RELAXED);

			if (tid && pairs != seen[i] && !__atomic_load_n(&workers[i].done, __ATOMIC_ACQUIRE) &&
			    syscall(SYS_tgkill, getpid(), tid, SIGUSR1) == 0) {
				seen[i] = pairs;
				(*sent)++;
				__atomic_add_fetch(&run_signals, 1, __ATOMIC_RELAXED);
			}
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* A counting perf event on this process and the threads it creates from now on; -1 if refused. */
static int count_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.inherit = 1;
	return (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int64_t count_read(int fd)
{
	uint64_t v;

	return fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? (int64_t)v : -1;
}

/* The rseq:rseq_ip_fixup tracepoint's id from tracefs, -1 when not there. */
static long rseq_fixup_id(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/rseq/rseq_ip_fixup/id",
		"/sys/kernel/debug/tracing/events/rseq/rseq_ip_fixup/id",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		FILE *f = fopen(paths[i], "r");
		long id;

		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
		if (id >= 0)
			return id;
	}
	return -1;
}

struct totals {
	struct rg_tries tries, h_tries;
	uint64_t cpu_changes, moves, signals, expected;
	uint32_t slot_sum;
	uint8_t lane_sum[4];	/* per byte of the slots: rctx counts in u8[4] */
	int64_t aborts, migrations;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Waits for the workers of a run of gi. They may end once the migrator and the
 * storm have each acted 16 times and, when want_abort, the kernel has counted
 * an rseq abort since a0 (on fd_abort): a check that wants one must not depend
 * on one landing in a short run by chance (1 run in 60 single-stepped had
 * none). A progress line on stderr every 30 s; past limit seconds each
 * worker's progress and exit 1 (a run takes seconds, even single-stepped: one
 * that goes on is stuck, and says where).
 */
static void wait_workers(const struct rg_guard_info *gi, double limit, bool want_abort, int fd_abort,
			 int64_t a0)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	double t0 = now_s(), next = t0 + 30;

	for (;;) {
		int ndone = 0;
		double t = now_s();

		if (!__atomic_load_n(&enough, __ATOMIC_RELAXED) &&
		    __atomic_load_n(&run_moves, __ATOMIC_RELAXED) >= 4 * NWORKERS &&
		    __atomic_load_n(&run_signals, __ATOMIC_RELAXED) >= 4 * NWORKERS &&
		    (!want_abort || count_read(fd_abort) > a0))
			__atomic_store_n(&enough, 1, __ATOMIC_RELEASE);

		for (int i = 0; i < NWORKERS; i++)
			ndone += __atomic_load_n(&workers[i].done, __ATOMIC_ACQUIRE);
		if (ndone == NWORKERS)
			break;
		if (t >= next || t - t0 >= limit) {
			fprintf(stderr, "test_migrate: %s after %.0f s: moves %" PRIu64 " signals %" PRIu64,
				gi->name, t - t0, __atomic_load_n(&run_moves, __ATOMIC_RELAXED),
				__atomic_load_n(&run_signals, __ATOMIC_RELAXED));
			if (want_abort)
				fprintf(stderr, " rseq aborts %" PRId64 " (one wanted)", count_read(fd_abort) - a0);
			fputc(';', stderr);
			for (int i = 0; i < NWORKERS; i++)
				fprintf(stderr, " worker %d: %" PRIu64 " pairs%s", i,
					__atomic_load_n(&workers[i].pairs, __ATOMIC_RELAXED),
					__atomic_load_n(&workers[i].done, __ATOMIC_ACQUIRE) ? " (done)" : "");
			fprintf(stderr, "\n");
			next = t + 30;
		}
		if (t - t0 >= limit) {
			fprintf(stderr, "FAIL: test_migrate: the %s run did not end in %.0f s (RG_MIGRATE_LIMIT)\n",
				gi->name, limit);
			exit(1);
		}
		nanosleep(&tick, NULL);
	}
}

static struct totals run(const struct rg_guard_info *gi, uint64_t iters, int fd_abort, int fd_migr,
			 double limit, bool want_abort)
{
	pthread_t mig, storm;
	struct totals t;
	int64_t a0 = count_read(fd_abort), m0 = count_read(fd_migr), a1, m1;

	memset(&t, 0, sizeof(t));
	memset(workers, 0, sizeof(workers));
	for (unsigned int c = 0; c < cur_g.ncpus; c++)
		*rg_guard_slot(&cur_g, c) = 0;
	cur_gi = gi;
	go = stop = enough = 0;
	run_moves = run_signals = 0;
	for (int i = 0; i < NWORKERS; i++) {
		workers[i].iters = iters;
		if (pthread_create(&workers[i].tid, NULL, worker_main, &workers[i])) {
			fprintf(stderr, "pthread_create failed\n");
			exit(1);
		}
	}
	pthread_create(&mig, NULL, migrator_main, &t.moves);
	pthread_create(&storm, NULL, storm_main, &t.signals);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	wait_workers(gi, limit, want_abort && fd_abort >= 0 && (gi->needs & RG_NEEDS_RSEQ), fd_abort, a0);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(workers[i].tid, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(mig, NULL);
	pthread_join(storm, NULL);

	for (int i = 0; i < NWORKERS; i++) {
		struct worker *w = &workers[i];

		t.expected += w->chunks * w->iters;
		rg_tries_add(&t.tries, &w->tries);
		rg_tries_add(&t.h_tries, &w->h_tries);
		t.cpu_changes += w->cpu_changes;
	}
	for (unsigned int c = 0; c < cur_g.ncpus; c++) {
		uint32_t v = *rg_guard_slot(&cur_g, c);

		t.slot_sum += v;	/* mod 2^32, like the word slots */
		for (int b = 0; b < 4; b++)	/* rctx's u8[4]: per byte, mod 256 */
			t.lane_sum[b] = (uint8_t)(t.lane_sum[b] + (uint8_t)(v >> (8 * b)));
	}
	a1 = count_read(fd_abort);
	m1 = count_read(fd_migr);
	t.aborts = a0 >= 0 && a1 >= 0 ? a1 - a0 : -1;
	t.migrations = m0 >= 0 && m1 >= 0 ? m1 - m0 : -1;
	return t;
}

static void report(const struct rg_guard_info *gi, const struct totals *t)
{
	char ab[32] = "n/a", mi[32] = "n/a";
	/* rctx's sum is per byte lane, mod 256 (see the check in main()), packed back into a word */
	uint32_t sum = gi->id != RG_GUARD_rctx ? t->slot_sum :
		       (uint32_t)t->lane_sum[0] | (uint32_t)t->lane_sum[1] << 8 |
		       (uint32_t)t->lane_sum[2] << 16 | (uint32_t)t->lane_sum[3] << 24;

	if (t->aborts >= 0)
		snprintf(ab, sizeof(ab), "%" PRId64, t->aborts);
	if (t->migrations >= 0)
		snprintf(mi, sizeof(mi), "%" PRId64, t->migrations);
	printf("migrate %-12s attempts %8" PRIu64 " grants %8" PRIu64 " refused %6" PRIu64
	       " | signals %6" PRIu64 " granted %6" PRIu64 " refused %5" PRIu64
	       " | slot sum %" PRId32 " | moves %" PRIu64 " migrations %s cpu changes seen %" PRIu64
	       " rseq aborts %s\n", gi->name, t->tries.attempts, t->tries.grants, t->tries.refusals,
	       t->h_tries.attempts, t->h_tries.grants, t->h_tries.refusals, (int32_t)sum, t->moves, mi, t->cpu_changes, ab);
}

int main(int argc, char **argv)
{
	uint64_t iters = argc > 1 ? strtoull(argv[1], NULL, 0) : 200000;
	double racy_budget = argc > 2 ? atof(argv[2]) : 10.0;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	bool expect_aborts = rg_test_env_int("RG_EXPECT_ABORTS") == 1;
	double limit = rg_test_env_int("RG_MIGRATE_LIMIT") > 0 ? rg_test_env_int("RG_MIGRATE_LIMIT") : 300;
	long fixup_id = rseq_fixup_id();
	int fd_abort = -1, fd_migr;
	const char *why;
	cpu_set_t allowed;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!iters || racy_budget <= 0) {
		fprintf(stderr, "usage: test_migrate [pairs-per-thread [racy-seconds]]\n");
		return 2;
	}
	if (!rg_rseq_available()) {
		printf("SKIP: %s (no rseq: qemu-user, or glibc told not to register it)\n", rg_rseq_why());
		return 77;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("sched_getaffinity");
		return 1;
	}
	for (int c = 0; c < 1024; c++)
		if (CPU_ISSET(c, &allowed))
			allowed_cpus[ncpus_allowed++] = c;
	if (ncpus_allowed < 2) {
		printf("SKIP: one CPU allowed: nowhere to migrate to\n");
		return 77;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	if (rg_guard_init(&cur_g, 0)) {
		fprintf(stderr, "rg_guard_init failed\n");
		return 1;
	}
	if (fixup_id >= 0)
		fd_abort = count_open(PERF_TYPE_TRACEPOINT, (uint64_t)fixup_id);
	fd_migr = count_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS);
	printf("%d unpinned threads x %" PRIu64 " pairs on %ld CPUs, moved every 30 us, signalled every "
	       "20 us once it did a pair since the last; rseq aborts: %s; migrations: %s\n", NWORKERS, iters, ncpus_allowed,
	       fd_abort >= 0 ? "rseq:rseq_ip_fixup" : fixup_id < 0 ? "n/a (no rseq_ip_fixup in tracefs)"
							   : "n/a (perf_event_open refused)",
	       fd_migr >= 0 ? "cpu-migrations" : "n/a (perf_event_open refused)");
	if (expect_aborts)
		CHECK(fd_abort >= 0 && fd_migr >= 0, "abort and migration counters must be readable here");

	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		const struct rg_guard_info *gi = &rg_guards[i];
		struct totals t;

		if (!(gi->needs & RG_NEEDS_RSEQ))
			continue;
		if (!rg_guard_available(gi, &why)) {
			printf("migrate %-12s skipped: %s\n", gi->name, why);
			CHECK(false, "%s unavailable though rseq is registered: %s", gi->name, why);
			continue;
		}
		t = run(gi, iters, fd_abort, fd_migr, limit, expect_aborts);
		report(gi, &t);
		CHECK(t.tries.attempts == t.expected, "%s: attempts %" PRIu64 ", want %" PRIu64, gi->name,
		      t.tries.attempts, t.expected);
		CHECK(t.tries.grants + t.tries.refusals == t.tries.attempts,
		      "%s: grants + refusals != attempts", gi->name);
		CHECK(t.h_tries.grants + t.h_tries.refusals == t.h_tries.attempts, "%s: handler totals", gi->name);
		/*
		 * rctx counts per context level in bytes: a thread moved between
		 * enter and exit (never so in the kernel, which disables migration)
		 * leaves one CPU's byte at 0xff and another's at 1, whose words add
		 * up to 256 with no update lost. So check it byte by byte, mod 256.
		 */
		if (gi->id == RG_GUARD_rctx)
			CHECK(!t.lane_sum[0] && !t.lane_sum[1] && !t.lane_sum[2] && !t.lane_sum[3],
			      "%s: byte lanes sum to %u,%u,%u,%u, not 0: an update was lost", gi->name,
			      t.lane_sum[0], t.lane_sum[1], t.lane_sum[2], t.lane_sum[3]);
		else
			CHECK(t.slot_sum == 0, "%s: slots sum to %" PRId32 ", not 0: an update was lost",
			      gi->name, (int32_t)t.slot_sum);
		CHECK(t.moves > 0 && t.signals > 0, "%s: %" PRIu64 " moves, %" PRIu64 " signals", gi->name,
		      t.moves, t.signals);
		if (expect_aborts) {
			CHECK(t.migrations > 0, "%s: the kernel counted no migration", gi->name);
			CHECK(t.cpu_changes > 0, "%s: no worker saw its CPU change (rseq cpu_id)", gi->name);
			CHECK(t.aborts > 0, "%s: the kernel counted no rseq abort", gi->name);
		}
	}

	/*
	 * The negative control: the same treatment must make it lose counts.
	 * racy-percpu itself addresses its slot through a pinned thread's
	 * per-CPU base (an unpinned thread faults by design), so the control
	 * here is its unpinned form: the same plain load, add, store on the slot
	 * of the CPU that rseq's cpu_id names, with no critical section.
	 */
	{
		struct rg_guard_info racy = rg_guards[RG_GUARD_racy_percpu];
		const struct rg_guard_info *gi = &racy;

		racy.enter = racy_unpinned_enter;
		racy.exit = racy_unpinned_exit;
		struct timespec t0, t1;
		struct totals t;
		int rounds = 0;
		double el;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			t = run(gi, iters, fd_abort, fd_migr, limit, expect_aborts);
			rounds++;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			el = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		} while (t.slot_sum == 0 && el < racy_budget);
		report(gi, &t);
		printf("negative control %s after %d round(s): %s\n", gi->name, rounds,
		       t.slot_sum ? "LOST COUNTS AS IT MUST" : "never lost a count");
		CHECK(t.slot_sum != 0, "racy-percpu never lost a count in %.1f s: the test is too weak",
		      racy_budget);
	}
	rg_guard_fini(&cur_g);
	return rg_test_done("test_migrate");
}
