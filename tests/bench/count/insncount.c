// SPDX-License-Identifier: GPL-2.0
/*
 * insncount.c - make bench-count's QEMU TCG plugin: how many times the guest
 * executed each kernel instruction, exactly, between marks the guest sets.
 *
 * Every instruction at a kernel address (the top bit set, on x86_64 and
 * arm64) gets a counter, by address, when QEMU translates it between marks. A mark is an
 * instruction that does nothing, executed in user mode by `forkexit -m`
 * (x86_64: xchg %bx,%bx, Bochs' magic breakpoint; arm64: hint #0x2b, an
 * unallocated hint); at each, the plugin writes to the file out= names
 * "mark N" and then "ADDRESS COUNT" for each instruction executed since the
 * mark before, in hex and decimal. tests/bench/count/host.bash maps the addresses
 * to symbols and sums them.
 *
 * A counter is a plain increment in a callback: make bench-count runs QEMU
 * with -icount, so one thread runs every vCPU in turn, and each instruction
 * is counted where it executed, also when an exception leaves its block
 * early (a count by block would count the rest of the block too).
 *
 * Marks come in pairs: kernel code is counted from an odd mark to the even
 * one after it, and runs at TCG's own speed otherwise (the guest's work
 * between its runs, reading kallsyms, starting VMs). Each mark asks QEMU to
 * flush its translations and call back (qemu_plugin_reset()), which it does
 * when the marking block ends, before the next one starts: every kernel
 * instruction after an odd mark is translated counted, every one after an
 * even mark is not.
 *
 * The plugin API is declared here, the few calls of it that are used: their
 * signatures have not changed from QEMU 7.2 (bookworm's, for arm64 guests)
 * to 10.0 (trixie's, for x86_64 guests); the API version the plugin
 * declares is chosen when it is loaded, from the calls that QEMU has (a
 * QEMU only loads a plugin of a version it supports).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* QEMU's plugin API (include/qemu/qemu-plugin.h), as far as used */
typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_reset(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb);

__attribute__((visibility("default"))) int qemu_plugin_version;

/*
 * The API version: 4 where QEMU has qemu_plugin_read_memory_vaddr() (10.0;
 * it accepts 2 or 3 up to 4), 1 where it has not (7.2, which accepts 0 to
 * 1). Runs when QEMU opens the plugin, before it reads the version.
 */
__attribute__((constructor)) static void kc_version(void)
{
	qemu_plugin_version =
		dlsym(RTLD_DEFAULT, "qemu_plugin_read_memory_vaddr") ? 4 : 1;
}

/* counters by address: open addressing, a power of two, never more than 3/4 full */
#define KC_SLOTS_BITS	22
#define KC_SLOTS	(1UL << KC_SLOTS_BITS)

struct kc_slot {
	uint64_t vaddr;		/* 0: free (no instruction is at address 0) */
	uint64_t count;		/* executions so far */
	uint64_t dumped;	/* count at the last mark */
};

static struct kc_slot *kc_slots;
static size_t kc_used;
static FILE *kc_out;
static unsigned long kc_marks;
static bool kc_full;
static bool kc_counting;	/* kernel code translated now is counted */
static qemu_plugin_id_t kc_id;
static const uint8_t *kc_mark_insn;
static size_t kc_mark_len;

static const uint8_t kc_mark_x86[] = { 0x66, 0x87, 0xdb };	/* xchg %bx,%bx */
static const uint8_t kc_mark_arm64[] = { 0x7f, 0x25, 0x03, 0xd5 }; /* hint #0x2b */

static struct kc_slot *kc_slot_of(uint64_t vaddr)
{
	size_t i = (size_t)((vaddr * 0x9e3779b97f4a7c15ULL) >> (64 - KC_SLOTS_BITS));

	while (kc_slots[i].vaddr && kc_slots[i].vaddr != vaddr)
		i = (i + 1) & (KC_SLOTS - 1);
	if (!kc_slots[i].vaddr) {
		if (kc_used >= KC_SLOTS / 4 * 3)
			return NULL;
		kc_slots[i].vaddr = vaddr;
		kc_used++;
	}
	return &kc_slots[i];
}

static void kc_count(unsigned int vcpu, void *slot)
{
	(void)vcpu;
	((struct kc_slot *)slot)->count++;
}

static void kc_dump(const char *what)
{
	size_t i;

	fprintf(kc_out, "%s %lu\n", what, kc_marks);
	for (i = 0; i < KC_SLOTS; i++) {
		struct kc_slot *s = &kc_slots[i];

		if (s->count == s->dumped)
			continue;
		fprintf(kc_out, "%" PRIx64 " %" PRIu64 "\n", s->vaddr,
			s->count - s->dumped);
		s->dumped = s->count;
	}
	if (kc_full)
		fprintf(kc_out, "full\n");
	fflush(kc_out);
}

static void kc_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void kc_exit(qemu_plugin_id_t id, void *unused);

/* QEMU's translations are flushed: what it translates now is (not) counted */
static void kc_reset(qemu_plugin_id_t id)
{
	kc_counting = kc_marks % 2;
	qemu_plugin_register_vcpu_tb_trans_cb(id, kc_translate);
	qemu_plugin_register_atexit_cb(id, kc_exit, NULL);
}

static void kc_mark(unsigned int vcpu, void *unused)
{
	(void)vcpu;
	(void)unused;
	kc_marks++;
	kc_dump("mark");
	qemu_plugin_reset(kc_id, kc_reset);
}

static bool kc_is_mark(const struct qemu_plugin_insn *insn)
{
	const void *bytes;

	if (qemu_plugin_insn_size(insn) != kc_mark_len)
		return false;
	bytes = qemu_plugin_insn_haddr(insn);
	return bytes && !memcmp(bytes, kc_mark_insn, kc_mark_len);
}

static void kc_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
		struct kc_slot *s;

		if (!(vaddr >> 63)) {
			if (kc_is_mark(insn))
				qemu_plugin_register_vcpu_insn_exec_cb(insn, kc_mark,
								       QEMU_PLUGIN_CB_NO_REGS,
								       NULL);
			continue;
		}
		if (!kc_counting)
			continue;
		s = kc_slot_of(vaddr);
		if (!s) {
			kc_full = true;
			continue;
		}
		qemu_plugin_register_vcpu_insn_exec_cb(insn, kc_count,
						       QEMU_PLUGIN_CB_NO_REGS, s);
	}
}

static void kc_exit(qemu_plugin_id_t id, void *unused)
{
	(void)id;
	(void)unused;
	kc_dump("end");
	fclose(kc_out);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	const char *out = NULL, *arch = NULL;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
		else if (!strncmp(argv[i], "arch=", 5))
			arch = argv[i] + 5;
	}
	if (!out || !arch) {
		fprintf(stderr, "insncount: give out=FILE and arch=x86_64|arm64\n");
		return -1;
	}
	if (!strcmp(arch, "x86_64")) {
		kc_mark_insn = kc_mark_x86;
		kc_mark_len = sizeof(kc_mark_x86);
	} else if (!strcmp(arch, "arm64")) {
		kc_mark_insn = kc_mark_arm64;
		kc_mark_len = sizeof(kc_mark_arm64);
	} else {
		fprintf(stderr, "insncount: arch=%s: x86_64 or arm64\n", arch);
		return -1;
	}
	kc_slots = calloc(KC_SLOTS, sizeof(*kc_slots));
	kc_out = fopen(out, "w");
	if (!kc_slots || !kc_out) {
		fprintf(stderr, "insncount: %s: %s\n", kc_slots ? out : "counters",
			strerror(errno));
		return -1;
	}
	kc_id = id;
	kc_reset(id);
	return 0;
}
