/*
 * The libraries a program will map, as ldd lists them (its dynamic loader,
 * run with --list: nothing of the program runs), so that their debug
 * information is read before the clock starts rather than in the middle of
 * the run: reading libc's takes 45 ms, during which the ptrace driver would
 * not sample and its next sample would stand for all that time.
 */
#include "config.h"

#include "launcher/launcher.h"
#include "session/lines.h"
#include "util/runcmd.h"
#include "util/xmalloc.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The most --list may take: a loader that hangs must not hold profil up. */
#define LIBS_TIMEOUT_MS 2000

/* PATH's PT_INTERP, or NULL (a static program); the caller frees. */
static char *libs_interp(const char *path)
{
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    size_t n = 0;
    char *interp = NULL;
    if (elf != NULL && elf_getphdrnum(elf, &n) == 0) {
        for (size_t i = 0; i < n && interp == NULL; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_INTERP ||
                ph.p_filesz == 0 || ph.p_filesz > PATH_MAX)
                continue;
            char *buf = xcalloc(ph.p_filesz + 1, 1);
            if (pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz &&
                buf[0] == '/')
                interp = buf;
            else
                free(buf);
        }
    }
    if (elf != NULL)
        elf_end(elf);
    close(fd);
    return interp;
}

/* What INTERP --list PATH prints, up to 64 KiB; NULL when it cannot run. */
static char *libs_list(const char *interp, const char *path)
{
    char *argv[] = {(char *)interp, (char *)"--list", (char *)path, NULL};
    pid_t pid;
    int fd = spawn_reader(argv, false, &pid);
    if (fd < 0)
        return NULL;
    size_t len = 0, cap = 65536;
    char *out = xmalloc(cap + 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        struct pollfd p = {fd, POLLIN, 0};
        if (ms >= LIBS_TIMEOUT_MS || poll(&p, 1, (int)(LIBS_TIMEOUT_MS - ms)) <= 0)
            break;
        ssize_t got = read(fd, out + len, cap - len);
        if (got <= 0)
            break;
        len += (size_t)got;
        if (len == cap)
            break;
    }
    close(fd);
    kill(pid, SIGKILL); /* done or too slow: it has nothing more to say */
    waitpid(pid, NULL, 0);
    out[len] = '\0';
    return out;
}

void launcher_open_libraries(struct session *s, const char *path)
{
    char *interp = libs_interp(path);
    char *list = interp != NULL ? libs_list(interp, path) : NULL;
    /* "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)", or the
     * loader itself: "\t/lib64/ld-linux-x86-64.so.2 (0x...)". */
    for (char *line = list, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char *arrow = strstr(line, "=> ");
        char *p = arrow != NULL ? arrow + 3 : line + strspn(line, " \t");
        char *end = strstr(p, " (0x");
        if (p[0] != '/' || end == NULL)
            continue;
        *end = '\0';
        char real[PATH_MAX];
        /* The kernel names a mapping by its resolved path, as maps shows it. */
        if (realpath(p, real) == NULL || strcmp(real, s->modules[0]->path) == 0)
            continue;
        lines_open(s, session_module(s, real, MODULE_LIBRARY));
    }
    free(list);
    free(interp);
}
