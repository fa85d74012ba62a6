#include "config.h"

#include "util/files.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <sys/stat.h>

void files_mkdirs(const char *dir)
{
    char *copy = xstrdup(dir);
    for (char *p = copy + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(copy, 0700);
            *p = '/';
        }
    }
    mkdir(copy, 0700);
    free(copy);
}
