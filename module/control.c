// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - the switches that probe context reads (enable, unit) and the
 * meaning of what is written to the control files. Kept apart from debugfs.c
 * so that the KUnit suites run the very code the files use.
 */
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "kvmchurn.h"

bool kc_enabled = true;
bool kc_unit_ns;

u64 kc_to_unit(u64 ns)
{
	return kc_unit_ns ? ns : div_u64(ns, NSEC_PER_USEC);
}

const char *kc_unit_name(void)
{
	return kc_unit_ns ? "ns" : "us";
}

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
