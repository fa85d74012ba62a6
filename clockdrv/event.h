/*
 * What a clock driver hands over: one event at a time, in time order.  The
 * drivers produce events and the session consumes them; this header is all
 * the two share, so that data flows one way (clockdrv/ includes nothing of
 * session/).  A replay produces the same events from a file.
 */
#ifndef PROFIL_EVENT_H
#define PROFIL_EVENT_H

#include <stdbool.h>
#include <stdint.h>

enum clock_kind { CLOCK_KIND_WALL = 0, CLOCK_KIND_CPU = 1 };

enum sample_mode {
    SAMPLE_USER = 0,    /* on a CPU, in user mode: pc is a user address */
    SAMPLE_KERNEL = 1,  /* on a CPU, in the kernel */
    SAMPLE_BLOCKED = 2, /* off CPU, blocked in a system call (wall clock) */
};

enum event_type {
    EVENT_SAMPLE,
    EVENT_MMAP,        /* an executable mapping appeared in process pid */
    EVENT_FORK,        /* process pid was created by ppid and shares its mappings */
    EVENT_EXEC,        /* process pid replaced its image: its mappings are gone */
    EVENT_EXIT,        /* process pid ended (exit.known: with exit.wstatus) */
    EVENT_LOST,        /* the kernel or the driver dropped count samples */
    EVENT_PREEMPTED,   /* count ticks found a thread runnable but off every CPU:
                        * not a sample and not lost (lost.count carries it) */
    EVENT_HIT,         /* a replayed, already attributed sample: (module, offset) */
    EVENT_STACK,       /* a replayed stack: count samples had stack id `stack` */
    EVENT_THREAD,      /* thread tid started in process pid (not its first thread) */
    EVENT_THREAD_EXIT, /* thread tid of process pid ended (not its first thread) */
    EVENT_COMM,        /* thread tid is now named comm.name (an exec, or a rename) */
};

/* The user registers a stack is unwound from, in DWARF numbering: on x86-64
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip (0..16); on AArch64 x0..x30,
 * sp, pc (0..32). */
#define EVENT_NREGS 33
#if defined(__x86_64__)
#define EVENT_REG_SP    7
#define EVENT_REG_PC    16
#define EVENT_REG_COUNT 17
#elif defined(__aarch64__)
#define EVENT_REG_SP    31
#define EVENT_REG_PC    32
#define EVENT_REG_COUNT 33
#else
#define EVENT_REG_COUNT 0 /* no user stacks on this architecture */
#endif

/* Where a sample's call stack comes from: the kernel's part as a list of
 * PCs, the user's part as registers and a copy of the top of the stack,
 * which the session unwinds with the call-frame information of the
 * process's modules.  Everything is borrowed for the call. */
struct event_stack {
    const uint64_t *kernel; /* kernel PCs, innermost first (the sample's own first) */
    uint32_t nkernel;
    bool user; /* regs and data hold the user state */
    uint64_t regs[EVENT_NREGS];
    uint64_t regs_mask;  /* bit i: regs[i] is known */
    const uint8_t *data; /* the stack from regs[sp] up */
    uint32_t size;
    bool to_top; /* the copy ended short of the size asked, at the stack's top:
                    a read past it is past the stack, not a copy cut short */
};

struct event {
    enum event_type type;
    uint32_t pid;
    uint32_t tid;
    uint64_t time_ns; /* CLOCK_MONOTONIC */
    union {
        struct {
            uint64_t pc;
            enum sample_mode mode;
            uint32_t count;                  /* ticks this event stands for (blocked time) */
            const struct event_stack *stack; /* or NULL: no stack was taken */
        } sample;
        struct {
            uint64_t start;
            uint64_t len;
            uint64_t pgoff;
            const char *path; /* borrowed for the call */
        } mmap;
        struct {
            uint32_t ppid;
        } fork;
        struct {
            const char *path;    /* the new executable as the driver saw it, or NULL */
            const char *cmdline; /* its arguments, NUL-separated, or NULL */
            uint32_t cmdline_len;
        } exec;
        struct {
            bool known; /* the driver saw the wait status */
            int wstatus;
        } exit;
        struct {
            const char *name; /* borrowed for the call */
        } comm;
        struct {
            uint64_t count;
        } lost;
        struct {
            uint32_t module;
            uint64_t offset;
            uint64_t count;
        } hit;
        struct {
            uint32_t id;
            uint64_t count;
        } stack;
    };
};

#endif
