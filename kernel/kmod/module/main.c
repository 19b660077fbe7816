// SPDX-License-Identifier: GPL-2.0
/* One run (timed loops, re-entry tests, CSV), the debugfs files, init and exit. */
#include "kmod.h"

static DEFINE_MUTEX(rg_lock);
static bool rg_have_results;

static void rg_free_run(void)
{
	rg_timing_free();
	rg_reentry_free();
}

static int rg_run_all(void)
{
	int ret;

	rg_free_run();
	if (rg_timing_alloc() || rg_reentry_alloc())
		return -ENOMEM;
	rg_have_results = false;
	pr_info("run: %u guards, cpus %*pbl, loops=%lu run_ns=%lu runs=%u duty_ns=%u duty_in_ns=%u irqs_on=%d irq_iters=%u\n",
		rg_nsel, cpumask_pr_args(rg_cpus), loops, run_ns, runs, duty_ns, rg_inside_ns(), irqs_on,
		irq_iters);
	ret = rg_run_timed();
	if (!ret && irq_iters)
		ret = rg_run_reentry();
	if (!ret)
		ret = rg_format();
	if (!ret) {
		rg_have_results = true;
		pr_info("run: done, %zu bytes of CSV\n", rg_csv_len);
	}
	return ret;
}

/* ------------------------------------------------------------------------ */
/* debugfs: run (write to start, blocks until done), results, guards         */

static struct dentry *rg_dir;

static ssize_t rg_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	int ret;

	if (mutex_lock_interruptible(&rg_lock))
		return -EINTR;
	ret = rg_run_all();
	rg_tramp_release();	/* one run per program written: nothing held after it */
	mutex_unlock(&rg_lock);
	return ret ? ret : count;
}

static const struct file_operations rg_run_fops = {
	.owner = THIS_MODULE,
	.write = rg_run_write,
	.llseek = noop_llseek,
};

/* prog: "FD OFF STRIDE N", resolved in the writing process (tramp.c). */
static ssize_t rg_prog_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[96];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (mutex_lock_interruptible(&rg_lock))
		return -EINTR;
	ret = rg_tramp_set(buf);
	mutex_unlock(&rg_lock);
	return ret ? ret : count;
}

static const struct file_operations rg_prog_fops = {
	.owner = THIS_MODULE,
	.write = rg_prog_write,
	.llseek = noop_llseek,
};

static ssize_t rg_results_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	ssize_t ret;

	if (mutex_lock_interruptible(&rg_lock))
		return -EINTR;
	if (!rg_have_results)
		ret = -ENODATA;
	else
		ret = simple_read_from_buffer(ubuf, count, ppos, rg_csv, rg_csv_len);
	mutex_unlock(&rg_lock);
	return ret;
}

static const struct file_operations rg_results_fops = {
	.owner = THIS_MODULE,
	.read = rg_results_read,
	.llseek = default_llseek,
};

static int rg_guards_show(struct seq_file *m, void *v)
{
	unsigned int i;

	seq_puts(m, "guard,role,available,expect,reason\n");
	for (i = 0; i < rg_nguards; i++) {
		const char *why = rg_kguards[i].unavailable ? rg_kguards[i].unavailable() : NULL;

		seq_printf(m, "%s,%s,%d,%s,%s\n", rg_kguards[i].name, rg_kguards[i].role, !why,
			   rg_kind_name[rg_kguards[i].kind], why ? why : "");
	}
	for (i = 0; i < rg_nother_arch; i++)
		seq_printf(m, "%s,n/a,0,,not this architecture\n", rg_other_arch[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rg_guards);

static int __init rg_init(void)
{
	int ret;

	if ((!loops && !run_ns) || !runs) {
		pr_err("loops (or run_ns) and runs must be at least 1\n");
		return -EINVAL;
	}
	if (!zalloc_cpumask_var(&rg_cpus, GFP_KERNEL))
		return -ENOMEM;
	ret = rg_select_guards();
	if (!ret)
		ret = rg_select_cpus();
	if (ret)
		goto fail;
	rg_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR_OR_NULL(rg_dir)) {
		pr_err("debugfs unavailable\n");
		ret = rg_dir ? PTR_ERR(rg_dir) : -ENODEV;
		goto fail;
	}
	debugfs_create_file("run", 0200, rg_dir, NULL, &rg_run_fops);
	debugfs_create_file("prog", 0200, rg_dir, NULL, &rg_prog_fops);
	debugfs_create_file("results", 0400, rg_dir, NULL, &rg_results_fops);
	debugfs_create_file("guards", 0444, rg_dir, NULL, &rg_guards_fops);
	pr_info("loaded: %u guards selected, %u CPUs (%*pbl)\n", rg_nsel, rg_ncpus,
		cpumask_pr_args(rg_cpus));
	return 0;
fail:
	free_cpumask_var(rg_cpus);
	return ret;
}

static void __exit rg_exit(void)
{
	debugfs_remove_recursive(rg_dir);
	rg_tramp_release();
	rg_format_free();
	rg_free_run();
	free_cpumask_var(rg_cpus);
}

module_init(rg_init);
module_exit(rg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rgbench: per-CPU recursion guards measured in kernel context");
