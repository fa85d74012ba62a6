/*
 * One function, two loops on known lines: the first does three times the
 * work of the second, so a line profile gives 75 % and 25 %.  The tests find
 * the lines by their markers.  Usage: lines [ROUNDS] (10 million steps a round
 * on average).  Rounds are of random lengths, with the 3:1 split in each, so
 * that no sampling period can fall in step with them.
 */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(long n)
{
    unsigned long a = 1, b = 2;
    for (long i = 0; i < 3 * n; i++) a = a * 2862933555777941757ul + 3037000493ul; /* LOOP75 */
    for (long i = 0; i < n; i++) b = b * 2862933555777941757ul + 3037000493ul; /* LOOP25 */
    sink = a + b;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 30;
    srand(1);
    for (long r = 0; r < rounds; r++)
        work(5000000 + rand() % 10000000);
    return 0;
}
