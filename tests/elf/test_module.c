/* Symbols the way perf does them, on binaries built for the tests. */
#include "config.h"

#include "elf/module.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <unistd.h>

/* Load PROG and return it; NULL (and a failed test) when it does not load. */
static struct module *load(const char *prog, enum module_kind kind)
{
    char *path = NULL, *cause = NULL;
    if (asprintf(&path, "%s/%s", TEST_PROGS, prog) < 0)
        abort();
    struct module *m = module_new(0, path, kind);
    free(path);
    if (!ok(module_load(m, &cause) == 0, "%s loads", prog))
        printf("#   %s\n", cause);
    free(cause);
    return m;
}

/* The file offset of the symbol NAME, or UINT64_MAX. */
static uint64_t find(const struct module *m, const char *name)
{
    for (size_t i = 0; i < m->nsyms; i++) {
        if (strcmp(m->syms[i].name, name) == 0)
            return m->syms[i].start;
    }
    return UINT64_MAX;
}

static void check_named(const char *prog)
{
    struct module *m = load(prog, MODULE_PROGRAM);
    uint64_t markbit = find(m, "markbit");
    ok(markbit != UINT64_MAX, "%s: markbit has a symbol", prog);
    const struct symbol *s = module_resolve(m, markbit + 1);
    ok(s != NULL && strcmp(s->name, "markbit") == 0, "%s: an offset inside markbit resolves to it",
       prog);
    uint64_t lo, hi, va;
    ok(module_exec_span(m, &lo, &hi) && lo < hi, "%s: has an executable span", prog);
    ok(module_offset_to_vaddr(m, markbit, &va) && va >= lo && va < hi,
       "%s: markbit lies in the program area", prog);
    uint64_t back;
    ok(module_vaddr_to_offset(m, va, &back) && back == markbit, "%s: offset <-> address round trip",
       prog);
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < m->nsyms; i++) {
        bool wrong = m->syms[i].end <= m->syms[i].start ||
                     (i > 0 && m->syms[i].start <= m->syms[i - 1].start);
        if (wrong && bad++ == 0)
            first_bad = i;
    }
    ok(m->nsyms > 0 && bad == 0, "%s: %zu symbols sorted, each with an end (%zu not, first at %zu)",
       prog, m->nsyms, bad, first_bad);
    module_free(m);
}

/* Every function of the unstripped PROG, looked up in its stripped copy,
 * is one synthetic symbol with the function's own extent (its FDE). */
static void check_whole_functions(const char *prog, const char *stripped)
{
    struct module *named = load(prog, MODULE_PROGRAM);
    struct module *m = load(stripped, MODULE_PROGRAM);
    size_t whole = 0, total = 0;
    for (size_t i = 0; i < named->nsyms; i++) {
        const struct symbol *f = &named->syms[i];
        if (f->end - f->start < 2 || find(m, f->name) != UINT64_MAX)
            continue; /* still named in the stripped copy (.dynsym) */
        /* crt's own helpers are written without CFI: their gap is one symbol. */
        static const char *const crt[] = {"_init",
                                          "_fini",
                                          "deregister_tm_clones",
                                          "register_tm_clones",
                                          "__do_global_dtors_aux",
                                          "frame_dummy"};
        bool from_crt = false;
        for (size_t k = 0; k < sizeof crt / sizeof *crt; k++)
            from_crt |= strcmp(f->name, crt[k]) == 0;
        if (from_crt)
            continue;
        total++;
        const struct symbol *a = module_resolve(m, f->start);
        uint64_t a_start = a ? a->start : 0, a_end = a ? a->end : 0;
        const struct symbol *b = module_resolve(m, f->end - 1);
        if (a != NULL && b != NULL && a_start == f->start && a_end == f->end &&
            b->start == f->start)
            whole++;
        else
            printf("#   %s [%#" PRIx64 ", %#" PRIx64 ") became [%#" PRIx64 ", %#" PRIx64 ")\n",
                   f->name, f->start, f->end, a_start, a_end);
    }
    ok(total > 5 && whole == total,
       "%s: each of %zu unnamed functions is one whole symbol (%zu are)", stripped, total, whole);
    module_free(m);
    module_free(named);
}

/* Every "<name@plt>" that objdump -d shows in PATH is named so by profil. */
static void check_plt(const char *path)
{
    char *cmd = NULL;
    if (asprintf(&cmd, "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", path) < 0)
        abort();
    FILE *p = popen(cmd, "r");
    free(cmd);
    struct module *m = module_new(0, path, MODULE_LIBRARY);
    char *cause = NULL;
    ok(module_load(m, &cause) == 0, "%s loads", path);
    free(cause);
    char line[512];
    size_t seen = 0, named = 0;
    while (p != NULL && fgets(line, sizeof line, p) != NULL) {
        unsigned long long addr;
        char name[256];
        if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2 || strstr(name, "@plt") == NULL ||
            strstr(name, "@plt-") != NULL || name[0] == '*')
            continue; /* PLT0 ("f@plt-0x10") and IRELATIVE slots ("*ABS*+0x...") are not named */
        seen++;
        uint64_t off;
        const struct symbol *s =
            module_vaddr_to_offset(m, addr, &off) ? module_resolve(m, off) : NULL;
        if (s != NULL && strcmp(s->name, name) == 0 && s->start == off)
            named++;
        else
            printf("#   %s at %#llx: profil says %s\n", name, addr, s ? s->name : "(nothing)");
    }
    if (p != NULL)
        pclose(p);
    ok(seen > 0 && named == seen, "%s: %zu of %zu PLT entries named as objdump names them", path,
       named, seen);
    module_free(m);
}

/* A copy of PROG with random bytes written over its sections named in
 * SECTIONS, ROUNDS times: loading and resolving every copy must not crash. */
static void check_hostile(const char *prog, const char *sections)
{
    char *src = NULL, *dst = NULL, *cmd = NULL;
    if (asprintf(&src, "%s/%s", TEST_PROGS, prog) < 0 ||
        asprintf(&dst, "%s/hostile-XXXXXX", P_tmpdir) < 0)
        abort();
    int fd = mkstemp(dst);
    if (fd < 0)
        abort();
    close(fd);
    /* Where each section lies in the file, from readelf: "[Nr] Name Type Addr Off Size". */
    if (asprintf(&cmd,
                 "readelf -SW '%s' | sed -n 's/^ *\\[ *[0-9]*\\] *\\([^ ]*\\) *[A-Z_]* *[0-9a-f]* "
                 "\\([0-9a-f]*\\) \\([0-9a-f]*\\).*/\\1 \\2 \\3/p'",
                 src) < 0)
        abort();
    FILE *p = popen(cmd, "r");
    struct {
        uint64_t off, size;
    } spans[8];
    size_t nspans = 0;
    char name[64];
    unsigned long long off, size;
    while (p != NULL && nspans < 8 && fscanf(p, "%63s %llx %llx", name, &off, &size) == 3) {
        char want[80];
        snprintf(want, sizeof want, " %s ", name);
        if (strstr(sections, want) != NULL && size > 0)
            spans[nspans].off = off, spans[nspans++].size = size;
    }
    if (p != NULL)
        pclose(p);
    FILE *in = fopen(src, "rb");
    fseek(in, 0, SEEK_END);
    long len = ftell(in);
    rewind(in);
    unsigned char *image = malloc((size_t)len), *copy = malloc((size_t)len);
    if (image == NULL || copy == NULL || fread(image, 1, (size_t)len, in) != (size_t)len)
        abort();
    fclose(in);
    unsigned seed = 12345;
    size_t loaded = 0, rounds = 300;
    for (size_t r = 0; r < rounds; r++) {
        memcpy(copy, image, (size_t)len);
        for (size_t k = 0; k < nspans; k++) {
            /* Some rounds flip a few bytes, others fill with 0xff (huge lengths). */
            size_t flips = r % 3 == 0 ? spans[k].size : 1 + r % 8;
            for (size_t j = 0; j < flips; j++) {
                seed = seed * 1103515245 + 12345;
                size_t at = spans[k].off + (r % 3 == 0 ? j : (seed >> 8) % spans[k].size);
                if (at < (size_t)len)
                    copy[at] = r % 3 == 0 ? 0xff : (unsigned char)(seed >> 16);
            }
        }
        FILE *out = fopen(dst, "wb");
        fwrite(copy, 1, (size_t)len, out);
        fclose(out);
        struct module *m = module_new(0, dst, MODULE_PROGRAM);
        char *cause = NULL;
        if (module_load(m, &cause) == 0) {
            loaded++;
            for (uint64_t o = 0; o < (uint64_t)len; o += 7)
                module_resolve(m, o);
        }
        free(cause);
        module_free(m);
    }
    ok(nspans > 0 && loaded > 0, "%s with damaged%s: %zu of %zu copies load, none crash", prog,
       sections, loaded, rounds);
    unlink(dst);
    free(image);
    free(copy);
    free(cmd);
    free(src);
    free(dst);
}

int main(void)
{
    plan(45);
    check_named("sieve");
    check_named("sieve-nopie");
    check_named("sieve-static");

    /* Stripped: no .symtab; .dynsym has no local functions; .eh_frame names them. */
    struct module *named = load("sieve", MODULE_PROGRAM);
    struct module *m = load("sieve-stripped", MODULE_PROGRAM);
    ok(find(m, "markbit") == UINT64_MAX, "stripped: markbit has no symbol");
    uint64_t markbit = find(named, "markbit");
    const struct symbol *s = module_resolve(m, markbit + 2);
    char want[64];
    snprintf(want, sizeof want, "sieve-stripped+0x%" PRIx64, markbit);
    ok(s != NULL && s->synthetic, "stripped: an offset in markbit gets a synthetic symbol");
    is_str(s ? s->name : NULL, want, "stripped: named module+0xOFFSET of the function start");
    ok(module_resolve(m, markbit + 3) == module_resolve(m, markbit + 2),
       "stripped: the same function resolves to the same symbol");
    module_free(m);
    module_free(named);

    check_whole_functions("sieve", "sieve-stripped");
    check_plt(TEST_PROGS "/sieve");
    check_plt(TEST_PROGS "/sieve-nopie");
    check_plt(TEST_PROGS "/../../profil");
    check_hostile("sieve-stripped", " .eh_frame .eh_frame_hdr ");
    check_hostile("sieve", " .rela.plt .rela.dyn .plt .plt.got .dynsym ");

    /* One symbol per start, whatever adds them: files need strictly sorted starts. */
    struct module *t = module_new(2, "/x/t", MODULE_LIBRARY);
    module_add_symbol(t, 0x100, 0x101, "t+0x100", true);
    module_add_symbol(t, 0x100, 0x180, "t+0x100", true);
    module_add_symbol(t, 0x80, 0x90, "early", false);
    is_u64(t->nsyms, 2, "a second symbol at the same start is merged");
    ok(t->syms[0].start == 0x80 && t->syms[1].start == 0x100 && t->syms[1].end == 0x180,
       "sorted, and the merged one takes the longer extent");
    module_free(t);

    /* The vDSO comes from profil's own memory. */
    struct module *v = module_new(1, "[vdso]", MODULE_VDSO);
    char *cause = NULL;
    ok(module_load_vdso(v, &cause) == 0 && v->nsyms > 0, "the vDSO loads with symbols");
    ok(find(v, "__vdso_clock_gettime") != UINT64_MAX || find(v, "clock_gettime") != UINT64_MAX,
       "the vDSO has clock_gettime");
    free(cause);
    module_free(v);

    /* Not an ELF executable. */
    cause = NULL;
    ok(module_check_executable("/etc/passwd", &cause) < 0 && cause != NULL,
       "a text file is not an executable");
    free(cause);
    cause = NULL;
    ok(module_check_executable(TEST_PROGS "/sieve", &cause) == 0, "sieve is an executable");
    free(cause);
    cause = NULL;
    ok(module_check_executable("/nonexistent", &cause) < 0 && cause != NULL,
       "a missing file is refused");
    free(cause);
    return tap_done();
}
