// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn diff A B: two saved snapshots compared, metric by metric, and the
 * seed's two estimates: what the irqbypass patch can save at most, and the
 * destroy uevent's cost.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

const char diff_usage[] =
	"Usage: kvmchurn diff [--json] A B\n"
	"\n"
	"Compares two snapshots (files from 'kvmchurn snapshot', or folders that hold\n"
	"a raw file, such as a copy of the module's folder): A, say, before a kernel\n"
	"patch or a setting, and B after. For each metric: the count, avg, p50 and p99\n"
	"of each side and the change from A to B in percent ('-' when a side has no\n"
	"data). Then the seed's two estimates, for each side:\n"
	"  irqbypass register + unregister\n"
	"      the time spent in irq_bypass_register_consumer() and\n"
	"      irq_bypass_unregister_consumer() in all, and per VM created: the most\n"
	"      that the irqbypass patch (kvm.irq_bypass) can save\n"
	"  kvm_vm_release - kvm_destroy_vm\n"
	"      release's time minus destroy's, in all and per VM (the difference of\n"
	"      the averages): the destroy uevent and the rest, which no probe can\n"
	"      time directly\n"
	"Values are in the finer of the two snapshots' units. Percentiles are within\n"
	"25 % (see 'kvmchurn help summary'): a change smaller than that in p50 or p99\n"
	"is not significant by itself.\n"
	"\n"
	"Options:\n"
	"  --json      one JSON object: unit, a, b (the paths), metrics (name, a and b\n"
	"              each with count, avg, p50, p99, and change_pct with avg, p50,\n"
	"              p99), irqbypass and release_minus_destroy (a and b each with\n"
	"              total, per_vm, vms, and change_pct of per_vm); a value null\n"
	"              when there is no data\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when a snapshot cannot be read.\n";

/* One side's numbers for one metric, in the shown unit. */
struct side {
	__u64 count, avg, p50, p99;
};

struct diff {
	const char *path[2];
	struct kc_snap snap[2];
	__u64 factor[2];	/* the shown unit per snapshot unit */
	const char *unit;
	bool json;
};

static struct side side_of(const struct diff *d, int i, unsigned int m)
{
	const struct kc_hist *h = &d->snap[i].hist[m];
	__u64 f = d->factor[i];

	return (struct side){
		.count = h->count, .avg = kc_hist_avg(h) * f,
		.p50 = kc_hist_pct(h, KC_PCT_P50) * f, .p99 = kc_hist_pct(h, KC_PCT_P99) * f,
	};
}

/* The change from @a to @b in percent; false when it has no meaning. */
static bool change(double a, double b, bool have, double *pct)
{
	if (!have || a == 0)
		return false;
	*pct = (b - a) / (a < 0 ? -a : a) * 100;
	return true;
}

static void print_change(double a, double b, bool have)
{
	char buf[32];
	double pct;

	if (!change(a, b, have, &pct)) {
		printf(" %9s", "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%+.1f%%", pct);
	printf(" %s%9s%s", pct >= 5 ? kc_style(KC_BAD) : pct <= -5 ? kc_style(KC_GOOD) : "",
	       buf, pct >= 5 || pct <= -5 ? kc_style(KC_OFF) : "");
}

static void print_value(__u64 v, bool have)
{
	if (have)
		printf(" %10llu", v);
	else
		printf(" %10s", "-");
}

/* The seed's estimates for side @i. */
struct estimate {
	double total, per_vm;
	__u64 vms;
	bool have, have_per_vm;
};

static struct estimate irqbypass(const struct diff *d, int i)
{
	const struct kc_snap *s = &d->snap[i];
	const struct kc_hist *r = &s->hist[KC_M_IRQBYPASS_REGISTER];
	const struct kc_hist *u = &s->hist[KC_M_IRQBYPASS_UNREGISTER];
	struct estimate e = {
		.total = (double)(r->sum + u->sum) * (double)d->factor[i],
		.vms = s->hist[KC_M_KVM_CREATE_VM].count,
		.have = r->count || u->count,
	};

	e.have_per_vm = e.have && e.vms;
	if (e.have_per_vm)
		e.per_vm = e.total / (double)e.vms;
	return e;
}

static struct estimate release_minus_destroy(const struct diff *d, int i)
{
	const struct kc_snap *s = &d->snap[i];
	const struct kc_hist *r = &s->hist[KC_M_KVM_VM_RELEASE];
	const struct kc_hist *v = &s->hist[KC_M_KVM_DESTROY_VM];
	double f = (double)d->factor[i];
	struct estimate e = {
		.total = ((double)r->sum - (double)v->sum) * f,
		.vms = v->count,
		.have = r->count && v->count,
	};

	e.have_per_vm = e.have;
	if (e.have)
		e.per_vm = ((double)r->sum / (double)r->count -
			    (double)v->sum / (double)v->count) * f;
	return e;
}

static void print_estimate_text(const struct diff *d, const char *title,
				struct estimate (*get)(const struct diff *, int))
{
	struct estimate e[2] = { get(d, 0), get(d, 1) };
	double pct;

	printf("%s%s%s\n", kc_style(KC_BOLD), title, kc_style(KC_OFF));
	for (int i = 0; i < 2; i++) {
		printf("  %c  ", 'A' + i);
		if (!e[i].have) {
			printf("no data\n");
			continue;
		}
		printf("%.0f %s in all", e[i].total, d->unit);
		if (e[i].have_per_vm)
			printf(", %.1f %s per VM (%llu VMs)", e[i].per_vm, d->unit, e[i].vms);
		putchar('\n');
	}
	if (change(e[0].per_vm, e[1].per_vm, e[0].have_per_vm && e[1].have_per_vm, &pct))
		printf("  change per VM: %+.1f%%\n", pct);
}

static void print_text(const struct diff *d)
{
	printf("A: %s\nB: %s\n", d->path[0], d->path[1]);
	if (d->snap[0].unit_ns != d->snap[1].unit_ns)
		printf("(A is in %s and B in %s: both shown in %s)\n", d->snap[0].unit,
		       d->snap[1].unit, d->unit);
	printf("\n%-*s %8s %8s %10s %10s %9s %10s %10s %9s %10s %10s %9s  %s\n",
	       KC_METRIC_COL, "metric", "count A", "count B", "avg A", "avg B", "change", "p50 A",
	       "p50 B", "change", "p99 A", "p99 B", "change", "unit");
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		struct side a = side_of(d, 0, m), b = side_of(d, 1, m);
		bool have = a.count && b.count;

		printf("%-*s %8llu %8llu", KC_METRIC_COL, kc_metric_name(m), a.count, b.count);
		print_value(a.avg, a.count);
		print_value(b.avg, b.count);
		print_change((double)a.avg, (double)b.avg, have);
		print_value(a.p50, a.count);
		print_value(b.p50, b.count);
		print_change((double)a.p50, (double)b.p50, have);
		print_value(a.p99, a.count);
		print_value(b.p99, b.count);
		print_change((double)a.p99, (double)b.p99, have);
		printf("  %s\n", d->unit);
	}
	putchar('\n');
	print_estimate_text(d, "irqbypass register + unregister: the most the irqbypass patch can save",
			    irqbypass);
	print_estimate_text(d, "kvm_vm_release - kvm_destroy_vm: the destroy uevent and the rest, estimated",
			    release_minus_destroy);
}

static void json_change(struct kc_json *j, const char *key, double a, double b, bool have)
{
	double pct;

	if (change(a, b, have, &pct))
		kc_json_double(j, key, "%.1f", pct);
	else
		kc_json_null(j, key);
}

static void json_side(struct kc_json *j, const char *key, const struct side *s)
{
	kc_json_object(j, key);
	kc_json_uint(j, "count", s->count);
	kc_json_uint_or_null(j, "avg", s->avg, s->count);
	kc_json_uint_or_null(j, "p50", s->p50, s->count);
	kc_json_uint_or_null(j, "p99", s->p99, s->count);
	kc_json_end(j);
}

static void json_estimate(struct kc_json *j, const struct diff *d, const char *key,
			  struct estimate (*get)(const struct diff *, int))
{
	struct estimate e[2] = { get(d, 0), get(d, 1) };
	static const char *const sides[] = { "a", "b" };

	kc_json_object(j, key);
	for (int i = 0; i < 2; i++) {
		kc_json_object(j, sides[i]);
		if (e[i].have)
			kc_json_double(j, "total", "%.0f", e[i].total);
		else
			kc_json_null(j, "total");
		if (e[i].have_per_vm)
			kc_json_double(j, "per_vm", "%.1f", e[i].per_vm);
		else
			kc_json_null(j, "per_vm");
		kc_json_uint(j, "vms", e[i].vms);
		kc_json_end(j);
	}
	json_change(j, "change_pct", e[0].per_vm, e[1].per_vm,
		    e[0].have_per_vm && e[1].have_per_vm);
	kc_json_end(j);
}

static void print_json(const struct diff *d)
{
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_str(&j, "unit", d->unit);
	kc_json_str(&j, "a", d->path[0]);
	kc_json_str(&j, "b", d->path[1]);
	kc_json_array(&j, "metrics");
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		struct side a = side_of(d, 0, m), b = side_of(d, 1, m);
		bool have = a.count && b.count;

		kc_json_object(&j, NULL);
		kc_json_str(&j, "name", kc_metric_name(m));
		json_side(&j, "a", &a);
		json_side(&j, "b", &b);
		kc_json_object(&j, "change_pct");
		json_change(&j, "avg", (double)a.avg, (double)b.avg, have);
		json_change(&j, "p50", (double)a.p50, (double)b.p50, have);
		json_change(&j, "p99", (double)a.p99, (double)b.p99, have);
		kc_json_end(&j);
		kc_json_end(&j);
	}
	kc_json_end(&j);
	json_estimate(&j, d, "irqbypass", irqbypass);
	json_estimate(&j, d, "release_minus_destroy", release_minus_destroy);
	kc_json_end(&j);
	putchar('\n');
}

int cmd_diff(int argc, char *argv[], const struct kc_global *g)
{
	struct diff *d;
	int rc, first;
	__u64 unit;

	(void)g;
	d = calloc(1, sizeof(*d));
	if (!d) {
		perror("kvmchurn diff");
		return KC_EXIT_CANNOT_START;
	}
	rc = kc_simple_options(argc, argv, "diff", diff_usage, &d->json, &first);
	if (rc >= 0)
		goto out;
	if (argc - first != 2) {
		rc = argc - first < 2 ?
			kc_usage_error("diff", "two snapshots are needed, A and B") :
			kc_usage_error("diff", "unexpected argument '%s'", argv[first + 2]);
		goto out;
	}
	d->path[0] = argv[first];
	d->path[1] = argv[first + 1];
	rc = kc_read_snapshot("diff", d->path[0], &d->snap[0]);
	if (rc)
		goto out;
	rc = kc_read_snapshot("diff", d->path[1], &d->snap[1]);
	if (rc)
		goto free0;
	unit = d->snap[0].unit_ns < d->snap[1].unit_ns ? d->snap[0].unit_ns :
							  d->snap[1].unit_ns;
	d->unit = d->snap[0].unit_ns == unit ? d->snap[0].unit : d->snap[1].unit;
	d->factor[0] = d->snap[0].unit_ns / unit;
	d->factor[1] = d->snap[1].unit_ns / unit;
	if (d->json)
		print_json(d);
	else
		print_text(d);
	kc_snap_free(&d->snap[1]);
free0:
	kc_snap_free(&d->snap[0]);
out:
	free(d);
	return rc;
}
