# gen.sh - the generated programs of the scale benchmarks; sourced by run.sh.
# Each gen_* function writes its sources into a directory and builds them
# there with $CC (at -O0, so that every function stays a function).  Sources
# and builds are fast; the build of the 100,000 functions takes the longest
# (two compilers at a time).

# gen_100k DIR: DIR/big100k, 100,000 functions f000000..f099999 of a few
# instructions each, called at random through a table for SECONDS (argv[1]).
gen_100k() {
    _d=$1
    mkdir -p "$_d"
    awk -v dir="$_d" 'BEGIN {
        n = 100000; parts = 4
        h = dir "/funcs.h"
        for (i = 0; i < n; i++)
            printf "int f%06d(int x);\n", i > h
        close(h)
        for (p = 0; p < parts; p++) {
            f = dir "/funcs" p ".c"
            printf "#include \"funcs.h\"\n" > f
            for (i = p * n / parts; i < (p + 1) * n / parts; i++)
                printf "int f%06d(int x) { return x * 3 + %d; }\n", i, i % 1000 > f
            close(f)
        }
        t = dir "/table.c"
        printf "#include \"funcs.h\"\nint (*const big_table[%d])(int) = {\n", n > t
        for (i = 0; i < n; i++)
            printf "f%06d,\n", i > t
        printf "};\n" > t
        close(t)
    }'
    cat >"$_d/main.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define N 100000
extern int (*const big_table[N])(int);
int main(int argc, char **argv)
{
    double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0, t;
    struct timespec a, b;
    unsigned k = 12345;
    int x = 1;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        for (int i = 0; i < 65536; i++) {
            k = k * 1103515245u + 12345u;
            x = big_table[(k >> 8) % N](x);
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    } while (t < secs);
    printf("big100k: %.2f s, x=%d\n", t, x);
    return 0;
}
EOF
    (cd "$_d" &&
        { $CC -O0 -c funcs0.c & $CC -O0 -c funcs1.c & wait; } &&
        { $CC -O0 -c funcs2.c & $CC -O0 -c funcs3.c & wait; } &&
        $CC -O0 -c table.c && $CC -O0 -o big100k main.c table.o funcs0.o funcs1.o funcs2.o funcs3.o &&
        rm -f funcs*.o table.o)
}

# gen_libs50 DIR: DIR/libs50, linked with 50 shared libraries libb00..libb49
# of 200 functions each (bNN_fMMM), calling into every one for SECONDS.
gen_libs50() {
    _d=$1
    mkdir -p "$_d"
    awk -v dir="$_d" 'BEGIN {
        for (l = 0; l < 50; l++) {
            f = sprintf("%s/b%02d.c", dir, l)
            for (i = 0; i < 200; i++)
                printf "int b%02d_f%03d(int x) { return x * 3 + %d; }\n", l, i, i > f
            printf "static int (*const t[200])(int) = {\n" > f
            for (i = 0; i < 200; i++)
                printf "b%02d_f%03d,\n", l, i > f
            printf "};\nint b%02d_entry(unsigned k, int x) { return t[k %% 200](x); }\n", l > f
            close(f)
        }
        m = dir "/main.c"
        printf "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n" > m
        for (l = 0; l < 50; l++)
            printf "int b%02d_entry(unsigned k, int x);\n", l > m
        printf "static int (*const entries[50])(unsigned, int) = {\n" > m
        for (l = 0; l < 50; l++)
            printf "b%02d_entry,\n", l > m
        printf "};\n" > m
        close(m)
    }'
    cat >>"$_d/main.c" <<'EOF'
int main(int argc, char **argv)
{
    double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0, t;
    struct timespec a, b;
    unsigned k = 12345;
    int x = 1;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        for (int i = 0; i < 65536; i++) {
            k = k * 1103515245u + 12345u;
            x = entries[(k >> 8) % 50](k >> 16, x);
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    } while (t < secs);
    printf("libs50: %.2f s, x=%d\n", t, x);
    return 0;
}
EOF
    (cd "$_d" && for l in $(seq -w 0 49); do
        $CC -O0 -fPIC -shared -o "libb$l.so" "b$l.c" || exit 1
    done && $CC -O0 -o libs50 main.c -L. $(for l in $(seq -w 0 49); do printf ' -lb%s' "$l"; done) \
        -Wl,-rpath,'$ORIGIN')
}

# gen_big1m DIR: DIR/big1m, whose code spans 16 MiB: 65,536 functions
# g00000..g65535 of 256 bytes each (255 nops and a ret), called at random
# for SECONDS.  At 1 paragraph per bucket that is 1,048,576 buckets and more.
gen_big1m() {
    _d=$1
    mkdir -p "$_d"
    awk 'BEGIN {
        print "\t.text\n\t.p2align 8\n\t.globl g_base\ng_base:"
        for (i = 0; i < 65536; i++) {
            printf "\t.globl g%05d\n\t.type g%05d, @function\ng%05d:\n", i, i, i
            printf "\t.fill 255,1,0x90\n\tret\n\t.size g%05d, .-g%05d\n", i, i
        }
        print "\t.section .note.GNU-stack,\"\",@progbits"
    }' >"$_d/funcs.s"
    cat >"$_d/main.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
extern const char g_base[];
int main(int argc, char **argv)
{
    double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0, t;
    struct timespec a, b;
    unsigned k = 12345;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        for (int i = 0; i < 4096; i++) {
            k = k * 1103515245u + 12345u;
            ((void (*)(void))(g_base + 256 * ((k >> 8) % 65536)))();
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    } while (t < secs);
    printf("big1m: %.2f s\n", t);
    return 0;
}
EOF
    (cd "$_d" && $CC -O0 -o big1m main.c funcs.s)
}

# gen_lines100k DIR: DIR/lines100k, built from one C file of 100,000 lines
# (lines100k.c) at -O2 -g, as a user builds a program to read its lines:
# 3,839 functions f0000..f3839 (f1920 is missing) of 25 lines each that call
# small static inline helpers (inline chains at most of their PCs), and in
# the middle of the file, where f1920 would be, one hot function, hot(), with
# an inlined helper of its own.  Run for SECONDS (argv[1]), main gives about
# half its time to hot() and half to random calls through a table of every
# other function: many distinct PCs.
gen_lines100k() {
    _d=$1
    mkdir -p "$_d"
    awk -v out="$_d/lines100k.c" 'BEGIN {
        n = 3840; hot = n / 2
        printf "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n" > out
        for (k = 0; k < 8; k++)
            printf "static inline int mix%d(int v) { return (v << %d) ^ (v >> %d) ^ %d; }\n", k, k + 1, 7 - k, k * 97 > out
        lines = 11
        for (i = 0; i < n; i++) {
            if (i == hot) {
                print "static inline unsigned hot_step(unsigned v, unsigned k)" > out
                print "{" > out
                print "    v ^= v >> 13;" > out
                print "    v *= 0x5bd1e995u;        /* HOTSTEP */" > out
                print "    return v ^ (v >> 15) ^ k;" > out
                print "}" > out
                print "" > out
                print "__attribute__((noinline)) unsigned hot(unsigned n)" > out
                print "{" > out
                print "    unsigned a = 1, b = 2;" > out
                print "    for (unsigned i = 0; i < n; i++) {" > out
                print "        a = a * 1103515245u + 12345u;     /* HOT1 */" > out
                print "        b ^= hot_step(a, i);              /* HOT2 */" > out
                print "        if (a & 0x100)" > out
                print "            b += a >> 3;                  /* HOT3 */" > out
                print "    }" > out
                print "    return a ^ b;" > out
                print "}" > out
                print "" > out
                lines += 19
                continue
            }
            printf "__attribute__((noinline)) int f%04d(int x)\n", i > out
            print "{" > out
            printf "    int s = x + %d;\n", i > out
            print "    for (int i = 0; i < 4; i++) {" > out
            print "        s = s * 3 + i;" > out
            print "        if (s & 1)" > out
            print "            s ^= 0x5a5a;" > out
            print "        else" > out
            printf "            s += i * %d;\n", i % 1000 > out
            printf "        s = mix%d(s);\n", i % 8 > out
            print "    }" > out
            printf "    if (s > %d)\n", i * 1000 > out
            printf "        s -= mix%d(s >> 2);\n", (i + 3) % 8 > out
            print "    else" > out
            printf "        s += mix%d(s << 1);\n", (i + 5) % 8 > out
            print "    switch (s & 3) {" > out
            print "    case 0: s += 1; break;" > out
            print "    case 1: s ^= 2; break;" > out
            print "    case 2: s -= 3; break;" > out
            print "    default: s = ~s; break;" > out
            print "    }" > out
            print "    return s;" > out
            print "}" > out
            print "" > out
            print "" > out
            lines += 25
        }
        printf "int (*const table[%d])(int) = {\n", n > out
        for (i = 0; i < n; i++)
            if (i != hot)
                printf "    f%04d,\n", i > out
        printf "};\n" > out
        lines += n + 1
        print "int main(int argc, char **argv)" > out
        print "{" > out
        print "    double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0, t;" > out
        print "    struct timespec a, b;" > out
        print "    unsigned k = 12345, h = 0;" > out
        print "    int x = 1;" > out
        print "    clock_gettime(CLOCK_MONOTONIC, &a);" > out
        print "    do {" > out
        print "        h += hot(60000 + (h & 1));         /* not hoisted: hot() is pure */" > out
        printf "        for (int i = 0; i < 2000; i++) {\n" > out
        print "            k = k * 1103515245u + 12345u;" > out
        printf "            x = table[(k >> 8) %% %d](x);\n", n - 1 > out
        print "        }" > out
        print "        clock_gettime(CLOCK_MONOTONIC, &b);" > out
        print "        t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;" > out
        print "    } while (t < secs);" > out
        print "    fprintf(stderr, \"lines100k: %.2f s, %u %d\\n\", t, h, x);" > out
        print "    return 0;" > out
        print "}" > out
        lines += 19
        for (; lines < 100000; lines++)
            print "/* padding: the file is 100,000 lines long */" > out
        close(out)
    }'
    (cd "$_d" && $CC -O2 -g -o lines100k lines100k.c)
}
