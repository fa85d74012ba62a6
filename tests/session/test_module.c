/* Symbols the way perf does them, on binaries built for the tests. */
#include "config.h"

#include "session/module.h"
#include "tests/tap.h"

#include <stdlib.h>

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
    for (size_t i = 1; i < m->nsyms; i++) {
        if (m->syms[i].start <= m->syms[i - 1].start || m->syms[i].end <= m->syms[i].start) {
            ok(0, "%s: symbols sorted with ends (at %zu)", prog, i);
            goto out;
        }
    }
    ok(1, "%s: %zu symbols sorted, each with an end", prog, m->nsyms);
out:
    module_free(m);
}

int main(void)
{
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
