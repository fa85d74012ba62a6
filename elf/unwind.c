#include "config.h"

#include "elf/unwind.h"
#include "util/xmalloc.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

/* The frame pointer's DWARF number, part of a frame's identity below. */
#if defined(__x86_64__)
#define UNWIND_REG_FP 6
#elif defined(__aarch64__)
#define UNWIND_REG_FP 29
#endif

/* One word of the stack a walk read: where, what, and how many frames the
 * walk had found when it read it (so it served to find the next one). */
struct unwind_read {
    uint64_t addr;
    uint64_t value;
    size_t at;
};

/* A thread's last walk, kept so that the next can stop where the two
 * stacks meet: a frame at the same PC, stack pointer and frame pointer,
 * where every word of the stack the last walk read to go on from there
 * holds the same value, has the same callers (samply's framehop caches
 * rules; this caches whole outer stacks, which a deep recursion or a long
 * call chain repeats sample after sample, while the callers' own locals,
 * a loop counter in main, may change). */
struct unwind_last {
    uint32_t tid;
    uint64_t used;             /* when last used (the unwinder's walk count), 0: free */
    uint64_t *pcs, *sps, *fps; /* owned: its frames, innermost first */
    size_t n, alloc;
    struct unwind_read *reads; /* owned: what it read, in order */
    size_t nreads, reads_alloc;
    enum unwind_end how;
    uint64_t copy_end; /* where its stack copy ended: a cut walk was cut there */
};

#define UNWIND_LAST_THREADS 16

struct unwinder {
    unsigned refs; /* address spaces sharing it: a forked child, until it maps anew */
    uint64_t sig;  /* the mappings last reported, hashed; 0 before the first report */
    Dwfl *dwfl;
    bool attached; /* dwfl_attach_state has run: it runs once, after the first module */
    bool stale;    /* a mapping could not be reported: start again from nothing */
    /* The unwinding in progress. */
    uint32_t tid;
    const struct event_stack *st;
    uint64_t *pcs;
    size_t n, max;
    bool past_copy;      /* a read fell beyond the stack copy: the copy was too short */
    uint64_t *sps, *fps; /* the frames' stack and frame pointers, beside pcs */
    size_t regs_alloc;
    struct unwind_last *last;  /* this thread's last walk, or NULL */
    struct unwind_read *reads; /* what this walk read */
    size_t nreads, reads_alloc;
    bool joined; /* the walk ended on the last one's frames */
    uint64_t walks;
    struct unwind_last lasts[UNWIND_LAST_THREADS];
};

/* Separate debug files are not looked for: .eh_frame, which every x86-64
 * and AArch64 object carries, is what unwinding needs, and a lookup may ask
 * a debuginfod server while the program runs. */
static int unwind_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                               Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                               GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    return -1;
}

static const Dwfl_Callbacks unwind_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = unwind_no_debuginfo,
};

struct unwinder *unwind_new(void)
{
    struct unwinder *u = xcalloc(1, sizeof *u);
    u->refs = 1;
    u->dwfl = dwfl_begin(&unwind_callbacks);
    return u;
}

struct unwinder *unwind_ref(struct unwinder *u)
{
    if (u != NULL)
        u->refs++;
    return u;
}

bool unwind_shared(const struct unwinder *u)
{
    return u != NULL && u->refs > 1;
}

uint64_t unwind_signature(const struct unwinder *u)
{
    return u->sig;
}

void unwind_sign(struct unwinder *u, uint64_t sig)
{
    u->sig = sig;
}

void unwind_free(struct unwinder *u)
{
    if (u == NULL || --u->refs > 0)
        return;
    for (int i = 0; i < UNWIND_LAST_THREADS; i++) {
        free(u->lasts[i].reads);
        free(u->lasts[i].pcs);
        free(u->lasts[i].sps);
        free(u->lasts[i].fps);
    }
    free(u->sps);
    free(u->fps);
    free(u->reads);
    if (u->dwfl != NULL)
        dwfl_end(u->dwfl);
    free(u);
}

void unwind_report_begin(struct unwinder *u)
{
    if (u->dwfl != NULL)
        dwfl_report_begin_add(u->dwfl); /* the modules reported before stay */
}

/* The vDSO as a file libdwfl can open: the program's is the one mapped in
 * profil (the same kernel), copied once into a memfd.  NULL when there is
 * none. */
static const char *unwind_vdso_path(void)
{
    static char path[64];
    static bool tried;
    if (tried)
        return path[0] ? path : NULL;
    tried = true;
    const unsigned char *image = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    if (image == NULL || memcmp(image, ELFMAG, SELFMAG) != 0)
        return NULL;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)image;
    size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    int fd = memfd_create("profil-vdso", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (write(fd, image, size) != (ssize_t)size) {
        close(fd);
        return NULL;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd); /* kept open for the run */
    return path;
}

void unwind_report(struct unwinder *u, uint64_t start, uint64_t end, uint64_t pgoff,
                   const char *path)
{
    if (u->dwfl == NULL || path == NULL)
        return;
    if (strcmp(path, "[vdso]") == 0)
        path = unwind_vdso_path();
    if (path == NULL || path[0] != '/')
        return;
    /* Already there from an earlier report: its CFI stays read. */
    Dwfl_Module *have = dwfl_addrmodule(u->dwfl, start);
    const char *name = NULL;
    if (have != NULL)
        dwfl_module_info(have, NULL, NULL, NULL, NULL, NULL, &name, NULL);
    if (name != NULL && strcmp(name, path) == 0)
        return;
    /* The load bias as perf computes it: where offset 0 of the file would be. */
    if (dwfl_report_elf(u->dwfl, path, path, -1, start - pgoff, false) == NULL && have != NULL)
        u->stale = true; /* another file where one was: only a new start can tell */
}

static pid_t unwind_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
    return 0; /* threads are named, never listed */
}

static bool unwind_get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
    *thread_argp = dwfl_arg;
    return true;
}

/* Keep the read of ADDR, VALUE while AT frames were found. */
static void unwind_note_read(struct unwinder *u, uint64_t addr, uint64_t value, size_t at)
{
    if (u->nreads == u->reads_alloc) {
        u->reads_alloc = u->reads_alloc ? 2 * u->reads_alloc : 256;
        u->reads = xreallocarray(u->reads, u->reads_alloc, sizeof *u->reads);
    }
    u->reads[u->nreads++] = (struct unwind_read){addr, value, at};
}

/* A word of the stack: from the copy the sample brought, nothing else. */
static bool unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
    struct unwinder *u = dwfl_arg;
    const struct event_stack *st = u->st;
    uint64_t sp = st->regs[EVENT_REG_SP];
    if (addr < sp)
        return false;
    if (addr - sp > st->size || st->size - (addr - sp) < sizeof *result) {
        u->past_copy = true;
        return false;
    }
    memcpy(result, st->data + (addr - sp), sizeof *result);
    unwind_note_read(u, addr, *result, u->n);
    return true;
}

static bool unwind_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    struct unwinder *u = thread_arg;
    const struct event_stack *st = u->st;
    if (st->regs_mask + 1 == (uint64_t)1 << EVENT_REG_COUNT)
        return dwfl_thread_state_registers(thread, 0, EVENT_REG_COUNT, st->regs);
    for (int i = 0; i < EVENT_REG_COUNT; i++) {
        if ((st->regs_mask >> i & 1) && !dwfl_thread_state_registers(thread, i, 1, &st->regs[i]))
            return false;
    }
    return true;
}

static const Dwfl_Thread_Callbacks unwind_thread_callbacks = {
    .next_thread = unwind_next_thread,
    .get_thread = unwind_get_thread,
    .memory_read = unwind_memory_read,
    .set_initial_registers = unwind_initial_registers,
};

bool unwind_report_end(struct unwinder *u)
{
    if (u->dwfl == NULL)
        return true;
    dwfl_report_end(u->dwfl, NULL, NULL);
    if (u->stale)
        return false;
    /* The architecture comes from a module, so attach once there is one. */
    if (!u->attached && dwfl_attach_state(u->dwfl, NULL, 1, &unwind_thread_callbacks, u))
        u->attached = true;
    return true;
}

/* Whether the frame at (PC, SP, FP) is one of the thread's last walk
 * whose reads beyond it all find the same words in this copy: then take
 * that walk's frames from there (and its reads, for the next join). */
static bool unwind_join(struct unwinder *u, uint64_t pc, uint64_t sp, uint64_t fp)
{
    const struct unwind_last *l = u->last;
    const struct event_stack *st = u->st;
    uint64_t sp0 = st->regs[EVENT_REG_SP];
    if (l == NULL || l->n < 2)
        return false;
    /* Its frames' stack pointers ascend: look SP up. */
    size_t lo = 1, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->sps[mid] < sp)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= l->n || l->sps[lo] != sp || l->pcs[lo] != pc)
        return false;
    /* A walk cut short ends this one the same way only if this one would
     * be cut there too: at the frame limit, or at a copy that ends no
     * further up the stack.  Else a longer copy, or a shallower sample,
     * would inherit a cut its own stack does not have, and every later
     * walk that joins it too (a Python thread cut at Py_BytesMain for the
     * rest of its run, issue 26). */
    if (l->how == UNWIND_TRUNCATED &&
        (l->n == u->max ? u->n + (l->n - lo) < u->max : sp0 + st->size > l->copy_end))
        return false;
    /* A frame pointer (one that points into the stack) must match too: a
     * caller's CFA may be counted from it.  Anything else in that register,
     * a loop counter the callee never saved, says nothing of the callers. */
    bool stack_fp = fp >= sp0 && fp - sp0 < st->size;
    bool last_fp = l->fps[lo] >= l->sps[0] && l->fps[lo] - l->sps[0] < UINT32_MAX;
    if ((stack_fp || last_fp) && l->fps[lo] != fp)
        return false;
    /* The reads that found its callers came once lo + 1 frames were found. */
    size_t first = l->nreads;
    while (first > 0 && l->reads[first - 1].at > lo)
        first--;
    for (size_t k = first; k < l->nreads; k++) {
        const struct unwind_read *r = &l->reads[k];
        uint64_t v;
        if (r->addr < sp0 || r->addr - sp0 > st->size || st->size - (r->addr - sp0) < sizeof v)
            return false;
        memcpy(&v, st->data + (r->addr - sp0), sizeof v);
        if (v != r->value)
            return false;
    }
    size_t base = u->n;
    for (size_t k = lo; k < l->n && u->n < u->max; k++) { /* this frame, then its callers */
        u->sps[u->n] = l->sps[k];
        u->fps[u->n] = l->fps[k];
        u->pcs[u->n++] = l->pcs[k];
    }
    for (size_t k = first; k < l->nreads; k++)
        unwind_note_read(u, l->reads[k].addr, l->reads[k].value, l->reads[k].at - lo + base);
    u->joined = true;
    return true;
}

static int unwind_frame(Dwfl_Frame *frame, void *arg)
{
    struct unwinder *u = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(frame, &pc, &activation))
        return DWARF_CB_ABORT;
    if (u->n == u->max)
        return DWARF_CB_ABORT;
    pc = activation || pc == 0 ? pc : pc - 1;
    Dwarf_Word sp = 0, fp = 0;
#ifdef UNWIND_REG_FP
    if (dwfl_frame_reg(frame, EVENT_REG_SP, &sp) != 0)
        sp = 0;
    if (dwfl_frame_reg(frame, UNWIND_REG_FP, &fp) != 0)
        fp = 0;
    if (u->n > 0 && sp != 0 && unwind_join(u, pc, sp, fp))
        return DWARF_CB_ABORT;
#endif
    u->sps[u->n] = sp;
    u->fps[u->n] = fp;
    u->pcs[u->n++] = pc;
    return DWARF_CB_OK;
}

/* The slot of TID's last walk: its own, else the one unused longest. */
static struct unwind_last *unwind_last_of(struct unwinder *u, uint32_t tid)
{
    struct unwind_last *old = &u->lasts[0];
    for (int i = 0; i < UNWIND_LAST_THREADS; i++) {
        struct unwind_last *l = &u->lasts[i];
        if (l->used != 0 && l->tid == tid)
            return l;
        if (l->used < old->used)
            old = l;
    }
    old->tid = tid;
    old->n = 0;
    return old;
}

/* Keep this walk as TID's last. */
static void unwind_keep(struct unwinder *u, struct unwind_last *l, enum unwind_end how)
{
    if (u->n > l->alloc) {
        l->alloc = u->max;
        l->pcs = xreallocarray(l->pcs, l->alloc, sizeof *l->pcs);
        l->sps = xreallocarray(l->sps, l->alloc, sizeof *l->sps);
        l->fps = xreallocarray(l->fps, l->alloc, sizeof *l->fps);
    }
    memcpy(l->pcs, u->pcs, u->n * sizeof *l->pcs);
    memcpy(l->sps, u->sps, u->n * sizeof *l->sps);
    memcpy(l->fps, u->fps, u->n * sizeof *l->fps);
    l->n = u->n;
    /* Swap the reads: the walk's become the last's, the last's buffer the
     * next walk's. */
    struct unwind_read *r = l->reads;
    size_t ralloc = l->reads_alloc;
    l->reads = u->reads;
    l->nreads = u->nreads;
    l->reads_alloc = u->reads_alloc;
    u->reads = r;
    u->reads_alloc = ralloc;
    u->nreads = 0;
    l->how = how;
    l->copy_end = u->st->regs[EVENT_REG_SP] + u->st->size;
    l->used = u->walks;
}

size_t unwind_user(struct unwinder *u, uint32_t tid, const struct event_stack *st, uint64_t *pcs,
                   size_t max, enum unwind_end *end)
{
    *end = UNWIND_FAILED;
    if (max == 0)
        return 0;
    if (EVENT_REG_COUNT == 0 || !st->user || !(st->regs_mask >> EVENT_REG_PC & 1)) {
        return 0;
    }
    pcs[0] = st->regs[EVENT_REG_PC];
    if (!u->attached || !(st->regs_mask >> EVENT_REG_SP & 1))
        return 1;
    if (max > u->regs_alloc) {
        u->regs_alloc = max;
        u->sps = xreallocarray(u->sps, max, sizeof *u->sps);
        u->fps = xreallocarray(u->fps, max, sizeof *u->fps);
    }
    u->tid = tid;
    u->st = st;
    u->pcs = pcs;
    u->n = 0;
    u->max = max;
    u->past_copy = false;
    u->joined = false;
    u->nreads = 0;
    u->walks++;
    u->last = unwind_last_of(u, tid);
    int r = dwfl_getthread_frames(u->dwfl, tid ? (pid_t)tid : 1, unwind_frame, u);
    size_t n = u->n;
    if (n == 0) {
        u->st = NULL;
        u->pcs = NULL;
        pcs[0] = st->regs[EVENT_REG_PC];
        return 1;
    }
    if (u->joined) /* the callers' walk ended as the last one did */
        *end = n == max && u->last->how == UNWIND_COMPLETE ? UNWIND_TRUNCATED : u->last->how;
    /* libdwfl ends a walk whose next read fell past the copy as if it had
     * reached the outermost frame: that is a stack cut short, unless the
     * copy held the stack to its top (a thread sampled as it starts: the
     * read was past the stack itself, and the walk had reached its end). */
    else if (n == max || (u->past_copy && !st->to_top))
        *end = UNWIND_TRUNCATED;
    else if (r == 0)
        *end = UNWIND_COMPLETE;
    unwind_keep(u, u->last, *end);
    u->st = NULL;
    u->pcs = NULL;
    return n;
}
