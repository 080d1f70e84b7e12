/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmchurn.h - the interfaces between the module's files. Each file owns one
 * concern and says so in its first lines.
 */
#ifndef KVMCHURN_H
#define KVMCHURN_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#include "compat.h"

#include "kvmchurn_live.h"

/*
 * What the module holds while loaded, as each part reports it (the `memory`
 * file): bytes as the allocators round them, so that they can be checked
 * against what the kernel reports.
 */
struct kc_mem {
	size_t percpu;		/* on each possible CPU */
	size_t slab;		/* kmalloc() */
	size_t vmalloc;		/* whole pages */
	unsigned long kretprobe_instances;
	size_t kretprobes;	/* the kprobe core's, for those instances */
};

/*
 * A vmalloc area of @bytes: its pages, and vmalloc's array of pointers to
 * them, kmalloc'd up to a page and vmalloc'd beyond (__vmalloc_area_node()).
 */
static inline void kc_mem_vmalloc(struct kc_mem *mem, size_t bytes)
{
	size_t array = (PAGE_ALIGN(bytes) >> PAGE_SHIFT) * sizeof(void *);

	mem->vmalloc += PAGE_ALIGN(bytes);
	if (array > PAGE_SIZE)
		mem->vmalloc += PAGE_ALIGN(array);
	else
		mem->slab += kc_kmalloc_size(array);
}

/*
 * record.c: what a probe does with a time. The switches it obeys (enable,
 * the unit), its clock, and kc_record(), the one way a stage's time goes
 * into its metric's histogram and its VM's record.
 */
extern bool kc_enabled;
extern bool kc_unit_ns;

/*
 * Probe context's clock: CLOCK_MONOTONIC in ns, NMI-safe. A kprobe without
 * ftrace (a notrace function's) traps with int3, which x86 runs as an NMI,
 * where ktime_get_ns() must not read the timekeeper under its seqcount;
 * this is also bpf_ktime_get_ns(), the seed's clock.
 */
static inline u64 kc_now(void)
{
	return ktime_get_mono_fast_ns();
}

/* Nanoseconds from @start to @now; 0 if the fast clock stepped back. */
static inline u64 kc_between(u64 start, u64 now)
{
	return now > start ? now - start : 0;
}

/* Nanoseconds since @start; 0 if the fast clock stepped back (an update). */
static inline u64 kc_since(u64 start)
{
	return kc_between(start, kc_now());
}

/* Converts a kc_now() interval to the unit chosen at load time. */
u64 kc_to_unit(u64 ns);
u64 kc_unit_nsec(void);		/* nanoseconds in the unit */
const char *kc_unit_name(void);

/* kc_now() in the module's unit: the clock of the partitions. */
static inline u64 kc_now_unit(void)
{
	return kc_to_unit(kc_now());
}

/* Which VM record a stage's time also goes to (vms.c), and by what id. */
enum kc_vm_by {
	KC_VM_BY_TGID,		/* the VMs of the process @id */
	KC_VM_BY_KVM,		/* the VM whose struct kvm * is @id */
	KC_VM_BY_CREATING,	/* the VM the process @id is creating */
	KC_VM_BY_CREATOR,	/* the VM whose creator's pid is @id */
	KC_VM_BY_NONE,		/* none: the histogram only */
};

void kc_record(enum kc_metric m, u64 value, enum kc_vm_by by, u64 id);
void kc_record_window(enum kc_window w, u64 window, const u64 *part);

/*
 * partition.c: a window cut into stages, every instant in exactly one.
 * Stages 0 to nr_active - 1 are intervals, by priority (0 first); the others
 * hold the instants no interval does, as kc_part_idle() says.
 */
#define KC_PART_MAX	12
#define KC_PART_OPEN	BIT(0)	/* begun, not ended */
#define KC_PART_ENDED	BIT(1)
#define KC_PART_MARKED	BIT(2)	/* mark[] holds the parts before a mark */

struct kc_part {
	u64 start;		/* when the window opened */
	u64 last;		/* accounted up to here */
	u64 sum[KC_PART_MAX];	/* each stage's share */
	u64 first[KC_PART_MAX];	/* 1 + its first instant's offset; 0: none */
	u64 mark[KC_PART_MAX];	/* sum[] at the mark */
	u16 open[KC_PART_MAX];	/* open intervals of each interval stage */
	u64 held_since;		/* when the stage holding the instant began to */
	u8 holder;
	u8 nr_active;
	u8 idle;
	u8 flags;
};

void kc_part_init(struct kc_part *p, unsigned int nr_active,
		  unsigned int idle);
void kc_part_begin(struct kc_part *p, u64 t);
void kc_part_open(struct kc_part *p, u64 t, unsigned int stage);
void kc_part_close(struct kc_part *p, u64 t, unsigned int stage);
void kc_part_idle(struct kc_part *p, u64 t, unsigned int idle);
void kc_part_mark(struct kc_part *p, u64 t);
u64 kc_part_move(struct kc_part *p, unsigned int from, unsigned int to,
		 u64 amount);
void kc_part_end(struct kc_part *p, u64 t);
u64 kc_part_window(const struct kc_part *p);
unsigned int kc_part_holding(const struct kc_part *p, u64 *since);

/*
 * vmm_time.c: what a VMM's threads did, from the scheduler's accounting.
 * Times in ns, or after a subtraction in the module's unit.
 */
struct kc_vmm_time {
	u64 ran;	/* on a CPU: a running thread's to the instant */
	u64 waited;	/* on a run queue: a queued thread's to the instant */
	u64 user;	/* utime and stime: the ticks' samples, for the split */
	u64 system;
	u64 slept;	/* voluntary context switches: its sleeps */
};

/* How a start-up's time that no timed call held splits; the rest: other. */
struct kc_vmm_split {
	u64 kernel, user, runq, blocked;
};

void kc_vmm_time_task(const struct task_struct *t, u64 now,
		      struct kc_vmm_time *out);
void kc_vmm_time_group(struct task_struct *p, u64 now,
		       struct kc_vmm_time *out);
void kc_vmm_split(u64 idle, const struct kc_vmm_time *d,
		  const struct kc_vmm_time *in,
		  const struct kc_vmm_time *total, struct kc_vmm_split *out);

/* control.c: what a write to a control means (debugfs file or parameter). */
int kc_parse_unit(const char *s, bool *ns);
int kc_parse_text(char *buf, size_t count, size_t size);
int kc_parse_bit(const char *s, bool *bit);
int kc_parse_reset(const char *s);

/*
 * A write to a control, debugfs file or module parameter, is at most
 * KC_WRITE_MAX - 1 bytes; kc_control_*() take it as kc_parse_text() made it.
 */
#define KC_WRITE_MAX	256

int kc_control_filter(const char *text);
int kc_control_enable(const char *text);
int kc_control_reset(const char *text);

/* hist.c: per-CPU histograms and counters, and the reset baseline. */
struct kc_hist_snap {
	u64 count;
	u64 sum;
	u64 max;
	u64 slots[KC_NR_SLOTS];
};

/*
 * The start-up's and the teardown's rows, recorded once a VM or a process,
 * are cold: one histogram each, not one a CPU (hist.c). They are a run of
 * the table.
 */
#define KC_NR_COLD	(KC_M_TD_OTHER - KC_M_STARTUP + 1)

static inline bool kc_hist_cold(enum kc_metric m)
{
	return m >= KC_M_STARTUP && m <= KC_M_TD_OTHER;
}

int kc_hist_init(void);
void kc_hist_exit(void);
void kc_hist_record(enum kc_metric m, u64 value);
void kc_count(enum kc_counter c);
void kc_hist_snapshot(enum kc_metric m, struct kc_hist_snap *snap);
u64 kc_counter_read(enum kc_counter c);
u64 kc_percpu_sum(u64 __percpu *counter);
void kc_hist_reset(void);
void kc_hist_mem(struct kc_mem *mem);

/* filter.c: which processes are traced, by thread-group leader comm. */
int kc_filter_check(const char *spec);
int kc_filter_init(const char *spec);
void kc_filter_exit(void);
int kc_filter_set(const char *spec);
bool kc_filter_match(struct task_struct *t);
bool kc_filter_all(void);
int kc_filter_format(char *buf, size_t len);
void kc_filter_mem(struct kc_mem *mem);

/* pairs.c: the preallocated table that pairs a start event with its end. */
enum kc_pair_kind {
	KC_PAIR_SIGNAL,		/* tgid -> first fatal signal delivery */
	KC_PAIR_EXIT,		/* leader pid -> sched_process_exit */
	KC_PAIR_RECLAIM_DIRECT,	/* pid -> direct reclaim begin */
	KC_PAIR_RECLAIM_MEMCG,	/* pid -> memcg reclaim begin */
	KC_PAIR_VM,		/* struct kvm * of a traced VMM */
	KC_PAIR_FILES,		/* tgid -> longest exit_files() of its threads */
	KC_PAIR_UEVENT,		/* creator's pid -> its traced VMs not destroyed */
	KC_PAIR_FIRST_RUN,	/* struct kvm * whose first KVM_RUN is timed */
	KC_NR_PAIR_KINDS
};

enum kc_pair_result { KC_PAIR_ADDED, KC_PAIR_EXISTS, KC_PAIR_FULL };
enum kc_pair_op { KC_PAIR_PEEK, KC_PAIR_CLAIM, KC_PAIR_TAKE };

struct kc_pair_stats {
	unsigned int capacity;
	unsigned int used;
	u64 dropped;		/* inserts that found no room */
	u64 aged;		/* entries taken over after KC_PAIR_MAX_AGE */
};

/* What the pairs= parameter may ask for: one bucket at least (pairs.c). */
#define KC_PAIRS_MIN	8
#define KC_PAIRS_MAX	16777216	/* 1 << 24 */

int kc_pairs_init(unsigned int capacity);
void kc_pairs_exit(void);
enum kc_pair_result kc_pair_add(enum kc_pair_kind kind, u64 id, u64 ts,
				bool replace);
bool kc_pair_get(enum kc_pair_kind kind, u64 id, enum kc_pair_op op, u64 *ts);
void kc_pair_max(enum kc_pair_kind kind, u64 id, u64 ts, u64 val);
bool kc_pair_take_max(enum kc_pair_kind kind, u64 id, u64 *val);
void kc_pair_inc(enum kc_pair_kind kind, u64 id, u64 ts);
bool kc_pair_dec(enum kc_pair_kind kind, u64 id);
void kc_pairs_stats(struct kc_pair_stats *st);
unsigned int kc_pairs_count(enum kc_pair_kind kind);
unsigned int kc_pairs_live_count(enum kc_pair_kind kind);
void kc_pairs_mem(struct kc_mem *mem);

/* vms.c: a record a VM of a traced process, and the last and slowest. */
#define KC_VM_CREATING	1	/* KVM_CREATE_VM has not returned */
#define KC_VM_DESTROYED	2	/* kvm_destroy_vm ran */
#define KC_VM_TORN_DOWN	4	/* its process's teardown was partitioned */
/* Which release ran kvm_destroy_vm: the VM fd's, a vCPU fd's, another's. */
#define KC_VM_DESTROY_BY_VM	8
#define KC_VM_DESTROY_BY_VCPU	16
#define KC_VM_DESTROY_BY_OTHER	32
#define KC_VM_STARTED		64	/* its start-up was partitioned */

struct kc_vm {
	u64 kvm;		/* struct kvm *, while it lives */
	u64 created;		/* CLOCK_REALTIME, ns */
	pid_t tgid;
	pid_t creator;		/* the thread that created it */
	u32 flags;
	char comm[KC_COMM_LEN];	/* the leader's */
	u64 sum[KC_NR_METRICS];	/* in the module's unit */
	u32 count[KC_NR_METRICS];	/* 0: the stage did not happen */
	/* its process's teardown, when it ended (KC_VM_TORN_DOWN) */
	u64 td_began;		/* CLOCK_REALTIME, ns */
	u64 td_notified;	/* 1 + offset of the parent's notification */
	u64 td_reaped;		/* 1 + offset of the reap; 0: not seen */
	u64 td_first[KC_NR_TD_PARTS];	/* 1 + offset of a part's first instant */
	u64 td_before_exit[KC_NR_TD_PARTS];	/* the parts before the leader's exit */
	/* its start-up, when it was ready (KC_VM_STARTED) */
	u64 st_first[KC_NR_ST_PARTS];	/* 1 + offset of a part's first instant */
};

struct kc_vms_params {
	unsigned int last;	/* vms_last= */
	unsigned int slowest;	/* vms_slowest= */
	unsigned int live;	/* vms_live= */
};

struct kc_vms_stats {
	u64 finished;		/* since load or reset */
	u64 last_evicted;	/* older than the last vms_last */
	u64 live_evicted;	/* live records lost to a full live table */
	unsigned int live;
};

#define KC_VMS_MIN	1
#define KC_VMS_MAX	65536

int kc_vms_init(const struct kc_vms_params *p);
void kc_vms_exit(void);
void kc_vm_begin(u64 kvm, struct task_struct *t);
void kc_vm_created(pid_t tgid, bool ok);
void kc_vm_stage_kvm(u64 kvm, enum kc_metric m, u64 value);
void kc_vm_stage_tgid(pid_t tgid, enum kc_metric m, u64 value);
void kc_vm_stage_creating(pid_t tgid, enum kc_metric m, u64 value);
void kc_vm_stage_creator(pid_t pid, enum kc_metric m, u64 value);
void kc_vm_destroyed(u64 kvm);

/*
 * The live view: a timed call enters and leaves its VM's flight (the
 * probes, for the calls they time), and readers take what each live VM is
 * in (kvmchurn_live.h). stall_ms= is read by the readers alone.
 */
extern unsigned int kc_stall_ms;
void kc_vm_fly(enum kc_vm_by by, u64 id, unsigned int m, u64 since,
	       bool enter);
unsigned int kc_vms_live_snapshot(struct kc_live *out, unsigned int max);

/*
 * A process's teardown, partitioned into KC_TEARDOWN_PARTS (partition.c):
 * its events in the order an exit takes them, and its parts' intervals, by
 * process or by VM. Times are kc_now()'s, in the module's unit; @waited is
 * the leader's run-queue wait so far (kc_run_delay()) in the same unit, for
 * the events the leader itself takes (LEADER_RUNS and EXITS), else 0.
 */
enum kc_td_event {
	KC_TD_SIGNALLED,	/* its first fatal signal: the window opens */
	KC_TD_LEADER_RUNS,	/* its leader takes a fatal signal */
	KC_TD_EXITS,		/* its leader exits: opens it if no signal did */
	KC_TD_LEADER_DONE,	/* the leader's exit_files() returned */
	KC_TD_NOTIFIED,		/* its parent was sent the leader's exit signal */
	KC_TD_REAPED,		/* its leader was released */
};

void kc_vm_td_event(pid_t tgid, enum kc_td_event ev, u64 now, u64 waited);
bool kc_vm_td_interval(enum kc_vm_by by, u64 id, unsigned int part,
		       bool open, u64 now);
void kc_vm_td_closed(const struct task_struct *t, u64 now);
void kc_vm_td_released(const struct task_struct *t, u64 now);

/* Which release of a VM's files a task is in (kc_vm_releasing()). */
enum kc_vm_release { KC_VM_REL_VM, KC_VM_REL_VCPU, KC_VM_NR_REL };

bool kc_vm_releasing(u64 kvm, enum kc_vm_release rel, bool begins);
bool kc_vm_destroying(u64 kvm, bool begins, u64 now);

/* A freed process's teardown: its window and its parts. */
struct kc_td_result {
	bool valid;
	u64 window;
	u64 part[KC_NR_TD_PARTS];
};

void kc_vm_freed(pid_t tgid, u64 now, struct kc_td_result *td);

/*
 * A VM's start-up, partitioned into KC_STARTUP_PARTS: its window opens at
 * its KVM_CREATE_VM's entry, the timed calls are its intervals, and it
 * ends when the VM is ready (vmm_time.c splits what is left). Times are
 * kc_now()'s in the module's unit; @in is the calling thread's own times
 * from the call's entry (kc_vmm_time_task()), @at and @end the VMM's at the
 * window's opening and at ready (kc_vmm_time_group()), in ns.
 */
struct kc_st_result {
	bool valid;
	u64 window;
	u64 part[KC_NR_ST_PARTS];
};

/* How many VMs are starting: read without the lock, a hint (vms.c). */
extern unsigned int kc_vms_starting;

static __always_inline bool kc_vms_none_starting(void)
{
	return !READ_ONCE(kc_vms_starting);
}

void kc_vm_st_begin(pid_t tgid, u64 start, u64 now,
		    const struct kc_vmm_time *at);
bool kc_vm_st_interval(u64 kvm, unsigned int part, bool open, u64 now,
		       const struct kc_vmm_time *in);
void kc_vm_st_ready(u64 kvm, u64 now, const struct kc_vmm_time *in,
		    const struct kc_vmm_time *end, struct kc_st_result *st);

void kc_vm_accounted(enum kc_window w, u64 window, u64 other);
void kc_vms_accounted(enum kc_window w, u32 *count);
void kc_vms_reset(void);
void kc_vms_snapshot(struct kc_vm *out, unsigned int *nlast,
		     unsigned int *nslow, struct kc_vms_stats *st);
void kc_vms_params(struct kc_vms_params *p);
void kc_vms_mem(struct kc_mem *mem);

/*
 * probes.c and tracepoints.c: the probes, attached, and what the `probes`
 * file lists of them, one kc_probe_status each, in kc_probe_desc() order.
 * What a kretprobe does is given to probes.c as a table of hooks (kret.h:
 * hooks.c's and exit.c's); a tracepoint's handler is named after it.
 */
struct kc_kret_ops;
int kc_kretprobes_init(const struct kc_kret_ops *const *hooks,
		       unsigned int maxactive, bool fprobes);
void kc_kretprobes_exit(void);
unsigned int kc_kretprobes_count(void);
void kc_kretprobe_status(unsigned int i, struct kc_probe_status *st);
void kc_kretprobes_mem(struct kc_mem *mem);

int kc_tracepoints_init(void);
void kc_tracepoints_exit(void);
unsigned int kc_tracepoints_count(void);
void kc_tracepoint_status(unsigned int i, struct kc_probe_status *st);
void kc_tracepoints_mem(struct kc_mem *mem);

/*
 * A tracepoint's hit, counted by its handler with preemption off: a plain
 * per-CPU add (exit.h says why that is safe). @preemptible: whether the
 * tracepoint leaves preemption on (compat.h).
 */
extern u64 __percpu *kc_tp_hits[KC_NR_TRACEPOINTS];

static __always_inline void kc_tp_count_hit(enum kc_tp_id id)
{
	__this_cpu_inc(*kc_tp_hits[id]);
}

static __always_inline void kc_tp_hit(enum kc_tp_id id, bool preemptible)
{
	kc_tp_preempt_disable(preemptible);
	kc_tp_count_hit(id);
	kc_tp_preempt_enable(preemptible);
}

/* The handlers of the exit path's tracepoints (exit.c). */
struct kernel_siginfo;
struct k_sigaction;
void kc_tp_signal_deliver(void *data, int sig, struct kernel_siginfo *info,
			  struct k_sigaction *ka);
kc_sched_process_exit_fn kc_tp_sched_process_exit;
void kc_tp_sched_process_free(void *data, struct task_struct *p);
void kc_tp_signal_generate(void *data, int sig, struct kernel_siginfo *info,
			   struct task_struct *task, int group, int result);

/* Hits and misses are counted from the last reset. */
void kc_kretprobes_reset(void);
void kc_tracepoints_reset(void);

/*
 * render.c: the text of the read-only files. Each read takes what it shows
 * once, into a struct kc_read of its own (views.c allocates it: too big
 * for the stack); a show function returns 0 or -ENOMEM.
 */
struct seq_file;
struct kc_read {
	struct kc_hist_snap snap;
	struct kc_probe_status probes[KC_NR_PROBES];
	struct kc_map maps[KC_NR_MAPS];
	struct kc_check checks[KC_NR_CHECKS];
	u32 accounted[KC_PERMILLE + 1];	/* kc_vms_accounted(), one window's */
	/* the live view's: its VMs (vms_live= of them), stalls and a stack */
	struct seq_file *m;
	struct kc_live *live;
	struct kc_stall_group stalls[KC_STALL_GROUPS];
	struct kc_stall_buf text;
	struct kc_live_stack stack;
	unsigned long entries[KC_STACK_DEPTH];
};

int kc_show_hist(struct seq_file *m, enum kc_metric metric,
		 struct kc_read *rd);
int kc_show_all(struct seq_file *m, struct kc_read *rd);
int kc_show_summary(struct seq_file *m, struct kc_read *rd);
int kc_show_counters(struct seq_file *m, struct kc_read *rd);
int kc_show_probes(struct seq_file *m, struct kc_read *rd);
int kc_show_checks(struct seq_file *m, struct kc_read *rd);
int kc_show_raw(struct seq_file *m, struct kc_read *rd);
int kc_show_memory(struct seq_file *m, struct kc_read *rd);
int kc_show_vms(struct seq_file *m, struct kc_read *rd);

/*
 * views.c: the read-only views, by name; a show function of seq_file's
 * (single_open()). hist/<metric> is kc_view_hist() with the metric as the
 * seq_file's private data.
 */
struct kc_view {
	const char *name;
	int (*show)(struct seq_file *m, void *unused);
};

#define KC_NR_VIEWS	8
extern const struct kc_view kc_views[KC_NR_VIEWS];
int kc_view_hist(struct seq_file *m, void *unused);

/*
 * A view's mode, in debugfs and procfs: read-only, which lockdown's debugfs
 * still opens (debugfs.c says when).
 */
#define KC_VIEW_MODE	0444

/* debugfs.c: the files under /sys/kernel/debug/kvmchurn. */
int kc_debugfs_init(void);
void kc_debugfs_exit(void);

/* procfs.c: the views again, under /proc/kvmchurn. */
int kc_procfs_init(void);
void kc_procfs_exit(void);

#endif /* KVMCHURN_H */
