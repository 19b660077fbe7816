// SPDX-License-Identifier: MIT
/* The thin C++ side of the C binding to Google Benchmark (see rg/gbench.h). */
#include <benchmark/benchmark.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <system_error>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "gbench_internal.hh"
#include "rg/gbench.h"

namespace {

using benchmark::BenchmarkReporter;

/* The format the user asked the library to print in, "" when none. */
std::string g_format;
size_t g_registered;
bool g_list_only;	/* --benchmark_list_tests: the library lists instead of running */

/*
 * A session may call RunSpecifiedBenchmarks() many times (rgbench runs one
 * round at a time). The library would print its header and open
 * --benchmark_out again on every call, truncating the file; so the binding
 * keeps the display and file reporters for the whole session, gives them the
 * context once and finalizes them in rg_gb_finish(). The file's report is
 * kept in memory: the caller publishes it with its results through the
 * output policy (rg_gb_out_report()), or drops it on interrupt.
 */
std::string g_out, g_out_format = "json", g_out_text;
std::ostringstream g_out_file;
std::unique_ptr<BenchmarkReporter> g_display, g_file;
bool g_context_done, g_session;

/* The library's failure, one line (rg_gb_failure()); "" while none. */
std::string g_failure;

/* The exception being handled (inside a catch block or a terminate handler), as one line. */
std::string failure_text()
{
	try {
		throw;
	} catch (const std::system_error &e) {
		return std::string("cannot start a benchmark thread (ulimit -u, ulimit -v?): ") + e.what();
	} catch (const std::bad_alloc &) {
		return "out of memory";
	} catch (const std::exception &e) {
		return e.what();
	} catch (...) {
		return "an unknown exception";
	}
}

/* Where unwinding cannot reach the caller: one line, then exit(1) so the output locks go. */
[[noreturn]] void on_terminate()
{
	std::string why = std::current_exception() ? failure_text() : "std::terminate";

	for (char &ch : why)
		if (ch == '\n' || ch == '\r')
			ch = ' ';
	std::fprintf(stderr, "rgbench: Google Benchmark stopped: %s; nothing written\n", why.c_str());
	std::exit(1);
}

/* RunSpecifiedBenchmarks() with its exceptions caught into g_failure (rg_gb_failure()). */
size_t run_specified(BenchmarkReporter &rep)
{
	try {
		return benchmark::RunSpecifiedBenchmarks(&rep);
	} catch (...) {
		g_failure = failure_text();
		return 0;
	}
}

BenchmarkReporter *make_reporter(const std::string &fmt)
{
	if (fmt == "console")
		return new benchmark::ConsoleReporter();
	if (fmt == "json")
		return new benchmark::JSONReporter();
	return nullptr;
}

benchmark::State &S(struct rg_gb_state *st)
{
	return *reinterpret_cast<benchmark::State *>(st);
}

const benchmark::State &S(const struct rg_gb_state *st)
{
	return *reinterpret_cast<const benchmark::State *>(st);
}

/*
 * What the library writes to std::cerr while the binding runs it, passed on
 * line by line as it comes (not collected and printed afterwards: the library
 * may end the process with std::exit() half-way, e.g. when it cannot read a
 * sysfs file, and its reason must reach the user). Lines that start with
 * drop are left out; the others get prefix in front.
 */
class LineFilter : public std::streambuf {
public:
	LineFilter(std::streambuf *to, const char *prefix, const char *drop)
		: to_(to), prefix_(prefix), drop_(drop), saved_(std::cerr.rdbuf(this))
	{
		static bool registered;

		if (!registered)
			registered = !std::atexit(at_exit);
		active_ = this;
	}
	~LineFilter() override
	{
		flush_line();
		std::cerr.rdbuf(saved_);
		active_ = nullptr;
	}
	bool dropped() const { return dropped_; }

protected:
	int overflow(int c) override
	{
		if (c == traits_type::eof())
			return traits_type::not_eof(c);
		line_.push_back(static_cast<char>(c));
		if (c == '\n')
			flush_line();
		return c;
	}
	/* std::cerr is unit-buffered: it syncs after every <<, mid-line. */
	int sync() override { return 0; }

private:
	/* The library's std::exit() skips destructors: pass on what it wrote last. */
	static void at_exit()
	{
		if (active_)
			active_->flush_line();
	}
	static LineFilter *active_;

	void flush_line()
	{
		if (line_.empty())
			return;
		if (drop_ && line_.rfind(drop_, 0) == 0) {
			dropped_ = true;
		} else {
			std::string out = prefix_ + line_;

			if (out.back() != '\n')
				out.push_back('\n');
			to_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
			to_->pubsync();
		}
		line_.clear();
	}

	std::streambuf *to_;
	std::string prefix_, line_;
	const char *drop_;
	std::streambuf *saved_;
	bool dropped_ = false;
};

LineFilter *LineFilter::active_;

/*
 * Hands every repetition back to C, and forwards to the library's own
 * reporter when --benchmark_format asked for one.
 */
class CReporter : public BenchmarkReporter {
public:
	CReporter(rg_gb_report_fn fn, void *ctx) : fn_(fn), ctx_(ctx)
	{
		if (!g_session) {
			g_session = true;
			g_display.reset(make_reporter(g_format));
			if (!g_out.empty()) {
				g_out_file.str("");
				g_file.reset(make_reporter(g_out_format));
				g_file->SetOutputStream(&g_out_file);
				g_file->SetErrorStream(&g_out_file);
			}
		}
	}

	bool ReportContext(const Context &context) override
	{
		if (g_context_done)
			return true;
		g_context_done = true;
		if (g_file)
			g_file->ReportContext(context);
		return g_display ? g_display->ReportContext(context) : true;
	}

	void ReportRuns(const std::vector<Run> &runs) override
	{
		std::vector<const Run *> reps;

		if (g_display)
			g_display->ReportRuns(runs);
		if (g_file)
			g_file->ReportRuns(runs);
		for (const Run &r : runs)
			if (r.run_type == Run::RT_Iteration)
				reps.push_back(&r);
		for (size_t i = 0; i < reps.size(); i++)
			deliver(*reps[i], i + 1 == reps.size());
	}

	/* Once per session, in rg_gb_finish(). */
	void Finalize() override {}

private:
	void deliver(const Run &r, bool last)
	{
		std::vector<rg_gb_counter> counters;
		std::string full = r.benchmark_name();
		struct rg_gb_run out;

		for (const auto &kv : r.counters)
			counters.push_back({kv.first.c_str(), kv.second.value});
		memset(&out, 0, sizeof(out));
		out.name = r.run_name.function_name.c_str();
		out.full_name = full.c_str();
		out.repetition_index = r.repetition_index < 0 ? 0 : r.repetition_index;
		out.repetitions = r.repetitions;
		out.threads = r.threads;
		out.iterations = r.iterations;
		out.real_time_s = r.real_accumulated_time;
		out.cpu_time_s = r.cpu_accumulated_time;
#if RG_GB_HAS_SKIPPED	/* 1.8+: a run that did not measure is "skipped" */
		out.error = r.skipped != benchmark::internal::NotSkipped;
		out.error_message = r.skip_message.c_str();
#else
		out.error = r.error_occurred;
		out.error_message = r.error_message.c_str();
#endif
		out.counters = counters.data();
		out.ncounters = counters.size();
		if (fn_)
			fn_(&out, last, ctx_);
	}

	rg_gb_report_fn fn_;
	void *ctx_;
};

} // namespace

bool rg_gb_options_valid(const struct rg_gb_options *o)
{
	return !o || !(o->threads < 0 || o->repetitions < 0 || o->min_time < 0 ||
		       o->iterations < 0 || (o->nargs && !o->args) ||
		       (o->iterations && o->min_time > 0));
}

void rg_gb_apply(benchmark::internal::Benchmark *b, const struct rg_gb_options *o)
{
	if (o) {
		if (o->threads > 1)
			b->Threads(o->threads);
		if (o->repetitions > 0)
			b->Repetitions(o->repetitions);
		if (o->min_time > 0)
			b->MinTime(o->min_time);
		if (o->iterations > 0)
			b->Iterations(o->iterations);
		if (o->nargs)
			b->Args(std::vector<int64_t>(o->args, o->args + o->nargs));
	}
	b->Unit(benchmark::kNanosecond);
}

void rg_gb_count_registered(void)
{
	g_registered++;
}

extern "C" {

int rg_gb_initialize(int *argc, char **argv)
{
	static const char fmt[] = "--benchmark_format=";
	static const char out[] = "--benchmark_out=";
	static const char out_fmt[] = "--benchmark_out_format=";
	int k = 1;

	/* --benchmark_out(_format) are the binding's (see g_out); the rest the library's. */
	for (int i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--benchmark_list_tests") ||
		    !strcmp(argv[i], "--benchmark_list_tests=true") ||
		    !strcmp(argv[i], "--benchmark_list_tests=1"))
			g_list_only = true;
		else if (!strncmp(argv[i], "--benchmark_list_tests=", 23))
			g_list_only = false;
		if (!strncmp(argv[i], fmt, sizeof(fmt) - 1))
			g_format = argv[i] + sizeof(fmt) - 1;
		if (!strncmp(argv[i], out, sizeof(out) - 1) && argv[i][sizeof(out) - 1]) {
			g_out = argv[i] + sizeof(out) - 1;
			continue;
		}
		if (!strncmp(argv[i], out_fmt, sizeof(out_fmt) - 1)) {
			std::string f = argv[i] + sizeof(out_fmt) - 1;

			if (f == "json" || f == "console") {
				g_out_format = f;
				continue;
			}
		}
		argv[k++] = argv[i];
	}
	*argc = k;
	argv[k] = nullptr;
	/*
	 * rgbench checked every flag's value before (bench/cli.c), so what the
	 * library says here is news: it goes to stderr as it is.
	 */
	std::set_terminate(on_terminate);
	benchmark::Initialize(argc, argv);
	/*
	 * The library reads the CPU's description from sysfs once, at its first
	 * run, and exits 1 when a read fails (it holds two cache files open at
	 * once). Read it now, before anything is measured, with its reason named.
	 */
	{
		LineFilter f(std::cerr.rdbuf(), "rgbench: Google Benchmark: ", nullptr);

		(void)benchmark::CPUInfo::Get();
	}
	return *argc - 1;
}

int rg_gb_register(const char *name, rg_gb_fn fn, void *arg, const struct rg_gb_options *o)
{
	benchmark::internal::Benchmark *b;

	if (!name || !fn || !rg_gb_options_valid(o))
		return -EINVAL;
	try {
		b = benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &st) {
			fn(reinterpret_cast<struct rg_gb_state *>(&st), arg);
		});
	} catch (...) {
		g_failure = failure_text();
		return -ENOMEM;
	}
	if (!b)
		return -ENOMEM;
	rg_gb_apply(b, o);
	g_registered++;
	return 0;
}

size_t rg_gb_registered(void)
{
	return g_registered;
}

void rg_gb_clear(void)
{
	benchmark::ClearRegisteredBenchmarks();
	g_registered = 0;
}

bool rg_gb_keep_running_batch(struct rg_gb_state *st, uint64_t n)
{
	return S(st).KeepRunningBatch(static_cast<benchmark::IterationCount>(n));
}

int64_t rg_gb_range(const struct rg_gb_state *st, size_t i)
{
	return S(st).range(i);
}

int rg_gb_thread_index(const struct rg_gb_state *st)
{
	return S(st).thread_index();
}

int rg_gb_threads(const struct rg_gb_state *st)
{
	return S(st).threads();
}

uint64_t rg_gb_iterations(const struct rg_gb_state *st)
{
	return static_cast<uint64_t>(S(st).iterations());
}

void rg_gb_set_counter(struct rg_gb_state *st, const char *name, double v)
{
	S(st).counters[name] = benchmark::Counter(v);
}

void rg_gb_skip_with_error(struct rg_gb_state *st, const char *msg)
{
	S(st).SkipWithError(msg);
}

bool rg_gb_error_occurred(const struct rg_gb_state *st)
{
	return S(st).error_occurred();
}

void rg_gb_pause_timing(struct rg_gb_state *st)
{
	S(st).PauseTiming();
}

void rg_gb_resume_timing(struct rg_gb_state *st)
{
	S(st).ResumeTiming();
}

size_t rg_gb_run_all(rg_gb_report_fn on_run, void *ctx)
{
	CReporter rep(on_run, ctx);
	/*
	 * A filter that matches nothing is the caller's error to report (in one
	 * line); keep the library's own note about it off stderr.
	 */
	LineFilter f(std::cerr.rdbuf(), "", "Failed to match any benchmarks");

	return run_specified(rep);
}

const char *rg_gb_failure(void)
{
	return g_failure.empty() ? nullptr : g_failure.c_str();
}

/* The library runs nothing when the display reporter refuses the context. */
class CountOnly : public BenchmarkReporter {
public:
	bool ReportContext(const Context &) override { return false; }
	void ReportRuns(const std::vector<Run> &) override {}
};

size_t rg_gb_count_selected(void)
{
	if (g_list_only)
		return g_registered;	/* the library would print the list: the run lists them */
	CountOnly rep;
	LineFilter f(std::cerr.rdbuf(), "", "Failed to match any benchmarks");

	return run_specified(rep);
}

void rg_gb_finish(void)
{
	if (g_display)
		g_display->Finalize();
	if (g_file)
		g_file->Finalize();
	g_display.reset();
	g_file.reset();
	g_out_text = g_out_file.str();
	g_out_file.str("");
	g_session = g_context_done = false;
}

uint64_t rg_gb_max_iterations(const struct rg_gb_state *st)
{
	return static_cast<uint64_t>(S(st).max_iterations);
}

bool rg_gb_library_display(void)
{
	return !g_format.empty();
}

const char *rg_gb_out_report(const char **path, size_t *len)
{
	*path = g_out.empty() ? nullptr : g_out.c_str();
	*len = g_out_text.size();
	return g_out.empty() ? nullptr : g_out_text.c_str();
}

double rg_gb_run_counter(const struct rg_gb_run *run, const char *name, double def)
{
	for (size_t i = 0; i < run->ncounters; i++)
		if (!strcmp(run->counters[i].name, name))
			return run->counters[i].value;
	return def;
}

} // extern "C"
