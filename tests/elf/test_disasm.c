/* The disassembler on the test programs, checked against objdump. */
#include "config.h"

#include "elf/disasm.h"
#include "elf/module.h"
#include "tests/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Load PATH and return it; a failed test says so when it does not load. */
static struct module *load_path(const char *path, enum module_kind kind)
{
    char *cause = NULL;
    struct module *m = module_new(0, path, kind);
    if (!ok(module_load(m, &cause) == 0, "%s loads", m->name))
        printf("#   %s\n", cause);
    free(cause);
    return m;
}

/* Load the test program PROG. */
static struct module *load(const char *prog)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", TEST_PROGS, prog) < 0)
        abort();
    struct module *m = load_path(path, MODULE_PROGRAM);
    free(path);
    return m;
}

/* The symbol NAME of M, or NULL. */
static const struct symbol *find(const struct module *m, const char *name)
{
    for (size_t i = 0; i < m->nsyms; i++) {
        if (strcmp(m->syms[i].name, name) == 0)
            return &m->syms[i];
    }
    return NULL;
}

/* One instruction as objdump prints it. */
struct objdump_insn {
    uint64_t addr;
    char mnemonic[32];
    char text[128]; /* without objdump's <symbol+offset> and # comment */
};

/* objdump -d's instructions of PATH in image addresses [LO, HI); the caller
 * frees them.  Returns the count, or -1 when objdump does not run. */
static long objdump(const char *path, uint64_t lo, uint64_t hi, struct objdump_insn **out)
{
    char *cmd = NULL;
    if (asprintf(&cmd,
                 "objdump -d --insn-width=15 --start-address=0x%" PRIx64
                 " --stop-address=0x%" PRIx64 " '%s'",
                 lo, hi, path) < 0)
        abort();
    FILE *f = popen(cmd, "r");
    free(cmd);
    if (f == NULL)
        return -1;
    char line[512];
    long n = 0;
    *out = NULL;
    while (fgets(line, sizeof line, f) != NULL) {
        uint64_t addr;
        int used = 0;
        if (sscanf(line, " %" SCNx64 ":%n", &addr, &used) != 1 || used == 0 || line[used] != '\t')
            continue;
        /* Address, tab, bytes, tab, instruction: a line without the second
         * tab only continues the bytes of the one before. */
        char *insn = strchr(line + used + 1, '\t');
        if (insn == NULL)
            continue;
        *out = realloc(*out, (size_t)(n + 1) * sizeof **out);
        if (*out == NULL)
            abort();
        struct objdump_insn *o = &(*out)[n];
        o->addr = addr;
        sscanf(insn + 1, "%31s", o->mnemonic);
        snprintf(o->text, sizeof o->text, "%s", insn + 1);
        o->text[strcspn(o->text, "<#\n")] = '\0';
        for (size_t k = strlen(o->text); k > 0 && o->text[k - 1] == ' '; k--)
            o->text[k - 1] = '\0';
        n++;
    }
    if (pclose(f) != 0) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return n;
}

/* Whether D's instructions tile [LO, HI) without a gap. */
static bool contiguous(const struct disasm_insn *d, size_t n, uint64_t lo, uint64_t hi)
{
    uint64_t at = lo;
    for (size_t i = 0; i < n; i++) {
        if (d[i].offset != at || d[i].size == 0) {
            printf("#   instruction %zu at 0x%" PRIx64 ", want 0x%" PRIx64 "\n", i, d[i].offset,
                   at);
            return false;
        }
        at += d[i].size;
    }
    return at == hi;
}

/* The index of the instruction at OFF, or -1. */
static long insn_at(const struct disasm_insn *d, size_t n, uint64_t off)
{
    for (size_t i = 0; i < n; i++) {
        if (d[i].offset == off)
            return (long)i;
    }
    return -1;
}

/* Whether objdump's mnemonic MN is a string instruction (with its rep
 * prefix or not) or a nop: the lines Capstone writes its own way. */
static bool string_or_nop(const char *mn)
{
    static const char *const ops[] = {"rep", "stos", "movs", "lods", "scas", "cmps", "ins", "outs"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        if (strncmp(mn, ops[k], strlen(ops[k])) == 0)
            return true;
    }
    return strstr(mn, "nop") != NULL || strcmp(mn, "xchg") == 0 || strcmp(mn, "data16") == 0 ||
           strcmp(mn, "cs") == 0;
}

/* Disassemble function NAME of the program at PATH and hold it against
 * objdump: the same instructions at the same addresses, of the same kind. */
static void check_function(struct module *m, const char *name, bool calls)
{
    const struct symbol *s = find(m, name);
    if (!ok(s != NULL, "%s: %s has a symbol", m->name, name))
        return;
    size_t n = 0;
    char *cause = NULL;
    struct disasm_insn *d = disasm_module(m, s->start, s->end, &n, &cause);
    if (!ok(d != NULL && n > 0, "%s: %s disassembles", m->name, name)) {
        printf("#   %s\n", cause ? cause : "no instructions");
        free(cause);
        free(d);
        return;
    }
    ok(contiguous(d, n, s->start, s->end),
       "%s: %s: %zu instructions cover [0x%" PRIx64 ", 0x%" PRIx64 ") without a gap", m->name, name,
       n, s->start, s->end);
    /* Code after the last instruction of a function would be padding. */
    const struct disasm_insn *last = &d[n - 1];
    ok(last->is_ret || (last->is_jump && strncmp(last->text, "jmp", 3) == 0),
       "%s: %s ends in a ret or jmp ('%s')", m->name, name, last->text);

    uint64_t va = 0, hi_va = 0;
    bool mapped = module_offset_to_vaddr(m, s->start, &va);
    ok(mapped && d[0].addr == va, "%s: %s's first address is its image address 0x%" PRIx64, m->name,
       name, va);
    bool bad = false, commas = false;
    for (size_t i = 0; i < n; i++) {
        bad |= strcmp(d[i].text, "(bad)") == 0;
        commas |= strstr(d[i].text, ", ") != NULL;
    }
    ok(!bad, "%s: %s has no (bad) instruction", m->name, name);
    ok(!commas, "%s: %s's operands are written as objdump writes them", m->name, name);

    /* Direct jumps land on an instruction; direct calls on a function. */
    size_t ncalls = 0, calls_ok = 0, njumps = 0, jumps_ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (!d[i].has_target)
            continue;
        uint64_t t = d[i].target_offset;
        if (d[i].is_call) {
            long k = module_find_symbol(m, t);
            ncalls++;
            uint64_t tva;
            if (k >= 0 && m->syms[k].start == t && module_offset_to_vaddr(m, t, &tva) &&
                tva == d[i].target_addr)
                calls_ok++;
            else
                printf("#   call at 0x%" PRIx64 " to 0x%" PRIx64 "\n", d[i].offset, t);
        } else if (d[i].is_jump && t >= s->start && t < s->end) {
            njumps++;
            jumps_ok += insn_at(d, n, t) >= 0;
        }
    }
    if (calls)
        ok(ncalls > 0 && calls_ok == ncalls,
           "%s: %s: each of its %zu direct calls goes to a function's start", m->name, name,
           ncalls);
    ok(jumps_ok == njumps, "%s: %s: %zu of its %zu jumps inside land on an instruction", m->name,
       name, jumps_ok, njumps);

    module_offset_to_vaddr(m, s->end - 1, &hi_va);
    struct objdump_insn *od = NULL;
    long on = objdump(m->path, va, hi_va + 1, &od);
    if (!ok(on > 0, "%s: objdump disassembles %s", m->name, name)) {
        free(d);
        return;
    }
    is_u64(n, on, "%s: %s: as many instructions as objdump's", m->name, name);
    size_t same = 0, kinds = 0, texts = 0, odd = 0;
    for (size_t i = 0; i < n && i < (size_t)on; i++) {
        if (d[i].addr != od[i].addr) {
            printf("#   instruction %zu: 0x%" PRIx64 ", objdump 0x%" PRIx64 "\n", i, d[i].addr,
                   od[i].addr);
            break;
        }
        same++;
        /* objdump's ret may come with a repz prefix first. */
        const char *mn = od[i].mnemonic;
        bool call = strncmp(mn, "call", 4) == 0,
             ret = strncmp(mn, "ret", 3) == 0 || strcmp(mn, "repz") == 0, jump = mn[0] == 'j';
        if (call == d[i].is_call && ret == d[i].is_ret && jump == d[i].is_jump)
            kinds++;
        else
            printf("#   0x%" PRIx64 ": '%s' against objdump's %s\n", d[i].addr, d[i].text, mn);
        if (strcmp(d[i].text, od[i].text) == 0) {
            texts++;
        } else {
            printf("#   0x%" PRIx64 ": '%s', objdump '%s'\n", d[i].addr, d[i].text, od[i].text);
            odd += !string_or_nop(mn);
        }
    }
    is_u64(same, on, "%s: %s: every address as objdump's", m->name, name);
    is_u64(kinds, same, "%s: %s: calls, jumps and returns where objdump has them", m->name, name);
    /* Capstone writes string instructions and padding nops its own way: any
     * other line must read as objdump's. */
    ok(same > 0 && odd == 0,
       "%s: %s: %zu of %zu lines read as objdump's, the %zu others string instructions or nops",
       m->name, name, texts, same, same - texts);
    is_str(d[0].text, od[0].text, "%s: %s: the first line reads as objdump's", m->name, name);
    free(od);
    free(d);
}

/* Undecodable bytes are one-byte "(bad)" entries, and the listing goes on. */
static void check_bad_bytes(struct module *m)
{
    static const uint8_t code[] = {0x06, 0xff, 0xff, 0xff, 0xff, 0x3f, 0x90, 0xc3, 0x48};
    static const char *const want[] = {"(bad)", "(bad)", "(bad)", "(bad)", "(bad)",
                                       "(bad)", "nop",   "ret",   "(bad)"};
    const struct symbol *s = find(m, "main");
    if (s == NULL)
        return;
    size_t n = 0;
    char *cause = NULL;
    struct disasm_insn *d = disasm_bytes(m, code, sizeof code, s->start, &n, &cause);
    if (!ok(d != NULL, "bad bytes: disassembled")) {
        printf("#   %s\n", cause);
        free(cause);
        return;
    }
    is_u64(n, sizeof want / sizeof *want, "bad bytes: one entry per bad byte, then the rest");
    ok(contiguous(d, n, s->start, s->start + sizeof code), "bad bytes: entries without a gap");
    size_t same = 0;
    for (size_t i = 0; i < n && i < sizeof want / sizeof *want; i++) {
        if (strcmp(d[i].text, want[i]) == 0)
            same++;
        else
            printf("#   entry %zu: '%s', want '%s'\n", i, d[i].text, want[i]);
    }
    is_u64(same, n, "bad bytes: (bad), (bad), ..., nop, ret, (bad) for a lone prefix");
    ok(n > 7 && d[7].is_ret && !d[0].is_ret, "bad bytes: the ret is a ret");
    free(d);
}

/* Copy the file FROM to TO: 0, or -1. */
static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    int in = open(from, O_RDONLY), r = -1;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (in < 0 || out < 0)
        goto out;
    ssize_t got;
    while ((got = read(in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t)got) != got)
            goto out;
    }
    r = got == 0 ? 0 : -1;
out:
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return r;
}

/* Disassemble M's function NAME: the cause when it fails, or NULL. */
static char *try_function(const struct module *m, const char *name)
{
    const struct symbol *s = find(m, name);
    if (s == NULL)
        return strdup("no such symbol");
    size_t n;
    char *cause = NULL;
    struct disasm_insn *d = disasm_module(m, s->start, s->end, &n, &cause);
    free(d);
    return d != NULL ? NULL : cause;
}

/* A module whose file was rebuilt, or removed, says so in one line. */
static void check_changed_file(const char *dir, const char *prog, const char *other,
                               const char *why)
{
    char *path = NULL, *from = NULL, *to = NULL, *want = NULL, *cause;
    if (asprintf(&path, "%s/%s", dir, prog) < 0 || asprintf(&from, "%s/%s", TEST_PROGS, prog) < 0 ||
        asprintf(&to, "%s/%s", TEST_PROGS, other) < 0)
        abort();
    if (!ok(copy_file(from, path) == 0, "%s copied", prog))
        goto out;
    struct module *m = load_path(path, MODULE_PROGRAM);
    cause = try_function(m, "main");
    if (!ok(cause == NULL, "%s: the file profiled disassembles", prog))
        printf("#   %s\n", cause);
    free(cause);

    if (!ok(copy_file(to, path) == 0, "%s replaced by %s", prog, other))
        goto done;
    if (asprintf(&want, "%s: no longer the file profiled (%s)", path, why) < 0)
        abort();
    cause = try_function(m, "main");
    is_str(cause, want, "%s rebuilt: the cause says so", prog);
    free(cause);
    free(want);

    unlink(path);
    if (asprintf(&want, "%s: %s", path, strerror(ENOENT)) < 0)
        abort();
    cause = try_function(m, "main");
    is_str(cause, want, "%s removed: the cause says so", prog);
    free(cause);
    free(want);
done:
    module_free(m);
out:
    free(path);
    free(from);
    free(to);
}

/* A module never loaded (no segments) takes the file's, and finds the same
 * instructions at the same addresses. */
static void check_unloaded(const struct module *loaded)
{
    const struct symbol *s = find(loaded, "main");
    if (s == NULL)
        return;
    struct module *m = module_new(0, loaded->path, MODULE_PROGRAM);
    size_t n1 = 0, n2 = 0;
    char *cause = NULL;
    struct disasm_insn *a = disasm_module(loaded, s->start, s->end, &n1, &cause);
    free(cause);
    cause = NULL;
    struct disasm_insn *b = disasm_module(m, s->start, s->end, &n2, &cause);
    if (!ok(b != NULL, "a module not loaded disassembles"))
        printf("#   %s\n", cause);
    ok(a != NULL && b != NULL && n1 == n2 && n1 > 0 && memcmp(a, b, n1 * sizeof *a) == 0,
       "a module not loaded: the same listing as the loaded one");
    free(a);
    free(b);
    free(cause);

    /* Capped: a range past 1 MiB is refused before anything is read. */
    cause = NULL;
    b = disasm_module(m, 0, 2u << 20, &n2, &cause);
    is_str(cause, "function too large to disassemble (2097152 bytes)",
           "more than 1 MiB: the cause says so");
    free(b);
    free(cause);
    module_free(m);
}

/* The vDSO's code comes from the vDSO mapped here; anonymous code has no file. */
static void check_pseudo(void)
{
    /* Every Linux x86-64 process has a vDSO: not finding it is a failure. */
    struct module *m = module_new(1, "[vdso]", MODULE_VDSO);
    char *cause = NULL;
    if (!ok(module_load_vdso(m, &cause) == 0, "the vDSO mapped here loads"))
        printf("#   %s\n", cause ? cause : "(no cause)");
    free(cause);
    cause = NULL;
    const struct symbol *s = NULL;
    for (size_t i = 0; i < m->nsyms && s == NULL; i++) {
        if (strstr(m->syms[i].name, "clock_gettime") != NULL)
            s = &m->syms[i];
    }
    size_t n = 0;
    struct disasm_insn *d = s ? disasm_module(m, s->start, s->end, &n, &cause) : NULL;
    if (!ok(d != NULL && contiguous(d, n, s->start, s->end), "vdso: clock_gettime disassembles"))
        printf("#   %s\n", cause ? cause : "no clock_gettime");
    /* A vDSO never loaded takes the segments of the one mapped here. */
    struct module *bare = module_new(3, "[vdso]", MODULE_VDSO);
    size_t n2 = 0;
    struct disasm_insn *d2 = s ? disasm_module(bare, s->start, s->end, &n2, &cause) : NULL;
    ok(d != NULL && d2 != NULL && n2 == n && memcmp(d, d2, n * sizeof *d) == 0,
       "vdso not loaded: the same listing");
    free(d2);
    module_free(bare);
    free(d);
    free(cause);
    module_free(m);

    m = module_new(2, "[anon]", MODULE_ANON);
    cause = NULL;
    n = 0;
    d = disasm_module(m, 0x1000, 0x1010, &n, &cause);
    is_str(cause, "[anon]: no file holds this code", "anonymous code: no file to read");
    free(d);
    free(cause);
    static const uint8_t jmp_self[] = {0xeb, 0xfe};
    cause = NULL;
    d = disasm_bytes(m, jmp_self, sizeof jmp_self, 0x7000, &n, &cause);
    ok(d != NULL && n == 1 && d[0].addr == 0x7000 && d[0].has_target &&
           d[0].target_offset == 0x7000 && d[0].is_jump,
       "anonymous code: offsets are addresses");
    free(d);
    free(cause);
    module_free(m);
}

/* The path of the libc this process runs with, into DATA (PATH_MAX bytes). */
static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    if (base == NULL || strncmp(base + 1, "libc.so", 7) != 0)
        return 0;
    snprintf(data, PATH_MAX, "%s", info->dlpi_name);
    return 1;
}

/* How many of objdump's instructions of PATH in [LO, HI) are kmov, or -1. */
static long objdump_kmov(const char *path, uint64_t lo, uint64_t hi, long *count)
{
    struct objdump_insn *od = NULL;
    long on = objdump(path, lo, hi, &od), kmov = 0;
    for (long i = 0; i < on; i++)
        kmov += strncmp(od[i].mnemonic, "kmov", 4) == 0;
    free(od);
    *count = on;
    return on < 0 ? -1 : kmov;
}

/* Capstone 4 does not know AVX-512's mask instructions: glibc's *_evex
 * string routines come out whole through objdump instead.  The libc is the
 * one in use, and the function one of its *_evex routines (its symbol table:
 * the debug file of libc6-dbg) that objdump shows with kmov instructions. */
static void check_evex(void)
{
    char path[PATH_MAX] = "";
    dl_iterate_phdr(find_libc, path);
    struct module *m = module_new(1, path[0] ? path : "(no libc found)", MODULE_LIBRARY);
    char *cause = NULL;
    if (!ok(path[0] != '\0' && module_load(m, &cause) == 0, "the libc in use loads (%s)", path))
        printf("#   %s\n", cause ? cause : "not among this process's objects");
    free(cause);
    cause = NULL;
    long k = -1, on = 0, okmov = 0;
    size_t tried = 0;
    for (size_t i = 0; i < m->nsyms && k < 0; i++) {
        const char *name = m->syms[i].name;
        size_t len = strlen(name);
        uint64_t lo, hi;
        if (len < 5 || strcmp(name + len - 5, "_evex") != 0 ||
            !module_offset_to_vaddr(m, m->syms[i].start, &lo) ||
            !module_offset_to_vaddr(m, m->syms[i].end - 1, &hi))
            continue;
        tried++;
        long kmov = objdump_kmov(m->path, lo, hi + 1, &on);
        if (kmov > 0) {
            k = (long)i;
            okmov = kmov;
        }
    }
    const char *name = k >= 0 ? m->syms[k].name : "(none)";
    ok(k >= 0,
       "libc has an AVX-512 routine with mask instructions: %s, %ld kmov by objdump "
       "(%zu *_evex routines tried)",
       name, okmov, tried);
    size_t n = 0, bad = 0, kmov = 0;
    struct disasm_insn *d =
        k >= 0 ? disasm_module(m, m->syms[k].start, m->syms[k].end, &n, &cause) : NULL;
    for (size_t i = 0; d != NULL && i < n; i++) {
        bad += strcmp(d[i].text, "(bad)") == 0;
        kmov += strncmp(d[i].text, "kmov", 4) == 0;
    }
    ok(d != NULL && n == (size_t)on && bad == 0 && kmov == (size_t)okmov,
       "%s: %zu instructions (objdump %ld), %zu (bad), %zu kmov (objdump %ld): its mask "
       "instructions are read",
       name, n, on, bad, kmov, okmov);
    bool contiguous = d != NULL && n > 0 && d[0].offset == m->syms[k].start;
    for (size_t i = 1; d != NULL && i < n; i++)
        contiguous &= d[i].offset == d[i - 1].offset + d[i - 1].size;
    ok(contiguous && d[n - 1].offset + d[n - 1].size == m->syms[k].end,
       "%s: its instructions follow one another to its end", name);
    free(d);
    free(cause);
    module_free(m);
}

int main(void)
{
    plan(91);
    struct module *m = load("sieve");
    check_function(m, "main", true);
    check_function(m, "markall", true);
    check_function(m, "testbit", false);
    check_bad_bytes(m);
    check_unloaded(m);
    module_free(m);
    m = load("sieve-nopie");
    check_function(m, "main", true);
    module_free(m);

    char dir[] = "/tmp/profil-disasm.XXXXXX";
    if (ok(mkdtemp(dir) != NULL, "a scratch directory")) {
        check_changed_file(dir, "sieve", "shares", "build id differs");
        check_changed_file(dir, "sieve-nobid", "shares", "its segments differ");
        rmdir(dir);
    }
    check_pseudo();
    check_evex();
    return tap_done();
}
