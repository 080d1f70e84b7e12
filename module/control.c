// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - the meaning of what is written to the controls, filter, enable
 * and reset: the debugfs files (debugfs.c) and the module parameters of the
 * same names (main.c) both come here, so that the two take the same text,
 * refuse the same text and do the same thing under the same lock. Kept
 * apart from debugfs.c so that the KUnit suites run the very code the files
 * use. The switches it sets are record.c's, which the probes read.
 */
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "kvmchurn.h"

static DEFINE_MUTEX(kc_control_lock);	/* serializes enable and reset */

int kc_parse_unit(const char *s, bool *ns)
{
	if (!strcmp(s, "ns"))
		*ns = true;
	else if (!strcmp(s, "us"))
		*ns = false;
	else
		return -EINVAL;
	return 0;
}

/*
 * A write of @count bytes, copied into @buf of @size bytes (at most @size of
 * them): made a string without its one trailing newline. Empty writes and
 * writes that do not fit are refused.
 */
int kc_parse_text(char *buf, size_t count, size_t size)
{
	/* a NUL inside would cut the text short: "1\0x" is not "1" */
	if (!count || count >= size || memchr(buf, '\0', count))
		return -EINVAL;
	buf[count] = '\0';
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	return 0;
}

/*
 * "0" or "1", nothing else: kstrtobool would take "yes" and "on", kstrtouint
 * "+1", "01" and a second newline.
 */
int kc_parse_bit(const char *s, bool *bit)
{
	if (strcmp(s, "0") && strcmp(s, "1"))
		return -EINVAL;
	*bit = s[0] == '1';
	return 0;
}

/* "1", nothing else: what reset takes. */
int kc_parse_reset(const char *s)
{
	return strcmp(s, "1") ? -EINVAL : 0;
}

/*
 * The controls. @text is a write as kc_parse_text() left it; a refused one
 * returns -EINVAL (or -ENOMEM for a filter) and changes nothing.
 */
int kc_control_filter(const char *text)
{
	/* the filter is replaced as a whole, under filter.c's own lock */
	return kc_filter_set(text);
}

int kc_control_enable(const char *text)
{
	bool on;
	int err;

	err = kc_parse_bit(text, &on);
	if (err)
		return err;
	mutex_lock(&kc_control_lock);
	WRITE_ONCE(kc_enabled, on);
	mutex_unlock(&kc_control_lock);
	return 0;
}

/* From now on, every count starts from zero. */
int kc_control_reset(const char *text)
{
	int err;

	err = kc_parse_reset(text);
	if (err)
		return err;
	mutex_lock(&kc_control_lock);
	kc_hist_reset();
	kc_kretprobes_reset();
	kc_tracepoints_reset();
	kc_vms_reset();
	mutex_unlock(&kc_control_lock);
	return 0;
}
