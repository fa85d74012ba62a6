/*
 * A thread's user state for unwinding: its registers in DWARF order and a
 * copy of the top of its stack, as both drivers take them.
 */
#ifndef PROFIL_USTACK_H
#define PROFIL_USTACK_H

#include "clockdrv/event.h"

#include <stddef.h>
#include <sys/types.h>

/* The largest stack copy: --stack-size's limit. */
#define USTACK_MAX     65536u
#define USTACK_DEFAULT 8192u

/* The registers of stopped thread TID into ST (all of them); false if
 * ptrace cannot read them.  *SYSNO is the system call it stopped on the way
 * back from (x86-64's orig_rax), or -1: an interrupt, a fault, or an
 * architecture that does not say. */
bool ustack_regs_ptrace(pid_t tid, struct event_stack *st, long *sysno);

/* The stack pointer and PC of a thread blocked in a system call, from its
 * /proc/PID/task/TID/syscall line ("nr args... sp pc"); false when the line
 * has none ("running", or a thread in no system call). */
bool ustack_regs_syscall(const char *line, struct event_stack *st);

/* perf's PERF_SAMPLE_REGS_USER values for the mask ustack_perf_mask gives. */
uint64_t ustack_perf_mask(void);
void ustack_regs_perf(const uint64_t *regs, size_t n, struct event_stack *st);

/* Copy up to SIZE bytes of PID's stack from st->regs[sp] into BUF, and
 * point st->data at it (size: what could be read, page by page). */
void ustack_copy(pid_t pid, struct event_stack *st, uint8_t *buf, uint32_t size);

#endif
