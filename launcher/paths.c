/* Paths: finding the program as a shell would, the output's name, and
 * whether an output may be written where it would go. */
#include "config.h"

#include "launcher/launcher.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *launcher_resolve(const char *program)
{
    struct stat st;
    if (strchr(program, '/') != NULL)
        return stat(program, &st) == 0 ? xstrdup(program) : NULL;
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    /* PATH only, as the shell looks (PROFIL also ran NAME from the current
     * directory, so that a mistyped command ran a file planted there); an
     * empty entry is the current directory, as it is for the shell. */
    for (const char *dir = path;;) {
        size_t n = strcspn(dir, ":");
        char *cand =
            n == 0 ? xasprintf("./%s", program) : xasprintf("%.*s/%s", (int)n, dir, program);
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
            return cand;
        free(cand);
        if (dir[n] == '\0')
            return NULL;
        dir += n + 1;
    }
}

char *launcher_output_name(const struct options *o, const char *program, long pid)
{
    if (o->output != NULL)
        return xstrdup(o->output);
    const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    const char *dot = strrchr(base, '.');
    size_t stem = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
    const char *dir = getenv("PROFDIR");
    if (dir != NULL && *dir != '\0') {
        if (pid > 0)
            return xasprintf("%s/%ld.%.*s.PRF", dir, pid, (int)stem, base);
        return xasprintf("%s/PID.%.*s.PRF", dir, (int)stem, base);
    }
    return xasprintf("%.*s.PRF", (int)stem, base);
}

int launcher_check_output(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return -EISDIR;
    char *copy = xstrdup(path);
    char *probe = xasprintf("%s/.profil-probe.XXXXXX", dirname(copy));
    free(copy);
    int fd = mkostemp(probe, O_CLOEXEC);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    free(probe);
    return -err;
}

bool launcher_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int launcher_refuse_same(const char *output, const char *input, const char *role)
{
    if (strcmp(output, "-") == 0 || !launcher_same_file(output, input))
        return 0;
    if (strcmp(output, input) == 0)
        fprintf(stderr, "profil: %s: the output is %s: refusing to replace it (name another -o)\n",
                output, role);
    else
        fprintf(stderr,
                "profil: %s: the output is %s (%s): refusing to replace it (name another -o)\n",
                output, role, input);
    return 2;
}
