/*
 * The user part of a call stack, unwound from a sample's registers and its
 * copy of the top of the stack with the call-frame information (.eh_frame,
 * .debug_frame) of the modules mapped in the process: elfutils' libdwfl, as
 * perf's unwind-libdw does it, but with one Dwfl kept per address space so
 * that each module's CFI is read once, not once per sample, and each
 * thread's last walk kept so that the next stops where the two stacks meet.
 */
#ifndef PROFIL_UNWIND_H
#define PROFIL_UNWIND_H

#include "clockdrv/event.h"

#include <stddef.h>
#include <stdint.h>

/* How deep a stack may be: the user part.  perf's default is 127. */
#define UNWIND_MAX_FRAMES 1024

/* How an unwinding ended. */
enum unwind_end {
    UNWIND_COMPLETE,  /* at the outermost frame (_start, a thread's start) */
    UNWIND_TRUNCATED, /* cut at UNWIND_MAX_FRAMES or at the end of the stack copy */
    UNWIND_FAILED,    /* the call-frame information gave out: the rest is unknown */
};

struct unwinder;

struct unwinder *unwind_new(void);
/* Drop one reference; the last frees it. */
void unwind_free(struct unwinder *u);

/* Share U with a forked child, whose mappings are its parent's: one read of
 * each module's CFI for a program that forks two hundred times. */
struct unwinder *unwind_ref(struct unwinder *u);
bool unwind_shared(const struct unwinder *u);

/* Which mappings it was last given (the caller's hash of them), 0 before
 * any: a shared unwinder serves every space whose mappings hash alike. */
uint64_t unwind_signature(const struct unwinder *u);
void unwind_sign(struct unwinder *u, uint64_t sig);

/* The executable file mappings changed: report them again, one call per
 * mapping between begin and end.  PATH is borrowed for the call; "[vdso]"
 * stands for the kernel's vDSO.  A module
 * reported before is kept; false from end when a mapping took the place of
 * another: the unwinder must then be made anew. */
void unwind_report_begin(struct unwinder *u);
void unwind_report(struct unwinder *u, uint64_t start, uint64_t end, uint64_t pgoff,
                   const char *path);
bool unwind_report_end(struct unwinder *u);

/* Unwind ST for thread TID: up to MAX PCs into PCS, innermost first, the
 * first the sample's own PC and each later one a return address less one (an
 * address inside the call).  Returns how many, and in *END why it stopped. */
size_t unwind_user(struct unwinder *u, uint32_t tid, const struct event_stack *st, uint64_t *pcs,
                   size_t max, enum unwind_end *end);

#endif
