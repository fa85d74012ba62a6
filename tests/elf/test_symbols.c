/* The name sources of elf/symbols.c that read text or mangled names:
 * the demangler against c++filt, kallsyms and perf maps, hostile lines too. */
#include "config.h"

#include "elf/symbols.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>

/* A FILE reading TEXT. */
static FILE *text(const char *t)
{
    FILE *f = fmemopen((void *)t, strlen(t), "r");
    if (f == NULL)
        abort();
    return f;
}

/* What c++filt prints for NAME (the same library, run as a program). */
static char *cxxfilt(const char *name)
{
    char cmd[512], out[512] = "";
    snprintf(cmd, sizeof cmd, "c++filt '%s'", name);
    FILE *p = popen(cmd, "r");
    if (p == NULL || fgets(out, sizeof out, p) == NULL)
        out[0] = '\0';
    if (p != NULL)
        pclose(p);
    out[strcspn(out, "\n")] = '\0';
    return strdup(out);
}

static void check_demangle(void)
{
    static const char *const cxx[] = {
        "_ZN3geo6MatrixIdE8multiplyERKS1_",
        "_ZNSt6vectorIiSaIiEE9push_backERKi",
        "_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv",
        "_ZZ4mainENKUlvE_clEv",
    };
    for (size_t i = 0; i < sizeof cxx / sizeof *cxx; i++) {
        char *d = symbols_demangle(cxx[i]), *want = cxxfilt(cxx[i]);
        is_str(d, want, "C++ %s as c++filt prints it", cxx[i]);
        free(d);
        free(want);
    }
    char *d = symbols_demangle("_RNvCs1234_7mycrate3foo");
    is_str(d, "mycrate::foo", "Rust v0");
    free(d);
    d = symbols_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
    is_str(d, "core::fmt::write", "Rust legacy, without its hash");
    free(d);
    d = symbols_demangle("_D3foo3barFZv");
    is_str(d, "foo.bar()", "D");
    free(d);
    ok(symbols_demangle("main") == NULL, "a C name is not mangled");
    ok(symbols_demangle("_Z") == NULL && symbols_demangle("_ZN") == NULL &&
           symbols_demangle("") == NULL,
       "broken manglings are left alone");
    char longname[8192];
    memset(longname, 'N', sizeof longname - 1);
    memcpy(longname, "_ZN", 3);
    longname[sizeof longname - 1] = '\0';
    d = symbols_demangle(longname);
    ok(d == NULL, "a long hostile mangling (8 KiB of N) is left alone, as c++filt leaves it (%s)",
       d ? d : "left alone");
    free(d);
}

static void check_kallsyms(void)
{
    FILE *f = text("ffffffff81000000 T _stext\n"
                   "ffffffff81000000 T _text\n"
                   "ffffffff81000100 t do_one\n"
                   "ffffffff81000200 D some_data\n"
                   "ffffffff81000300 W weak_fn\n"
                   "garbage line\n"
                   "ffffffffzz000000 T bad_addr\n"
                   "ffffffffa0000000 t ext4_write\t[ext4]\n");
    struct symbols_text *t;
    bool hidden = true;
    size_t n = symbols_read_kallsyms(f, &t, &hidden);
    fclose(f);
    is_u64(n, 4, "kallsyms: text symbols, one per address, bad lines skipped");
    ok(!hidden, "kallsyms: addresses shown");
    bool four = n == 4; /* the checks below read t[0..3] only then, and fail otherwise */
    is_str(four ? t[0].name : NULL, "_stext",
           "kallsyms: of aliases at one address, the first by name stays");
    ok(four && t[0].end == 0xffffffff81000100, "kallsyms: a symbol ends where the next begins");
    is_str(four ? t[1].name : NULL, "do_one", "kallsyms: local text symbols count");
    is_str(four ? t[3].name : NULL, "ext4_write", "kallsyms: module symbols count");
    is_str(four ? t[3].owner : NULL, "ext4", "kallsyms: and name their module");
    ok(four && t[1].owner == NULL, "kallsyms: the kernel's own have no module");
    symbols_text_free(t, n);

    f = text("0000000000000000 T _stext\n0000000000000000 t do_one\n");
    n = symbols_read_kallsyms(f, &t, &hidden);
    fclose(f);
    ok(n == 0 && hidden, "kallsyms: all-zero addresses are hidden (kptr_restrict)");

    /* This kernel's: hidden exactly when its first line's address reads as
     * zeros to this user (kptr_restrict, or an ordinary user's view). */
    char first[256] = "";
    f = fopen("/proc/kallsyms", "r");
    if (!ok(f != NULL && fgets(first, sizeof first, f) != NULL, "/proc/kallsyms reads")) {
        if (f != NULL)
            fclose(f);
        ok(0, "this kernel's kallsyms: not read");
        return;
    }
    bool zeros = strspn(first, "0") == 16 && first[16] == ' ';
    rewind(f);
    n = symbols_read_kallsyms(f, &t, &hidden);
    fclose(f);
    ok(hidden == zeros && (hidden ? n == 0 : n > 1000),
       "this kernel's kallsyms: %zu functions, %s as its first line says (%.16s)", n,
       hidden ? "hidden" : "shown", first);
    symbols_text_free(t, n);
}

static void check_perf_map(void)
{
    FILE *f = text("7f0000001000 100 js:foo\n"
                   "7f0000001100 80 LazyCompile:*bar app.js:10\r\n"
                   "7f0000001000 40 js:newer_over_foo\n"
                   "nonsense\n"
                   "7f0000002000 0 zero_size\n"
                   "ffffffffffffff00 1000 wraps\n"
                   "7f0000003000 10\n");
    struct symbols_text *t;
    size_t n = symbols_read_perf_map(f, &t);
    fclose(f);
    is_u64(n, 2, "perf map: bad, empty and overlapped lines dropped");
    bool two = n == 2; /* the checks below read t[0..1] only then, and fail otherwise */
    is_str(two ? t[0].name : NULL, "js:newer_over_foo",
           "perf map: a later line replaces the one it overlaps");
    ok(two && t[0].start == 0x7f0000001000 && t[0].end == 0x7f0000001040,
       "perf map: START SIZE in hex");
    is_str(two ? t[1].name : NULL, "LazyCompile:*bar app.js:10",
           "perf map: names keep their blanks");
    symbols_text_free(t, n);
}

int main(void)
{
    plan(25);
    check_demangle();
    check_kallsyms();
    check_perf_map();
    return tap_done();
}
