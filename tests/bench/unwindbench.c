/* unwindbench - elfutils' libdwfl against libunwind on the same captured
 * stacks (docs/performance.md, "Unwinding: libdwfl against libunwind").
 *
 * Usage: unwindbench [-H] [-n SAMPLES] [-s STACK_KIB] [-i GAP_US] [-r RUNS]
 *                    -- PROGRAM [ARGS...]
 * Starts PROGRAM (tests/bench/deep), waits for its first line on stdout (it
 * is then at steady state), seizes it with ptrace and SAMPLES times stops
 * it, copies its registers and the top STACK_KIB of its stack, and lets it
 * run GAP_US.  Then, with the program killed, it unwinds every capture with
 * each library, RUNS times over fresh unwinders (alternating which goes
 * first), and prints one markdown row per library (-H: the header first):
 *     depth | stack | library | frames/sample | reach main / _start |
 *     differ | median us | p99 us | us/frame | first pass us | setup ms |
 *     allocations/sample
 * Times per sample are of the second pass of each run (caches warm), pooled
 * over the runs; "first pass" is the mean of the first (caches cold).  Why
 * samples differ, and where unwinding stopped, goes to stderr.
 *
 * Only this bench links libunwind; profil does not.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libunwind.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* libunwind's binary search of an .eh_frame_hdr table, exported but not in
 * its headers (the remote unwinders of perf and others declare it too). */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t, unw_word_t, unw_dyn_info_t *,
                                              unw_proc_info_t *, int, void *);

#define MAXFR 2048

/* One stop of the program: its registers and the top of its stack. */
struct capture {
    struct user_regs_struct regs;
    size_t len;
    unsigned char *stack;
};

/* A file mapped in the program, mapped again here to read its bytes. */
struct image {
    char *path;
    const unsigned char *map;
    size_t size;
    bool exec;
    /* Its .eh_frame_hdr search table in the program, for libunwind. */
    uint64_t hdr_addr, table_addr, fde_count;
};

struct mapping {
    uint64_t start, end, pgoff;
    bool exec;
    size_t img; /* in images, which moves while it grows */
};

/* One library's unwind of every capture: frame addresses (return addresses
 * minus one past the first frame), and how each walk ended. */
struct walks {
    uint64_t *pcs; /* MAXFR per capture */
    int *n;
    char **why;
};

static struct image *images;
static size_t nimages;
static struct mapping *maps;
static size_t nmaps;
static pid_t child = -1;
static unsigned long long allocs;

/* The allocator, counted: how often each library allocates per sample. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n)
{
    allocs++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
    allocs++;
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
    allocs++;
    return __libc_realloc(p, n);
}

static void die(const char *what)
{
    fprintf(stderr, "unwindbench: %s: %s\n", what, strerror(errno));
    if (child > 0)
        kill(child, SIGKILL);
    exit(1);
}

static void *xcalloc(size_t n, size_t m)
{
    void *p = calloc(n, m);
    if (p == NULL)
        die("calloc");
    return p;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* --- the program's address space, from /proc/PID/maps ------------------- */

/* Where the table of libunwind's fast path is: .eh_frame_hdr as the linker
 * writes it (pc-relative pointer, 4-byte count, datarel sdata4 pairs). */
static void image_find_table(struct image *img)
{
    Elf *elf = elf_memory((char *)img->map, img->size);
    GElf_Phdr ph;
    size_t n;

    if (elf == NULL || elf_getphdrnum(elf, &n) != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_GNU_EH_FRAME)
            continue;
        const unsigned char *h = img->map + ph.p_offset;
        if (ph.p_offset + 12 > img->size || h[0] != 1 || h[1] != 0x1b || h[2] != 0x03 ||
            h[3] != 0x3b)
            break;
        for (size_t k = 0; k < nmaps; k++) {
            struct mapping *m = &maps[k];
            if (&images[m->img] == img && ph.p_offset >= m->pgoff &&
                ph.p_offset < m->pgoff + (m->end - m->start)) {
                uint32_t count;
                memcpy(&count, h + 8, 4);
                img->hdr_addr = m->start + ph.p_offset - m->pgoff;
                img->table_addr = img->hdr_addr + 12;
                img->fde_count = count;
                break;
            }
        }
        break;
    }
out:
    if (elf != NULL)
        elf_end(elf);
}

static struct image *image_get(const char *path)
{
    for (size_t i = 0; i < nimages; i++)
        if (strcmp(images[i].path, path) == 0)
            return &images[i];
    images = realloc(images, (nimages + 1) * sizeof *images);
    if (images == NULL)
        die("realloc");
    struct image *img = &images[nimages];
    memset(img, 0, sizeof *img);
    img->path = strdup(path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            img->map = p;
            img->size = (size_t)st.st_size;
        }
    }
    if (fd >= 0)
        close(fd);
    nimages++;
    return img;
}

/* The file mappings of PID, and each file once. */
static void maps_read(pid_t pid)
{
    char name[64], line[4096], path[4096];
    snprintf(name, sizeof name, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(name, "r");
    if (f == NULL)
        die(name);
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long start, end, pgoff;
        char perms[8];
        path[0] = '\0';
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &pgoff,
                   path) < 4 ||
            path[0] != '/')
            continue;
        maps = realloc(maps, (nmaps + 1) * sizeof *maps);
        if (maps == NULL)
            die("realloc");
        struct mapping *m = &maps[nmaps++];
        m->start = start;
        m->end = end;
        m->pgoff = pgoff;
        m->exec = perms[2] == 'x';
        struct image *img = image_get(path);
        m->img = (size_t)(img - images);
        if (m->exec)
            img->exec = true;
    }
    fclose(f);
    for (size_t i = 0; i < nimages; i++)
        if (images[i].map != NULL)
            image_find_table(&images[i]);
}

static const struct mapping *maps_find(uint64_t addr)
{
    static const struct mapping *last;
    if (last != NULL && addr >= last->start && addr < last->end)
        return last;
    for (size_t i = 0; i < nmaps; i++)
        if (addr >= maps[i].start && addr < maps[i].end)
            return last = &maps[i];
    return NULL;
}

/* Eight bytes of the program at ADDR: from the captured stack when there,
 * else from the file mapped there (code and unwind tables do not change). */
static bool mem_read(const struct capture *c, uint64_t addr, uint64_t *out)
{
    uint64_t sp = c->regs.rsp;
    if (addr >= sp && addr - sp + 8 <= c->len) {
        memcpy(out, c->stack + (addr - sp), 8);
        return true;
    }
    const struct mapping *m = maps_find(addr);
    if (m == NULL)
        return false;
    const struct image *img = &images[m->img];
    uint64_t off = addr - m->start + m->pgoff;
    if (img->map == NULL || off + 8 > img->size)
        return false;
    memcpy(out, img->map + off, 8);
    return true;
}

/* --- capturing ------------------------------------------------------------ */

static void wait_stop(void)
{
    int st;
    for (;;) {
        if (waitpid(child, &st, __WALL) < 0)
            die("waitpid");
        if (!WIFSTOPPED(st)) {
            errno = ECHILD;
            die("the program ended");
        }
        if ((st >> 16) == PTRACE_EVENT_STOP)
            return;
        /* A signal for the program: deliver it and wait again. */
        if (ptrace(PTRACE_CONT, child, 0, (void *)(uintptr_t)WSTOPSIG(st)) < 0)
            die("PTRACE_CONT");
    }
}

static struct capture *capture_all(char **argv, int n, size_t stack_size, long gap_us)
{
    int fds[2];
    if (pipe(fds) < 0)
        die("pipe");
    child = fork();
    if (child < 0)
        die("fork");
    if (child == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    char buf[16];
    if (read(fds[0], buf, sizeof buf) <= 0) {
        errno = EIO;
        die("the program did not say ready");
    }
    if (ptrace(PTRACE_SEIZE, child, 0, (void *)(uintptr_t)PTRACE_O_EXITKILL) < 0)
        die("PTRACE_SEIZE");
    struct timespec settle = {0, 50 * 1000 * 1000},
                    gap = {gap_us / 1000000, gap_us % 1000000 * 1000};
    nanosleep(&settle, NULL);

    struct capture *caps = xcalloc((size_t)n, sizeof *caps);
    for (int i = 0; i < n; i++) {
        struct capture *c = &caps[i];
        if (ptrace(PTRACE_INTERRUPT, child, 0, 0) < 0)
            die("PTRACE_INTERRUPT");
        wait_stop();
        if (i == 0) {
            uint64_t t0 = now_ns();
            maps_read(child);
            fprintf(stderr,
                    "unwindbench: %zu file mappings of %zu files, mapped here and their "
                    ".eh_frame_hdr found: %.2f ms (before either library)\n",
                    nmaps, nimages, (double)(now_ns() - t0) / 1e6);
        }
        if (ptrace(PTRACE_GETREGS, child, 0, &c->regs) < 0)
            die("PTRACE_GETREGS");
        c->stack = malloc(stack_size);
        if (c->stack == NULL)
            die("malloc");
        struct iovec local = {c->stack, stack_size};
        struct iovec remote = {(void *)(uintptr_t)c->regs.rsp, stack_size};
        ssize_t got = process_vm_readv(child, &local, 1, &remote, 1, 0);
        c->len = got > 0 ? (size_t)got : 0;
        if (ptrace(PTRACE_CONT, child, 0, 0) < 0)
            die("PTRACE_CONT");
        nanosleep(&gap, NULL);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, __WALL);
    close(fds[0]);
    return caps;
}

/* --- (a) libdwfl -------------------------------------------------------------- */

struct dw {
    Dwfl *dwfl;
    pid_t tid;
    const struct capture *cur;
    /* The walk being recorded. */
    uint64_t *pcs;
    int n;
};

static pid_t dw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    struct dw *d = arg;
    if (*thread_argp != NULL)
        return 0;
    *thread_argp = d;
    return d->tid;
}

static bool dw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
    *thread_argp = arg;
    return true;
}

static bool dw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    struct dw *d = arg;
    uint64_t v;
    if (!mem_read(d->cur, addr, &v))
        return false;
    *result = v;
    return true;
}

/* The captured registers in DWARF order (rax rdx rcx rbx rsi rdi rbp rsp
 * r8..r15 rip).  Register 16 too, not only the pc: the CFI of a PLT entry
 * computes its CFA from rip, and without it libdwfl ends the stack there. */
static bool dw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    const struct user_regs_struct *r = &((struct dw *)arg)->cur->regs;
    Dwarf_Word regs[17] = {r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi, r->rbp, r->rsp, r->r8,
                           r->r9,  r->r10, r->r11, r->r12, r->r13, r->r14, r->r15, r->rip};
    if (!dwfl_thread_state_registers(thread, 0, 17, regs))
        return false;
    dwfl_thread_state_register_pc(thread, r->rip);
    return true;
}

static const Dwfl_Thread_Callbacks dw_thread_callbacks = {
    .next_thread = dw_next_thread,
    .get_thread = dw_get_thread,
    .memory_read = dw_memory_read,
    .set_initial_registers = dw_set_initial_registers,
};

static char *dw_debuginfo_path;
static const Dwfl_Callbacks dw_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &dw_debuginfo_path,
};

/* One Dwfl for the process: each executable file reported once, at the
 * address its first executable mapping says. */
static struct dw *dw_new(pid_t pid)
{
    struct dw *d = xcalloc(1, sizeof *d);
    d->tid = pid;
    d->dwfl = dwfl_begin(&dw_callbacks);
    if (d->dwfl == NULL)
        goto fail;
    dwfl_report_begin(d->dwfl);
    for (size_t i = 0; i < nimages; i++) {
        struct image *img = &images[i];
        if (!img->exec)
            continue;
        for (size_t k = 0; k < nmaps; k++) {
            if (&images[maps[k].img] == img && maps[k].exec) {
                const char *base = strrchr(img->path, '/');
                dwfl_report_elf(d->dwfl, base + 1, img->path, -1, maps[k].start - maps[k].pgoff,
                                false);
                break;
            }
        }
    }
    if (dwfl_report_end(d->dwfl, NULL, NULL) != 0)
        goto fail;
    if (!dwfl_attach_state(d->dwfl, NULL, pid, &dw_thread_callbacks, d))
        goto fail;
    return d;
fail:
    fprintf(stderr, "unwindbench: libdwfl: %s\n", dwfl_errmsg(-1));
    exit(1);
}

static void dw_free(struct dw *d)
{
    dwfl_end(d->dwfl);
    free(d);
}

static int dw_frame(Dwfl_Frame *state, void *arg)
{
    struct dw *d = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(state, &pc, &activation))
        return DWARF_CB_ABORT;
    d->pcs[d->n++] = activation ? pc : pc - 1;
    return d->n < MAXFR ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static int dw_unwind(struct dw *d, const struct capture *c, uint64_t *pcs, const char **why)
{
    d->cur = c;
    d->pcs = pcs;
    d->n = 0;
    int rc = dwfl_getthread_frames(d->dwfl, d->tid, dw_frame, d);
    if (why != NULL)
        *why = rc == 0 ? "end of stack" : d->n >= MAXFR ? "too deep" : dwfl_errmsg(-1);
    return d->n;
}

/* --- (b) libunwind, remote ---------------------------------------------------- */

static int un_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
                             int need_unwind_info, void *arg)
{
    const struct mapping *m = maps_find(ip);
    if (m == NULL || !m->exec || images[m->img].table_addr == 0)
        return -UNW_ENOINFO;
    const struct image *img = &images[m->img];
    unw_dyn_info_t di;
    memset(&di, 0, sizeof di);
    di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
    di.start_ip = m->start;
    di.end_ip = m->end;
    di.u.rti.segbase = img->hdr_addr;
    di.u.rti.table_data = img->table_addr;
    /* In words; a table entry is two 4-byte offsets. */
    di.u.rti.table_len = img->fde_count * 8 / sizeof(unw_word_t);
    return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

static void un_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int un_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap, void *arg)
{
    return -UNW_ENOINFO;
}

static int un_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
                         void *arg)
{
    uint64_t v;
    if (write || !mem_read(arg, addr, &v))
        return -UNW_EINVAL;
    *valp = v;
    return 0;
}

static int un_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write,
                         void *arg)
{
    const struct user_regs_struct *r = &((const struct capture *)arg)->regs;
    if (write)
        return -UNW_EREADONLYREG;
    switch (reg) {
    case UNW_X86_64_RAX: *valp = r->rax; break;
    case UNW_X86_64_RDX: *valp = r->rdx; break;
    case UNW_X86_64_RCX: *valp = r->rcx; break;
    case UNW_X86_64_RBX: *valp = r->rbx; break;
    case UNW_X86_64_RSI: *valp = r->rsi; break;
    case UNW_X86_64_RDI: *valp = r->rdi; break;
    case UNW_X86_64_RBP: *valp = r->rbp; break;
    case UNW_X86_64_RSP: *valp = r->rsp; break;
    case UNW_X86_64_R8: *valp = r->r8; break;
    case UNW_X86_64_R9: *valp = r->r9; break;
    case UNW_X86_64_R10: *valp = r->r10; break;
    case UNW_X86_64_R11: *valp = r->r11; break;
    case UNW_X86_64_R12: *valp = r->r12; break;
    case UNW_X86_64_R13: *valp = r->r13; break;
    case UNW_X86_64_R14: *valp = r->r14; break;
    case UNW_X86_64_R15: *valp = r->r15; break;
    case UNW_X86_64_RIP: *valp = r->rip; break;
    default: return -UNW_EBADREG;
    }
    return 0;
}

static int un_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
                           void *arg)
{
    return -UNW_EBADREG;
}

static int un_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
    return -UNW_EINVAL;
}

static int un_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
                            unw_word_t *offp, void *arg)
{
    return -UNW_EINVAL;
}

static unw_accessors_t un_accessors = {
    .find_proc_info = un_find_proc_info,
    .put_unwind_info = un_put_unwind_info,
    .get_dyn_info_list_addr = un_get_dyn_info_list_addr,
    .access_mem = un_access_mem,
    .access_reg = un_access_reg,
    .access_fpreg = un_access_fpreg,
    .resume = un_resume,
    .get_proc_name = un_get_proc_name,
};

static unw_addr_space_t un_new(unw_caching_policy_t policy)
{
    unw_addr_space_t as = unw_create_addr_space(&un_accessors, 0);
    if (as == NULL) {
        fprintf(stderr, "unwindbench: unw_create_addr_space failed\n");
        exit(1);
    }
    unw_set_caching_policy(as, policy);
    return as;
}

static int un_unwind(unw_addr_space_t as, const struct capture *c, uint64_t *pcs, const char **why)
{
    unw_cursor_t cu;
    unw_word_t ip;
    int n = 0, rc = unw_init_remote(&cu, as, (void *)c);
    while (rc >= 0 && n < MAXFR) {
        if (unw_get_reg(&cu, UNW_REG_IP, &ip) < 0) {
            rc = -UNW_EBADREG;
            break;
        }
        pcs[n] = n == 0 ? ip : ip - 1;
        n++;
        rc = unw_step(&cu);
        if (rc <= 0)
            break;
    }
    if (why != NULL)
        *why = rc == 0 ? "end of stack" : n >= MAXFR ? "too deep" : unw_strerror(rc);
    return n;
}

/* --- measuring -------------------------------------------------------------- */

/* libunwind twice: its cache of register rules by pc takes a lock that
 * blocks every signal around each lookup (two sigprocmask calls per frame),
 * and Debian's build turns UNW_CACHE_PER_THREAD into UNW_CACHE_GLOBAL (no
 * --enable-per-thread-cache); without the cache there is no lock, but every
 * frame searches and parses its FDE again. */
enum { LIB_DWFL, LIB_UNWIND, LIB_UNWIND_NC, NLIBS };
static const char *const lib_names[NLIBS] = {"libdwfl", "libunwind, UNW_CACHE_GLOBAL",
                                             "libunwind, UNW_CACHE_NONE"};

struct result {
    uint64_t *times; /* ns per sample, warm passes of every run */
    size_t ntimes;
    uint64_t *setup, *cold, *first; /* ns per run: setup, first pass, its first sample */
    uint64_t warm_frames, warm_ns;
    unsigned long long warm_allocs;
    struct walks w;
};

/* One pass over every capture; TIMES (when not NULL) gets ns per sample,
 * W (when not NULL) the walks. */
static uint64_t pass(int lib, void *u, struct capture *caps, int n, uint64_t *times,
                     struct walks *w, uint64_t *frames)
{
    static uint64_t scratch[MAXFR];
    uint64_t t0 = now_ns(), nf = 0;
    for (int i = 0; i < n; i++) {
        uint64_t *pcs = w != NULL ? w->pcs + (size_t)i * MAXFR : scratch;
        const char *why = NULL;
        uint64_t a = now_ns();
        int k = lib == LIB_DWFL ? dw_unwind(u, &caps[i], pcs, w != NULL ? &why : NULL)
                                : un_unwind(u, &caps[i], pcs, w != NULL ? &why : NULL);
        uint64_t b = now_ns();
        if (times != NULL)
            times[i] = b - a;
        if (w != NULL) {
            w->n[i] = k;
            w->why[i] = strdup(why);
        }
        nf += (uint64_t)k;
    }
    if (frames != NULL)
        *frames = nf;
    return now_ns() - t0;
}

static void measure(struct result *res, int lib, int run, int runs, struct capture *caps, int n)
{
    uint64_t t0 = now_ns();
    void *u = lib == LIB_DWFL     ? (void *)dw_new(child)
              : lib == LIB_UNWIND ? (void *)un_new(UNW_CACHE_GLOBAL)
                                  : (void *)un_new(UNW_CACHE_NONE);
    res->setup[run] = now_ns() - t0;
    uint64_t *t = xcalloc((size_t)n, sizeof *t);
    res->cold[run] = pass(lib, u, caps, n, t, NULL, NULL);
    res->first[run] = t[0];
    free(t);
    unsigned long long a0 = allocs;
    uint64_t frames;
    res->warm_ns += pass(lib, u, caps, n, res->times + res->ntimes, NULL, &frames);
    res->warm_allocs += allocs - a0;
    res->warm_frames += frames;
    res->ntimes += (size_t)n;
    if (run == runs - 1)
        pass(lib, u, caps, n, NULL, &res->w, NULL);
    if (lib == LIB_DWFL)
        dw_free(u);
    else
        unw_destroy_addr_space(u);
}

/* --- checking ------------------------------------------------------------------ */

/* The address ranges of the functions every full stack passes through (of
 * any module: ld.so has a _start of its own). */
enum { FN_MAIN, FN_START, FN_LIBC_MAIN, NFNS };
#define FN_RANGES 4
static const char *const fn_names[NFNS] = {"main", "_start", "__libc_start_call_main"};
static uint64_t fn_lo[NFNS][FN_RANGES], fn_hi[NFNS][FN_RANGES];
static int fn_n[NFNS];

static int fn_ranges(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
                     void *arg)
{
    int ns = dwfl_module_getsymtab(mod);
    for (int i = 0; i < ns; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *s = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
        if (s == NULL || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
            continue;
        for (int f = 0; f < NFNS; f++) {
            if (fn_n[f] < FN_RANGES && strcmp(s, fn_names[f]) == 0) {
                fn_lo[f][fn_n[f]] = addr;
                fn_hi[f][fn_n[f]++] = addr + (sym.st_size > 0 ? sym.st_size : 1);
            }
        }
    }
    return DWARF_CB_OK;
}

static unsigned reached(const struct walks *w, int i)
{
    unsigned mask = 0;
    for (int k = 0; k < w->n[i]; k++) {
        uint64_t pc = w->pcs[(size_t)i * MAXFR + k];
        for (int f = 0; f < NFNS; f++)
            for (int j = 0; j < fn_n[f]; j++)
                if (pc >= fn_lo[f][j] && pc < fn_hi[f][j])
                    mask |= 1u << f;
    }
    return mask;
}

/* PC as symbol+offset, or as module+offset where no symbol covers it (a PLT).
 * Borrowed, valid until the next call. */
static const char *name_of(Dwfl *dwfl, uint64_t pc)
{
    static char buf[256];
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *s =
        mod != NULL ? dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL) : NULL;
    Dwarf_Addr start;
    if (s != NULL) {
        snprintf(buf, sizeof buf, "%s+%#llx", s, (unsigned long long)off);
        return buf;
    }
    if (mod == NULL)
        snprintf(buf, sizeof buf, "%#llx", (unsigned long long)pc);
    else
        snprintf(buf, sizeof buf, "%s+%#llx",
                 dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL),
                 (unsigned long long)(pc - start));
    return buf;
}

static bool same_walk(const struct walks *a, const struct walks *b, int i)
{
    return a->n[i] == b->n[i] && memcmp(a->pcs + (size_t)i * MAXFR, b->pcs + (size_t)i * MAXFR,
                                        (size_t)a->n[i] * sizeof(uint64_t)) == 0;
}

/* Where the walks of capture I by libdwfl and by L part, on stderr. */
static void show_difference(Dwfl *dwfl, const struct result *res, int l2, int i)
{
    const struct walks *a = &res[LIB_DWFL].w, *b = &res[l2].w;
    int k = 0;
    while (k < a->n[i] && k < b->n[i] &&
           a->pcs[(size_t)i * MAXFR + k] == b->pcs[(size_t)i * MAXFR + k])
        k++;
    fprintf(stderr, "unwindbench: sample %d: %d / %d frames, same for %d; ", i, a->n[i], b->n[i],
            k);
    if (k > 0)
        fprintf(stderr, "last common %s; ", name_of(dwfl, a->pcs[(size_t)i * MAXFR + k - 1]));
    for (int j = 0; j < 2; j++) {
        int l = j == 0 ? LIB_DWFL : l2;
        const struct walks *w = &res[l].w;
        fprintf(stderr, "%s then %s (%s)%s", lib_names[l],
                k < w->n[i] ? name_of(dwfl, w->pcs[(size_t)i * MAXFR + k]) : "nothing", w->why[i],
                j == 0 ? ", " : "\n");
    }
}

/* A walk of capture I that did not reach main: its top frames and its
 * last, on stderr. */
static void show_short(Dwfl *dwfl, const struct walks *w, const struct capture *c, int i,
                       const char *lib)
{
    const uint64_t *pcs = w->pcs + (size_t)i * MAXFR;
    fprintf(stderr,
            "unwindbench: %s, sample %d (%zu bytes of stack): no main in %d frames (%s):", lib, i,
            c->len, w->n[i], w->why[i]);
    for (int k = 0; k < w->n[i] && k < 3; k++)
        fprintf(stderr, " %s", name_of(dwfl, pcs[k]));
    if (w->n[i] > 3)
        fprintf(stderr, " ... %s", name_of(dwfl, pcs[w->n[i] - 1]));
    fprintf(stderr, "\n");
}

/* How the walks of one library ended, most common first, on stderr. */
static void show_endings(const struct walks *w, int n, const char *lib)
{
    const char *why[16];
    int count[16], m = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < m && strcmp(why[k], w->why[i]) != 0)
            k++;
        if (k == m && m < 16) {
            why[m] = w->why[i];
            count[m++] = 0;
        }
        if (k < m)
            count[k]++;
    }
    fprintf(stderr, "unwindbench: %s ended:", lib);
    for (int k = 0; k < m; k++)
        fprintf(stderr, "%s %d x \"%s\"", k > 0 ? "," : "", count[k], why[k]);
    fprintf(stderr, "\n");
}

static uint64_t pct(uint64_t *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_u64);
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i];
}

int main(int argc, char **argv)
{
    int n = 2000, runs = 3, opt, header = 0;
    long stack_kib = 8, gap_us = 500;

    while ((opt = getopt(argc, argv, "Hn:s:i:r:")) != -1) {
        switch (opt) {
        case 'H': header = 1; break;
        case 'n': n = atoi(optarg); break;
        case 's': stack_kib = atol(optarg); break;
        case 'i': gap_us = atol(optarg); break;
        case 'r': runs = atoi(optarg); break;
        default: goto usage;
        }
    }
    if (optind >= argc || n < 1 || runs < 1 || stack_kib < 1 || stack_kib > 1024 || gap_us < 0)
        goto usage;
    /* Debug files from this machine only, never from the network. */
    unsetenv("DEBUGINFOD_URLS");
    elf_version(EV_CURRENT);

    struct capture *caps = capture_all(argv + optind, n, (size_t)stack_kib * 1024, gap_us);
    struct result res[NLIBS];
    for (int l = 0; l < NLIBS; l++) {
        memset(&res[l], 0, sizeof res[l]);
        res[l].times = xcalloc((size_t)n * (size_t)runs, sizeof(uint64_t));
        res[l].setup = xcalloc((size_t)runs, sizeof(uint64_t));
        res[l].cold = xcalloc((size_t)runs, sizeof(uint64_t));
        res[l].first = xcalloc((size_t)runs, sizeof(uint64_t));
        res[l].w.pcs = xcalloc((size_t)n * MAXFR, sizeof(uint64_t));
        res[l].w.n = xcalloc((size_t)n, sizeof(int));
        res[l].w.why = xcalloc((size_t)n, sizeof(char *));
    }
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < NLIBS; k++)
            measure(&res[(r + k) % NLIBS], (r + k) % NLIBS, r, runs, caps, n);

    /* Names, with a Dwfl of its own, after every timing. */
    struct dw *names = dw_new(child);
    dwfl_getmodules(names->dwfl, fn_ranges, NULL, 0);
    /* Samples each library walks otherwise than libdwfl. */
    int differ[NLIBS] = {0};
    for (int l = LIB_UNWIND; l < NLIBS; l++) {
        for (int i = 0; i < n; i++) {
            if (same_walk(&res[LIB_DWFL].w, &res[l].w, i))
                continue;
            if (differ[l]++ < 5)
                show_difference(names->dwfl, res, l, i);
        }
    }
    for (int l = 0; l < NLIBS; l++)
        show_endings(&res[l].w, n, lib_names[l]);

    if (header) {
        printf("| depth | stack | library | frames/sample: median (min-max) | reach main / "
               "__libc_start_call_main / _start | samples walked otherwise than by libdwfl | "
               "median us/sample | p99 "
               "us/sample | us/frame | first pass: us/sample, first sample us | setup, ms | "
               "allocations/sample |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    }
    const char *depth = argv[argc - 1];
    for (int l = 0; l < NLIBS; l++) {
        struct result *r = &res[l];
        uint64_t *fr = xcalloc((size_t)n, sizeof(uint64_t)), cold = 0;
        int cnt[NFNS] = {0}, shown = 0;
        char dif[32] = "-";
        for (int i = 0; i < n; i++) {
            fr[i] = (uint64_t)r->w.n[i];
            unsigned mask = reached(&r->w, i);
            for (int f = 0; f < NFNS; f++)
                cnt[f] += (mask >> f) & 1;
            if (!(mask & 1u << FN_MAIN) && shown++ < 3)
                show_short(names->dwfl, &r->w, &caps[i], i, lib_names[l]);
        }
        for (int k = 0; k < runs; k++)
            cold += r->cold[k];
        if (l != LIB_DWFL)
            snprintf(dif, sizeof dif, "%d", differ[l]);
        uint64_t fmed = pct(fr, (size_t)n, 0.5);
        printf(
            "| %s | %ld KiB | %s | %llu (%llu-%llu) | %.2f / %.2f / %.2f %% | %s | %.2f | %.2f | "
            "%.3f | %.2f, %.0f | %.2f | %.1f |\n",
            depth, stack_kib, lib_names[l], (unsigned long long)fmed, (unsigned long long)fr[0],
            (unsigned long long)fr[n - 1], 100.0 * cnt[FN_MAIN] / n, 100.0 * cnt[FN_LIBC_MAIN] / n,
            100.0 * cnt[FN_START] / n, dif, pct(r->times, r->ntimes, 0.5) / 1e3,
            pct(r->times, r->ntimes, 0.99) / 1e3,
            r->warm_frames > 0 ? (double)r->warm_ns / (double)r->warm_frames / 1e3 : 0.0,
            (double)cold / runs / n / 1e3, pct(r->first, (size_t)runs, 0.5) / 1e3,
            pct(r->setup, (size_t)runs, 0.5) / 1e6, (double)r->warm_allocs / ((double)n * runs));
        free(fr);
    }
    dw_free(names);
    return 0;
usage:
    fprintf(stderr, "usage: unwindbench [-H] [-n SAMPLES] [-s STACK_KIB] [-i GAP_US] [-r RUNS] -- "
                    "PROGRAM [ARGS...]\n");
    return 2;
}
