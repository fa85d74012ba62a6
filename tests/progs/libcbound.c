/* libcbound.c - spends nearly all of its time inside libc string routines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_SIZE (1024 * 1024)
#define DEFAULT_ROUNDS 8600

static volatile uint64_t sink;

/* Run one round of big-buffer libc calls and fold results into a checksum. */
__attribute__((noinline)) static uint64_t libc_round(char *a, char *b, long r)
{
    uint64_t sum = 0;
    char *hit;

    memset(a, 'a' + (int)(r % 26), BUF_SIZE - 1);
    a[BUF_SIZE - 1] = '\0';
    memcpy(b, a, BUF_SIZE);
    sum += strlen(b);
    hit = memchr(b, 'Z', BUF_SIZE);
    sum += hit ? (uint64_t)(hit - b) : 1;
    sum += (uint64_t)(memcmp(a, b, BUF_SIZE) == 0);
    sum += (uint64_t)(strchr(a, 'Z') == NULL);
    return sum;
}

/* Repeat libc-heavy rounds and print a checksum so nothing is elided. */
int main(int argc, char **argv)
{
    long rounds = DEFAULT_ROUNDS;
    uint64_t sum = 0;
    char *a, *b;
    long r;

    if (argc > 1)
        rounds = strtol(argv[1], NULL, 10);
    a = malloc(BUF_SIZE);
    b = malloc(BUF_SIZE);
    if (a == NULL || b == NULL) {
        perror("malloc");
        return 1;
    }
    printf("libcbound: %ld rounds over %d-byte buffers\n", rounds, BUF_SIZE);
    fflush(stdout);
    for (r = 0; r < rounds; r++)
        sum += libc_round(a, b, r);
    sink = sum;
    printf("libcbound: checksum %llu\n", (unsigned long long)sum);
    free(a);
    free(b);
    return 0;
}
