#include "config.h"

#include "clockdrv/ustack.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif

bool ustack_regs_ptrace(pid_t tid, struct event_stack *st, long *sysno)
{
    *sysno = -1;
    memset(st->regs, 0, sizeof st->regs);
    st->regs_mask = 0;
    st->user = false;
#if defined(__x86_64__)
    struct user_regs_struct r;
    if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
        return false;
    const uint64_t dwarf[17] = {r.rax, r.rdx, r.rcx, r.rbx, r.rsi, r.rdi, r.rbp, r.rsp, r.r8,
                                r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15, r.rip};
    memcpy(st->regs, dwarf, sizeof dwarf);
    st->regs_mask = (1ull << 17) - 1;
    *sysno = (long)r.orig_rax;
#elif defined(__aarch64__)
    struct user_regs_struct r;
    struct iovec iov = {&r, sizeof r};
    if (ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov) < 0)
        return false;
    for (int i = 0; i < 31; i++)
        st->regs[i] = r.regs[i];
    st->regs[31] = r.sp;
    st->regs[32] = r.pc;
    st->regs_mask = (1ull << 33) - 1;
#else
    (void)tid;
    return false;
#endif
    st->user = true;
    return true;
}

bool ustack_regs_syscall(const char *line, struct event_stack *st)
{
    memset(st->regs, 0, sizeof st->regs);
    st->regs_mask = 0;
    st->user = false;
#if EVENT_REG_COUNT > 0
    long nr;
    unsigned long long a[6], sp, pc;
    if (sscanf(line, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &nr, &a[0], &a[1], &a[2], &a[3],
               &a[4], &a[5], &sp, &pc) != 9 ||
        nr < 0)
        return false;
    st->regs[EVENT_REG_SP] = sp;
    st->regs[EVENT_REG_PC] = pc;
    st->regs_mask = 1ull << EVENT_REG_SP | 1ull << EVENT_REG_PC;
    st->user = true;
    return true;
#else
    (void)line;
    return false;
#endif
}

uint64_t ustack_perf_mask(void)
{
#if defined(__x86_64__)
    /* ax bx cx dx si di bp sp ip, r8..r15 */
    return ((1ull << (PERF_REG_X86_IP + 1)) - 1) | (((1ull << 8) - 1) << PERF_REG_X86_R8);
#else
    return 0;
#endif
}

void ustack_regs_perf(const uint64_t *regs, size_t n, struct event_stack *st)
{
    memset(st->regs, 0, sizeof st->regs);
    st->regs_mask = 0;
    st->user = false;
#if defined(__x86_64__)
    if (n < 17)
        return;
    /* The values come in mask bit order: ax bx cx dx si di bp sp ip r8..r15. */
    static const int dwarf_of[17] = {0, 3, 2, 1, 4, 5, 6, 7, 16, 8, 9, 10, 11, 12, 13, 14, 15};
    for (int i = 0; i < 17; i++)
        st->regs[dwarf_of[i]] = regs[i];
    st->regs_mask = (1ull << 17) - 1;
    st->user = true;
#else
    (void)regs;
    (void)n;
#endif
}

void ustack_copy(pid_t pid, struct event_stack *st, uint8_t *buf, uint32_t size)
{
    st->data = buf;
    st->size = 0;
    st->to_top = false;
#if EVENT_REG_COUNT > 0
    uint64_t sp = st->regs[EVENT_REG_SP];
    if (!st->user || size == 0)
        return;
    /* Page by page, so that a stack ending inside the copy still gives what
     * lies before its end. */
    struct iovec local = {buf, size};
    struct iovec remote[USTACK_MAX / 4096 + 1];
    int n = 0;
    for (uint64_t at = sp, left = size; left > 0 && n < (int)(sizeof remote / sizeof *remote);) {
        uint64_t page_end = (at | 4095) + 1;
        uint64_t len = page_end - at < left ? page_end - at : left;
        remote[n++] = (struct iovec){(void *)(uintptr_t)at, len};
        at += len;
        left -= len;
    }
    ssize_t r = process_vm_readv(pid, &local, 1, remote, (unsigned long)n, 0);
    if (r > 0) {
        st->size = (uint32_t)r;
        st->to_top = (uint64_t)r < size; /* the next page is not the stack's */
    }
#else
    (void)pid;
    (void)buf;
    (void)size;
#endif
}
