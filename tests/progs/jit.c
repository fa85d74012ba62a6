/* jit.c - a tiny JIT: it copies two identical loops into anonymous
 * executable memory, names them in /tmp/perf-PID.map as V8 or the JVM's
 * perf-map-agent would, and runs them for 2:1 of its time.  x86-64 only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char loop[] = {0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3};

int main(int argc, char **argv)
{
#if defined(__x86_64__)
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 1200;
    unsigned char *code =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("jit: mmap");
        return 1;
    }
    memcpy(code, loop, sizeof loop);
    memcpy(code + 0x100, loop, sizeof loop);
    if (mprotect(code, 4096, PROT_READ | PROT_EXEC) < 0) {
        perror("jit: mprotect");
        return 1;
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    FILE *map = fopen(path, "w");
    if (map == NULL) {
        perror(path);
        return 1;
    }
    fprintf(map, "%lx %zx LazyCompile:*twice jit.js:1\n", (unsigned long)(uintptr_t)code,
            sizeof loop);
    fprintf(map, "%lx %zx LazyCompile:*once jit.js:9\n", (unsigned long)(uintptr_t)(code + 0x100),
            sizeof loop);
    fclose(map);
    void (*twice)(long) = (void (*)(long))(uintptr_t)code;
    void (*once)(long) = (void (*)(long))(uintptr_t)(code + 0x100);
    for (long r = 0; r < rounds; r++) {
        twice(2000000);
        once(1000000);
    }
    printf("jit: %ld rounds, map in %s\n", rounds, path);
    return 0;
#else
    (void)argc;
    (void)argv;
    fprintf(stderr, "jit: x86-64 only\n");
    return 77;
#endif
}
