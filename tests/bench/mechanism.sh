# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by bench.sh (profile, count): the kernel's probe mechanism, as the names of its
# functions (an extended regex, as perf's --parent takes it): kprobes on ftrace (x86_64)
# and by break and single step (arm64: the exception vectors, the entry and return of a
# kernel-mode exception, and the debug exception's path to the kprobe handlers, which
# A's exits run too where the kernel takes another exception, and the difference
# leaves out), kretprobes' entry and their trampolines, with the rethook and the object
# pools that hold their instances (6.1 on), fprobe, ftrace's own entries, and the
# iterators and static-call trampolines of kvmchurn's tracepoints. A's share in it is
# the check that it names nothing an exit runs without probes.
# shellcheck disable=SC2034 # used by the scripts that source it
KC_BENCH_MECH='^(kprobe_|kprobes_|get_kprobe|pre_handler_kretprobe|kretprobe_|__kretprobe_|trampoline_handler|trampoline_probe_handler|arch_rethook_|rethook_|__rethook_|objpool_|freelist_|fprobe_|__fprobe_|ftrace_|arch_ftrace_|__ftrace_|brk_handler|call_break_hook|call_el1_break_hook|do_debug_exception|debug_exception_enter|debug_exception_exit|el1_dbg|arm64_enter_el1_dbg|arm64_exit_el1_dbg|cortex_a76_erratum_1463225_debug_handler|(vectors|el1h_64_sync|el1h_64_sync_handler|ret_to_kernel)$|reenter_kprobe|setup_singlestep|post_kprobe_handler|arch_uprobe_|(__traceiter_|__SCT__tp_func_)(sched_process_(exit|free)|signal_deliver|mm_vmscan_(direct|memcg)_reclaim_(begin|end))$)'
