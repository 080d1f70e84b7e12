// SPDX-License-Identifier: GPL-2.0
/*
 * What the views of the module's numbers share: metric operands, units,
 * colour and JSON numbers.
 */
#include <string.h>

#include "view.h"

int kc_metric_arg(const char *cmd, const char *name)
{
	int m = kc_find_metric(name);

	if (m < 0)
		kc_usage_error(cmd, "unknown metric '%s'", name);
	return m;
}

const char *kc_style(enum kc_style style)
{
	static const char *const codes[] = {
		[KC_BOLD] = "\033[1m", [KC_GOOD] = "\033[32m",
		[KC_WARN] = "\033[33m", [KC_BAD] = "\033[31m",
		[KC_INFO] = "\033[36m", [KC_DIM] = "\033[2m",
		[KC_OFF] = "\033[0m",
	};
	static int on = -1;

	if (on < 0)
		on = kc_colour();
	return on ? codes[style] : "";
}

const char *kc_snap_state(const struct kc_snap *s, unsigned int m)
{
	const char *note = kc_snap_note(s, m);

	return *note ? note : kc_probe_state_name(KC_PROBE_ATTACHED);
}

void kc_json_metrics(struct kc_json *j, const struct kc_snap *s)
{
	kc_json_str(j, "unit", s->unit);
	kc_json_array(j, "metrics");
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_hist *h = &s->hist[m];

		kc_json_object(j, NULL);
		kc_json_str(j, "name", kc_metric_name(m));
		kc_json_uint(j, "count", h->count);
		kc_json_uint(j, "sum", h->sum);
		kc_json_uint_or_null(j, "avg", kc_hist_avg(h), h->count);
		for (unsigned int i = 0; i < KC_NR_PCTS; i++)
			kc_json_uint_or_null(j, kc_pct_name(i), kc_hist_pct(h, i),
					     h->count);
		kc_json_uint_or_null(j, "max", h->max, h->count);
		kc_json_uint(j, "nmissed", kc_snap_missed(s, m));
		kc_json_str(j, "state", kc_snap_state(s, m));
		kc_json_end(j);
	}
	kc_json_end(j);
}
