/* syscalls.c - spends its time in the kernel: small reads and writes on
 * /dev/zero and /dev/null, for about a second (or argv[1] rounds). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 4000000;
    int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
    if (in < 0 || out < 0) {
        perror("syscalls: /dev/zero or /dev/null");
        return 1;
    }
    char buf[64];
    for (long i = 0; i < rounds; i++) {
        if (read(in, buf, sizeof buf) != (ssize_t)sizeof buf ||
            write(out, buf, sizeof buf) != (ssize_t)sizeof buf) {
            perror("syscalls: read or write");
            return 1;
        }
    }
    printf("syscalls: %ld reads and writes\n", rounds);
    return 0;
}
