// SPDX-License-Identifier: MIT
/* The BPF bench's producers: threads pinned by rg/place.h running one trigger loop each, and one sample window over them. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rg/cmdline.h"
#include "bpf_internal.h"

/* A run for np producers, its counters zeroed; NULL when out of memory. Free with run_free(). */
struct run *run_alloc(int np)
{
	struct run *r = aligned_alloc(_Alignof(struct run), sizeof(*r));

	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->np = np;
	r->ucnt = aligned_alloc(_Alignof(struct ucounter), sizeof(struct ucounter) * (size_t)np);
	if (!r->ucnt) {
		free(r);
		return NULL;
	}
	return r;
}

void run_free(struct run *r)
{
	if (r)
		free(r->ucnt);
	free(r);
}

/*
 * The producer's userspace count: one relaxed store of the loop's own
 * counter to its padded slot, the same in every loop and for every --count
 * (--count is the programs' counting); the syscall loop stores once per
 * SYSCALL_BATCH syscalls. A read-modify-write here, or an
 * atomic one for --count atomic as before, is work the kernel's bench does
 * not do in its trig-* producers: the locked add cost ~15 ns per event on
 * top of the program's own, 0.87 of the kernel bench's rate by producer CPU
 * time (docs/bpf.md, "Against the kernel's bench").
 */
static inline void ucount(struct ucounter *c, uint64_t total)
{
	__atomic_store_n(&c->value, total, __ATOMIC_RELAXED);
}

/* Syscalls per count store and stop check in the syscall loop (see there). */
#define SYSCALL_BATCH 64

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	struct run *r = p->run;
	struct ucounter *c = &r->ucnt[p->idx];
	uint64_t n, limit = r->limit;
	struct rusage ru0, ru1;

	if (rg_place_pin_self(r->pin, p->idx, NULL, 0))
		atomic_fetch_add(&r->unpinned, 1);
	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load(&r->go) && !atomic_load(&r->stop))
		sched_yield();
	/*
	 * The loops never sleep (getpgid, a test run, a count): a voluntary
	 * switch inside them means the thread was stopped (SIGSTOP) or blocked.
	 */
	if (getrusage(RUSAGE_THREAD, &ru0))
		ru0.ru_nvcsw = 0;

	/* One loop per trigger kind: nothing indirect inside the measured loop. */
	switch (r->loop) {
	case LOOP_SYSCALL:
		/*
		 * SYSCALL_BATCH syscalls with nothing but a register count between
		 * them, then one store of the count and one load of the stop flag.
		 * Done per syscall, that load and store cost 15-40 ns a syscall on
		 * the AMD VM of docs/bpf.md ("The producer's batch"), likely because
		 * with PTI and no PCID each syscall flushes the TLB and every page
		 * the loop touches is walked again (timed, not counted: no PMU
		 * there). The kernel bench's
		 * `while (true) syscall()` does neither. Counts stay exact: a
		 * batch never runs past limit (k is clipped), the store after it
		 * is the exact number of syscalls made so far, and the last store
		 * is limit or, on stop, what was made; a window's user count lags
		 * the loop by less than a batch at each end, and stop is seen
		 * within one batch.
		 */
		for (n = 0; n < limit && !atomic_load_explicit(&r->stop, memory_order_relaxed); ) {
			uint64_t k = limit - n < SYSCALL_BATCH ? limit - n : SYSCALL_BATCH;

			for (uint64_t i = 0; i < k; i++)
				(void)syscall(__NR_getpgid);
			n += k;
			ucount(c, n);
		}
		break;
	case LOOP_USER_COUNT:
		for (n = 0; n < limit && !atomic_load_explicit(&r->stop, memory_order_relaxed); )
			ucount(c, ++n);
		break;
	case LOOP_DRIVER: {
		LIBBPF_OPTS(bpf_test_run_opts, topts);
		uint64_t runs = limit == UINT64_MAX ? UINT64_MAX : limit / (uint64_t)r->batch;

		for (n = 0; n < runs && !atomic_load_explicit(&r->stop, memory_order_relaxed); ) {
			if (bpf_prog_test_run_opts(r->prog_fd, &topts)) {
				int zero = 0;

				atomic_compare_exchange_strong(&r->first_errno, &zero, errno ? errno : EIO);
				atomic_fetch_add(&r->errors, 1);
				break;
			}
			ucount(c, ++n * (uint64_t)r->batch);
		}
		break;
	}
	}
	p->nvcsw = getrusage(RUSAGE_THREAD, &ru1) ? 0 : ru1.ru_nvcsw - ru0.ru_nvcsw;
	atomic_fetch_add(&r->done, 1);
	return NULL;
}

uint64_t user_hits(struct run *r)
{
	uint64_t sum = 0;

	for (int i = 0; i < r->np; i++)
		sum += __atomic_load_n(&r->ucnt[i].value, __ATOMIC_RELAXED);
	return sum;
}

/*
 * Sleep until t (CLOCK_MONOTONIC). Producers block SIGINT/SIGTERM, so a
 * signal interrupts this sleep in the main thread. false: stop requested.
 */
bool sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (double)(time_t)t) * 1e9) };

	if (trig_stopped())
		return false;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (trig_stopped())
			return false;
	return !trig_stopped();
}

/* Start r->np producers on r->loop; they wait pinned until all are up, then go. */
int producers_start(struct run *r, struct producer *prod)
{
	sigset_t block, old;
	int created = 0;

	atomic_store(&r->ready, 0);
	atomic_store(&r->go, 0);
	atomic_store(&r->stop, 0);
	atomic_store(&r->done, 0);
	atomic_store(&r->errors, 0);
	atomic_store(&r->first_errno, 0);
	memset(r->ucnt, 0, sizeof(struct ucounter) * (size_t)r->np);
	/* Signals go to the main thread, which checks the stop flag between samples. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (int i = 0; i < r->np; i++) {
		prod[i].run = r;
		prod[i].idx = i;
		prod[i].nvcsw = 0;
		prod[i].started = !pthread_create(&prod[i].tid, NULL, producer_main, &prod[i]);
		if (!prod[i].started)
			break;
		prod[i].have_clk = !pthread_getcpuclockid(prod[i].tid, &prod[i].clk);
		created++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (created < r->np)
		atomic_store(&r->stop, 1);
	while (atomic_load(&r->ready) < created)
		sched_yield();
	if (created < r->np) {
		for (int i = 0; i < created; i++)
			pthread_join(prod[i].tid, NULL);
		return -EAGAIN;
	}
	atomic_store(&r->go, 1);
	return 0;
}

void producers_stop(struct run *r, struct producer *prod)
{
	atomic_store(&r->stop, 1);
	for (int i = 0; i < r->np; i++)
		if (prod[i].started)
			pthread_join(prod[i].tid, NULL);
}

/* ---- windows: one sample each ---- */

struct snap {
	double t, cpu;
	uint64_t events, misses;
};

/* Counters at one instant; the same order at both ends of a window. */
static void snap_take(struct snap *s, struct run *r, const struct producer *prod,
		      const struct trig *t, bool bpf_counted)
{
	struct timespec ts;

	s->cpu = 0;
	for (int i = 0; i < r->np; i++)
		if (prod[i].have_clk && !clock_gettime(prod[i].clk, &ts))
			s->cpu += (double)ts.tv_sec + ts.tv_nsec * 1e-9;
		else
			s->cpu = NAN;
	s->events = bpf_counted ? trig_hits(t) : user_hits(r);
	s->t = rg_now_s();
	s->misses = trig_misses(t);
}

/*
 * One sample: start the producers, skip SETTLE_S, count for `seconds`, stop.
 * 0; -EINTR on a stop request; -EIO when bpf_prog_test_run_opts() failed
 * (r->first_errno says why); -EAGAIN when producers could not be started.
 */
int run_window(struct run *r, struct producer *prod, const struct trig *t,
	       bool bpf_counted, double seconds, struct window *w)
{
	struct snap a, b;
	bool ok;
	int err = producers_start(r, prod);

	if (err)
		return err;
	ok = sleep_until(rg_now_s() + SETTLE_S);
	if (ok) {
		snap_take(&a, r, prod, t, bpf_counted);
		ok = sleep_until(a.t + seconds);
		snap_take(&b, r, prod, t, bpf_counted);
		/* A producer starved of CPU (a loaded machine) may not finish one batch. */
		for (int i = 0; ok && b.events == a.events && i < 10 && !atomic_load(&r->errors); i++) {
			ok = sleep_until(b.t + seconds);
			snap_take(&b, r, prod, t, bpf_counted);
		}
	}
	producers_stop(r, prod);
	if (!ok)
		return -EINTR;
	if (atomic_load(&r->errors))
		return -EIO;
	w->wall = b.t - a.t;
	w->cpu = b.cpu - a.cpu;
	w->events = b.events - a.events;
	w->misses = b.misses - a.misses;
	w->nvcsw = 0;
	for (int i = 0; i < r->np; i++)
		w->nvcsw += prod[i].nvcsw;
	return 0;
}
