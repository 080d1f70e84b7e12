/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kc_test.h - what one suite's file offers the others.
 */
#ifndef KC_TEST_H
#define KC_TEST_H

/* hist_test.c: kc_hist_init() with no reset baseline left from a test. */
int kc_test_hist_init(void);

#endif /* KC_TEST_H */
