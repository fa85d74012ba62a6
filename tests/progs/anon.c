/* anon.c - spends most of its time in code living in anonymous memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define DEFAULT_COUNT 2400000000ULL
#define NATIVE_ITERS 80000000L

typedef void (*countdown_fn)(void);

static volatile uint64_t sink;

/* Burn ~10 % of the run in ordinary file-backed code for contrast. */
__attribute__((noinline)) static void native_work(long iters)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
}

/* Build "mov rcx, imm64; 1: dec rcx; jnz 1b; ret" in a fresh executable page. */
static countdown_fn make_countdown(uint64_t count)
{
    static const unsigned char tail[] = { 0x48, 0xFF, 0xC9, 0x75, 0xFB, 0xC3 };
    unsigned char *p;

    p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    p[0] = 0x48;
    p[1] = 0xB9;
    memcpy(p + 2, &count, sizeof count);
    memcpy(p + 10, tail, sizeof tail);
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
        perror("mprotect");
        exit(1);
    }
    return (countdown_fn)(void *)p;
}

/* Run the generated countdown and say where it lived. */
int main(int argc, char **argv)
{
    uint64_t count = DEFAULT_COUNT;
    countdown_fn fn;

    if (argc > 1)
        count = strtoull(argv[1], NULL, 10);
    if (count == 0)
        count = 1;
    fn = make_countdown(count);
    printf("anon: counting down from %llu in anonymous code at %p\n",
           (unsigned long long)count, (void *)fn);
    fflush(stdout);
    fn();
    native_work(count / (DEFAULT_COUNT / NATIVE_ITERS));
    printf("anon: done (countdown, then native_work for contrast)\n");
    return 0;
}
