/* chain.c - a known call structure for the exports (tests/e2e/exports.sh,
 * callgrind.sh, html.sh): main -> middle -> leaf, nearly all the time in
 * leaf.  "chain ROUNDS evil" also calls, each round, a function whose name
 * would end an HTML page's script, open an element and a comment
 * (html.sh).  noipa keeps every function its own (gcc -O2 would merge
 * identical bodies). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

__attribute__((noinline, noipa)) static void leaf(long n)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    sink = x;
}

__attribute__((noinline, noipa)) static void middle(long n)
{
    leaf(n);
    sink++;
}

/* A name that would end the page's script, open an element and a comment. */
__attribute__((noinline, noipa)) void evil(long n) __asm__("\"</script><p id=pwned>&<!--evil\"");
__attribute__((noinline, noipa)) void evil(long n)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < n; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    sink = x;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
    int with_evil = argc > 2 && strcmp(argv[2], "evil") == 0;
    for (long r = 0; r < rounds; r++) {
        middle(1000000);
        if (with_evil)
            evil(800000);
    }
    printf("chain: %llu\n", (unsigned long long)sink);
    return 0;
}
