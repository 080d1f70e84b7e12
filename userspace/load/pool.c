// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn load: the pool of VM processes. The parent forks one process per
 * VM and keeps up to -j of them alive (one alone until the first is ready).
 * Each VM process reports on a pipe that it is ready, or why it failed; the
 * parent ends it as --end says (with --together, once every VM alive is
 * ready) and reaps it. Every way out of load_run() first kills and reaps what
 * it started.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "load.h"

#define NS_PER_S 1000000000ULL
#define PROGRESS_NS (NS_PER_S / 4)

/* What a VM process writes on its pipe, in one write() (atomic: < PIPE_BUF). */
struct vm_report {
	uint32_t kind;
	int32_t step;		/* enum vm_step */
	int32_t err;		/* errno, or 0 */
	uint32_t pad;
	uint64_t t_ns;		/* CLOCK_MONOTONIC when written */
	char what[sizeof(((struct vm_error *)0)->what)];
};

enum { REPORT_READY = 1, REPORT_ERROR = 2 };

_Static_assert(sizeof(struct vm_report) <= PIPE_BUF, "one atomic write");

/* Set by the parent's handlers; the only mutable globals of the client. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void on_sigchld(int sig)
{
	(void)sig;		/* only there to interrupt ppoll() */
}

/* ---- the VM process ------------------------------------------------------ */

/* Like Firecracker's handlers: leave from the handler, the kernel tears down. */
static void on_vm_sigterm(int sig)
{
	(void)sig;
	_exit(0);
}

static int report(int fd, uint32_t kind, const struct vm_error *e)
{
	struct vm_report r = { .kind = kind };
	ssize_t n;

	if (e) {
		r.step = e->step;
		r.err = e->err;
		memcpy(r.what, e->what, sizeof(r.what));
	}
	r.t_ns = kc_now_ns();
	do
		n = write(fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(r) ? 0 : -1;
}

static _Noreturn void vm_process_fail(int fd, const struct vm_error *e)
{
	report(fd, REPORT_ERROR, e);
	_exit(1);
}

/*
 * The parent's handlers and blocked signals are not for the VM: Ctrl-C and
 * hangups are the parent's to act on, SIGTERM is caught only with --end term
 * (and ignored with --ignore-term, a VMM that does not stop when asked).
 */
static int vm_process_signals(const struct load_opts *o, struct vm_error *err)
{
	static const int ignored[] = { SIGINT, SIGHUP };
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t none;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL))
		return vm_fail(err, VM_STEP_OTHER, errno, "sigaction(SIGCHLD)");
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		if (sigaction(ignored[i], &sa, NULL))
			return vm_fail(err, VM_STEP_OTHER, errno, "sigaction(%d)", ignored[i]);
	if (o->ignore_term)
		sa.sa_handler = SIG_IGN;
	else if (o->end == LOAD_END_TERM && !o->term_default)
		sa.sa_handler = on_vm_sigterm;
	else
		sa.sa_handler = SIG_DFL;
	if (sigaction(SIGTERM, &sa, NULL))
		return vm_fail(err, VM_STEP_OTHER, errno, "sigaction(SIGTERM)");
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL))
		return vm_fail(err, VM_STEP_OTHER, errno, "sigprocmask");
	return 0;
}

static _Noreturn void vm_process(const struct load_opts *o, pid_t parent, int fd)
{
	struct vm_error err = { 0 };
	struct vm vm;

	/* First of all, so that the VM is seen under its name from the start. */
	if (prctl(PR_SET_NAME, (unsigned long)o->comm, 0UL, 0UL, 0UL)) {
		vm_fail(&err, VM_STEP_OTHER, errno, "prctl(PR_SET_NAME)");
		vm_process_fail(fd, &err);
	}
	/* A VM never outlives the client, even one killed with SIGKILL. */
	if (prctl(PR_SET_PDEATHSIG, (unsigned long)SIGKILL, 0UL, 0UL, 0UL)) {
		vm_fail(&err, VM_STEP_OTHER, errno, "prctl(PR_SET_PDEATHSIG)");
		vm_process_fail(fd, &err);
	}
	if (getppid() != parent)
		_exit(1);	/* the client died before PR_SET_PDEATHSIG */
	if (vm_process_signals(o, &err) || vm_build(&vm, &o->vm, &err))
		vm_process_fail(fd, &err);
	if (report(fd, REPORT_READY, NULL))
		_exit(1);

	switch (o->end) {
	case LOAD_END_EXIT:
		_exit(0);
	case LOAD_END_CLOSE:
		vm_close(&vm);
		close(fd);
		_exit(0);
	case LOAD_END_TERM:
	case LOAD_END_KILL:
		break;
	}
	for (;;)
		pause();
}

/* ---- the parent ---------------------------------------------------------- */

enum slot_state {
	SLOT_FREE,
	SLOT_STARTING,		/* forked, not ready yet */
	SLOT_READY,		/* --together: ready, waiting for the others */
	SLOT_ENDING,		/* ready, its end under way */
	SLOT_FAILED,		/* failed and reported, waiting to be reaped */
};

struct slot {
	enum slot_state state;
	pid_t pid;
	bool reaped;
	unsigned long nr;	/* VM number, from 1 */
	int fd;			/* read end of its report pipe, or -1 */
	uint64_t t_fork;
	uint64_t t_end;		/* signal sent, or ready (exit, close) */
	uint64_t deadline;	/* --timeout of the current state */
	uint64_t kill_at;	/* --kill-after: when SIGKILL follows, or 0 */
	bool killed;		/* --kill-after: SIGKILL sent */
};

struct pool {
	const struct load_opts *o;
	struct load_result *res;
	struct slot *slots;
	struct pollfd *pfds;
	struct slot **pfd_slots;
	unsigned long alive;
	unsigned long limit;	/* 1 until the first VM is ready, then -j */
	bool first_ready;
	bool cannot_start;	/* the first VM failed before it was ready */
	bool broken;		/* the parent itself failed: stop */
	uint64_t t_start;
	uint64_t t_until;	/* -t */
	uint64_t timeout_ns;
	bool progress;		/* stderr is a terminal */
	bool progress_shown;
	uint64_t next_progress;
};

static void clear_progress(struct pool *p)
{
	if (p->progress_shown)
		fputs("\r\033[K", stderr);
	p->progress_shown = false;
}

static void show_progress(struct pool *p, uint64_t now)
{
	const struct load_result *r = p->res;
	double secs = (double)(now - p->t_start) / NS_PER_S;

	if (!p->progress || now < p->next_progress)
		return;
	p->next_progress = now + PROGRESS_NS;
	fprintf(stderr, "\rkvmchurn load: %lu started, %lu completed, %lu failed, "
		"%lu alive, %.1f VMs/s, %.1f s\033[K", r->started, r->completed,
		r->failed, p->alive, secs > 0 ? r->completed / secs : 0.0, secs);
	p->progress_shown = true;
}

static void pool_msg(struct pool *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void pool_msg(struct pool *p, const char *fmt, ...)
{
	va_list ap;

	clear_progress(p);
	fputs("kvmchurn load: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* What to do about it, when the very first VM fails. */
static void hint_first_failure(struct pool *p, const struct vm_report *r)
{
	const char *dev = p->o->vm.dev;

	switch (r->step) {
	case VM_STEP_OPEN:
		if (r->err == ENOENT)
			pool_msg(p, "%s does not exist: load KVM (x86: modprobe kvm_amd "
				 "or modprobe kvm_intel) and, inside a virtual machine, "
				 "enable nested virtualization", dev);
		else if (r->err == EACCES || r->err == EPERM)
			pool_msg(p, "no permission to open %s: run as root or as a "
				 "member of its group (usually kvm)", dev);
		else if (r->err == ENXIO || r->err == ENODEV)
			pool_msg(p, "%s has no KVM behind it: enable virtualization in "
				 "the firmware or, inside a virtual machine, nested "
				 "virtualization", dev);
		break;
	case VM_STEP_API_VERSION:
		if (r->err == ENOTTY || r->err == EINVAL)
			pool_msg(p, "%s is not a KVM device", dev);
		break;
	case VM_STEP_CREATE_VM:
		pool_msg(p, "KVM cannot create a VM here: is hardware virtualization "
			 "enabled (nested, inside a virtual machine) and not held by "
			 "another hypervisor?");
		break;
	default:
		break;
	}
}

/* Marks a VM failed (counted when reaped); the first one stops the load. */
static void slot_fail(struct pool *p, struct slot *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void slot_fail(struct pool *p, struct slot *s, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pool_msg(p, "VM %lu: %s", s->nr, msg);
	if (s->state == SLOT_STARTING && !p->first_ready)
		p->cannot_start = true;
	s->state = SLOT_FAILED;
	s->deadline = kc_now_ns() + p->timeout_ns;
}

static void slot_kill(struct pool *p, struct slot *s, int sig)
{
	if (!s->reaped && kill(s->pid, sig)) {
		pool_msg(p, "kill VM %lu (pid %d): %s", s->nr, (int)s->pid, strerror(errno));
		p->broken = true;
	}
}

static int end_signal(const struct load_opts *o)
{
	return o->end == LOAD_END_KILL ? SIGKILL : SIGTERM;
}

static void record(struct pool *p, struct kc_samples *s, uint64_t ns)
{
	if (kc_samples_add(s, ns)) {
		pool_msg(p, "recording a latency: %s", strerror(errno));
		p->broken = true;
	}
}

static const char *end_signal_name(const struct load_opts *o)
{
	return o->end == LOAD_END_KILL ? "SIGKILL" : "SIGTERM";
}

/* Begins the end of a ready VM; @t_ready is when it said it was ready. */
static void end_vm(struct pool *p, struct slot *s, uint64_t t_ready)
{
	const struct load_opts *o = p->o;

	s->state = SLOT_ENDING;
	if (o->end == LOAD_END_KILL || o->end == LOAD_END_TERM) {
		s->t_end = kc_now_ns();
		if (s->reaped)
			slot_fail(p, s, "ended before it was sent %s",
				  end_signal_name(o));
		else
			slot_kill(p, s, end_signal(o));
	} else {
		s->t_end = t_ready;
	}
	if (s->state == SLOT_ENDING)
		s->deadline = s->t_end + p->timeout_ns;
	if (s->state == SLOT_ENDING && o->kill_after)
		s->kill_at = s->t_end + o->kill_after * NS_PER_S;
}

static void on_ready(struct pool *p, struct slot *s, const struct vm_report *r)
{
	uint64_t create = r->t_ns > s->t_fork ? r->t_ns - s->t_fork : 0;

	record(p, &p->res->create, create);
	if (!p->first_ready) {
		p->first_ready = true;
		p->limit = p->o->parallel;
	}
	if (!p->o->together) {
		end_vm(p, s, r->t_ns);
		return;
	}
	/* it waits for its wave without a deadline: those still starting have one */
	s->state = SLOT_READY;
	s->deadline = UINT64_MAX;
}

static void on_report(struct pool *p, struct slot *s, struct vm_report *r)
{
	if (s->state != SLOT_STARTING)
		return;		/* already failed (timeout): ignore */
	r->what[sizeof(r->what) - 1] = '\0';
	if (r->kind == REPORT_READY) {
		on_ready(p, s, r);
	} else if (r->kind != REPORT_ERROR) {
		slot_fail(p, s, "unknown report %u", r->kind);
	} else {
		bool first = !p->first_ready;

		if (r->err)
			slot_fail(p, s, "%s: %s", r->what, strerror(r->err));
		else
			slot_fail(p, s, "%s", r->what);
		if (first)
			hint_first_failure(p, r);
	}
}

static void close_report(struct slot *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* Reads what the VM process reported, until EOF or nothing more for now. */
static void read_reports(struct pool *p, struct slot *s)
{
	while (s->fd >= 0) {
		struct vm_report r;
		ssize_t n = read(s->fd, &r, sizeof(r));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0)
			pool_msg(p, "VM %lu: reading its report: %s", s->nr, strerror(errno));
		else if (n > 0 && n != (ssize_t)sizeof(r))
			slot_fail(p, s, "a report of %zd bytes", n);
		if (n != (ssize_t)sizeof(r)) {
			close_report(s);
			return;
		}
		on_report(p, s, &r);
	}
}

static void describe_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "ended with wait status 0x%x", (unsigned int)status);
}

/* Whether the VM ended as --end says it should; *expected says how. */
static bool ended_as_expected(const struct load_opts *o, const struct slot *s,
			      int status, const char **expected)
{
	int sig = o->end == LOAD_END_KILL || o->ignore_term ? SIGKILL :
		  o->end == LOAD_END_TERM && o->term_default ? SIGTERM : 0;

	/* the grace's SIGKILL, or the end it raced with (below) */
	if (s->killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return true;
	if (sig) {
		*expected = sig == SIGKILL ? "to be killed by SIGKILL" :
					     "to be killed by SIGTERM";
		return WIFSIGNALED(status) && WTERMSIG(status) == sig;
	}
	*expected = "exit status 0";
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void finish(struct pool *p, struct slot *s, int status, uint64_t now)
{
	struct load_result *res = p->res;
	char how[96];
	const char *expected;

	s->reaped = true;
	read_reports(p, s);	/* what it wrote before it died */
	close_report(s);
	describe_status(status, how, sizeof(how));
	if (s->state == SLOT_STARTING) {
		slot_fail(p, s, "%s before it was ready", how);
	} else if (s->state == SLOT_READY) {
		slot_fail(p, s, "%s before it was sent %s", how,
			  end_signal_name(p->o));
	} else if (s->state == SLOT_ENDING) {
		if (!ended_as_expected(p->o, s, status, &expected))
			slot_fail(p, s, "%s, expected %s", how, expected);
		else
			record(p, &res->teardown, now - s->t_end);
		if (s->state == SLOT_ENDING && s->killed && WIFSIGNALED(status) &&
		    WTERMSIG(status) == SIGKILL)
			res->killed_after++;
	}
	if (s->state == SLOT_FAILED)
		res->failed++;
	else
		res->completed++;
	*s = (struct slot){ .state = SLOT_FREE, .fd = -1 };
	p->alive--;
}

static struct slot *find_slot(struct pool *p, pid_t pid)
{
	for (unsigned long i = 0; i < p->o->parallel; i++)
		if (p->slots[i].state != SLOT_FREE && p->slots[i].pid == pid)
			return &p->slots[i];
	return NULL;
}

static void reap(struct pool *p)
{
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		struct slot *s;

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0 && errno != ECHILD) {
			pool_msg(p, "waitpid: %s", strerror(errno));
			p->broken = true;
		}
		if (pid <= 0)
			return;
		s = find_slot(p, pid);
		if (s)
			finish(p, s, status, kc_now_ns());
	}
}

static void check_timeouts(struct pool *p, uint64_t now)
{
	unsigned long t = p->o->timeout;

	for (unsigned long i = 0; i < p->o->parallel; i++) {
		struct slot *s = &p->slots[i];

		if (s->state == SLOT_ENDING && s->kill_at && now >= s->kill_at) {
			s->kill_at = 0;
			s->killed = true;
			slot_kill(p, s, SIGKILL);
		}
		if (s->state == SLOT_FREE || now < s->deadline)
			continue;
		if (s->state == SLOT_STARTING)
			slot_fail(p, s, "not ready after %lu s", t);
		else if (s->state == SLOT_ENDING)
			slot_fail(p, s, "not gone %lu s after its end began", t);
		s->deadline = UINT64_MAX;
		slot_kill(p, s, SIGKILL);
	}
}

static struct timespec *wait_time(const struct pool *p, uint64_t now,
				  struct timespec *ts)
{
	uint64_t until = p->progress ? p->next_progress : UINT64_MAX;

	for (unsigned long i = 0; i < p->o->parallel; i++) {
		const struct slot *s = &p->slots[i];

		if (s->state != SLOT_FREE && s->deadline < until)
			until = s->deadline;
		if (s->state == SLOT_ENDING && s->kill_at && s->kill_at < until)
			until = s->kill_at;
	}
	if (until == UINT64_MAX)
		return NULL;
	until = until > now ? until - now : 0;
	ts->tv_sec = (time_t)(until / NS_PER_S);
	ts->tv_nsec = (long)(until % NS_PER_S);
	return ts;
}

static bool want_more(const struct pool *p)
{
	if (stop_signal || p->broken || p->cannot_start)
		return false;
	if (p->o->count)
		return p->res->started < p->o->count;
	return kc_now_ns() < p->t_until;
}

/*
 * --together: when no VM is starting and the pool is full, or no more VMs
 * will be started, every ready VM is ended at once: one wave.
 */
static void end_wave(struct pool *p)
{
	unsigned long ready = 0;

	for (unsigned long i = 0; i < p->o->parallel; i++) {
		if (p->slots[i].state == SLOT_STARTING)
			return;
		ready += p->slots[i].state == SLOT_READY;
	}
	if (!ready || (ready < p->limit && want_more(p)))
		return;
	p->res->waves++;
	for (unsigned long i = 0; i < p->o->parallel; i++)
		if (p->slots[i].state == SLOT_READY)
			end_vm(p, &p->slots[i], 0);
}

static void wait_events(struct pool *p, const sigset_t *waitmask)
{
	struct timespec ts;
	nfds_t n = 0;
	uint64_t now;

	for (unsigned long i = 0; i < p->o->parallel; i++) {
		if (p->slots[i].state == SLOT_FREE || p->slots[i].fd < 0)
			continue;
		p->pfds[n] = (struct pollfd){ .fd = p->slots[i].fd, .events = POLLIN };
		p->pfd_slots[n++] = &p->slots[i];
	}
	if (ppoll(p->pfds, n, wait_time(p, kc_now_ns(), &ts), waitmask) < 0) {
		if (errno != EINTR) {
			pool_msg(p, "ppoll: %s", strerror(errno));
			p->broken = true;
		}
		n = 0;
	}
	for (nfds_t i = 0; i < n; i++)
		if (p->pfds[i].revents)
			read_reports(p, p->pfd_slots[i]);
	reap(p);
	now = kc_now_ns();
	check_timeouts(p, now);
	if (p->o->together)
		end_wave(p);
	show_progress(p, now);
}

static int spawn(struct pool *p, struct slot *s)
{
	pid_t parent = getpid(), pid;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK)) {
		pool_msg(p, "pipe: %s", strerror(errno));
		return -1;
	}
	s->t_fork = kc_now_ns();
	pid = fork();
	if (pid < 0) {
		pool_msg(p, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		for (unsigned long i = 0; i < p->o->parallel; i++)
			if (p->slots[i].fd >= 0)
				close(p->slots[i].fd);
		vm_process(p->o, parent, fds[1]);
	}
	close(fds[1]);
	/* `kvmchurn vms` names VMs by pid: the summary lists them */
	if (!kc_grow(&p->res->pids, &p->res->pids_cap, p->res->npids,
		     sizeof(*p->res->pids), 64))
		p->res->pids[p->res->npids++] = pid;
	s->state = SLOT_STARTING;
	s->pid = pid;
	s->reaped = false;
	s->nr = ++p->res->started;
	s->fd = fds[0];
	s->deadline = s->t_fork + p->timeout_ns;
	p->alive++;
	return 0;
}

static struct slot *free_slot(struct pool *p)
{
	for (unsigned long i = 0; i < p->o->parallel; i++)
		if (p->slots[i].state == SLOT_FREE)
			return &p->slots[i];
	return NULL;		/* cannot happen: alive < limit <= parallel */
}

/* Kills and reaps every VM still alive: interrupted, or the parent broke. */
static void abort_all(struct pool *p)
{
	for (unsigned long i = 0; i < p->o->parallel; i++) {
		struct slot *s = &p->slots[i];
		int status;

		if (s->state == SLOT_FREE)
			continue;
		slot_kill(p, s, SIGKILL);
		while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
			;
		close_report(s);
		if (s->state == SLOT_FAILED)
			p->res->failed++;
		else
			p->res->aborted++;
		*s = (struct slot){ .state = SLOT_FREE, .fd = -1 };
		p->alive--;
	}
}

static void run(struct pool *p, const sigset_t *waitmask)
{
	for (;;) {
		while (p->alive < p->limit && want_more(p)) {
			struct slot *s = free_slot(p);

			if (!s || spawn(p, s)) {
				p->broken = true;
				break;
			}
		}
		if (!p->alive || stop_signal || p->broken)
			break;
		wait_events(p, waitmask);
	}
	abort_all(p);
	clear_progress(p);
}

static int pool_init(struct pool *p, const struct load_opts *o, struct load_result *res)
{
	unsigned long n = o->parallel;

	*p = (struct pool){
		.o = o, .res = res, .limit = 1,
		.timeout_ns = o->timeout * NS_PER_S,
		.progress = isatty(STDERR_FILENO),
	};
	p->slots = calloc(n, sizeof(*p->slots));
	p->pfds = calloc(n, sizeof(*p->pfds));
	p->pfd_slots = calloc(n, sizeof(*p->pfd_slots));
	if (!p->slots || !p->pfds || !p->pfd_slots) {
		pool_msg(p, "allocating %lu slots: %s", n, strerror(errno));
		return -1;
	}
	for (unsigned long i = 0; i < n; i++)
		p->slots[i].fd = -1;
	return 0;
}

static void pool_free(struct pool *p)
{
	free(p->slots);
	free(p->pfds);
	free(p->pfd_slots);
}

static const int handled_signals[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };
#define NR_HANDLED ARRAY_SIZE(handled_signals)

/*
 * The handled signals stay blocked but inside ppoll(), so that none is lost
 * between a check and the wait.
 */
static int catch_signals(sigset_t *oldmask, sigset_t *waitmask,
			 struct sigaction old[NR_HANDLED])
{
	struct sigaction sa = { 0 };
	sigset_t block;

	sigemptyset(&block);
	for (size_t i = 0; i < NR_HANDLED; i++)
		sigaddset(&block, handled_signals[i]);
	if (sigprocmask(SIG_BLOCK, &block, oldmask))
		return -1;
	*waitmask = *oldmask;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_HANDLED; i++) {
		sigdelset(waitmask, handled_signals[i]);
		sa.sa_handler = handled_signals[i] == SIGCHLD ? on_sigchld : on_stop_signal;
		sa.sa_flags = handled_signals[i] == SIGCHLD ? SA_NOCLDSTOP : 0;
		if (sigaction(handled_signals[i], &sa, &old[i])) {
			int e = errno;

			while (i--)
				sigaction(handled_signals[i], &old[i], NULL);
			sigprocmask(SIG_SETMASK, oldmask, NULL);
			errno = e;
			return -1;
		}
	}
	return 0;
}

static void restore_signals(const sigset_t *oldmask, const struct sigaction old[NR_HANDLED])
{
	for (size_t i = 0; i < NR_HANDLED; i++)
		sigaction(handled_signals[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
}

int load_run(const struct load_opts *o, struct load_result *res)
{
	struct sigaction old[NR_HANDLED];
	sigset_t oldmask, waitmask;
	struct pool p;
	int rc;

	*res = (struct load_result){ 0 };
	stop_signal = 0;
	if (pool_init(&p, o, res)) {
		pool_free(&p);
		return KC_EXIT_CANNOT_START;
	}
	if (catch_signals(&oldmask, &waitmask, old)) {
		pool_msg(&p, "sigaction: %s", strerror(errno));
		pool_free(&p);
		return KC_EXIT_CANNOT_START;
	}
	p.t_start = kc_now_ns();
	p.t_until = p.t_start + o->seconds * NS_PER_S;
	run(&p, &waitmask);
	res->wall_ns = kc_now_ns() - p.t_start;
	res->signal = stop_signal;
	restore_signals(&oldmask, old);

	if (p.cannot_start || (p.broken && !p.first_ready))
		rc = KC_EXIT_CANNOT_START;
	else if (res->failed || res->aborted || res->signal || p.broken)
		rc = KC_EXIT_FAILURES;
	else
		rc = KC_EXIT_OK;
	pool_free(&p);
	return rc;
}
