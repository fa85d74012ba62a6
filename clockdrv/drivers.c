#include "config.h"

#include "clockdrv/drivers.h"
#include "clockdrv/perf.h"
#include "clockdrv/ptrace.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

/* In the order "auto" tries them. */
static const struct clockdrv_ops *const clockdrv_table[] = {
    &clockdrv_perf_ops,
    &clockdrv_ptrace_ops,
};

#define CLOCKDRV_COUNT (sizeof clockdrv_table / sizeof clockdrv_table[0])

const struct clockdrv_ops *clockdrv_find(const char *name)
{
    for (size_t i = 0; i < CLOCKDRV_COUNT; i++) {
        if (strcmp(clockdrv_table[i]->name, name) == 0)
            return clockdrv_table[i];
    }
    return NULL;
}

const struct clockdrv_ops *clockdrv_choose(const struct clockdrv_config *cfg, char **cause)
{
    char *why = NULL;
    for (size_t i = 0; i < CLOCKDRV_COUNT; i++) {
        char *c = NULL;
        if (clockdrv_table[i]->probe(cfg, &c) == 0) {
            free(why);
            return clockdrv_table[i];
        }
        char *joined = why ? xasprintf("%s; %s", why, c) : xstrdup(c);
        free(why);
        free(c);
        why = joined;
    }
    *cause = xasprintf("no clock driver can run here: %s", why ? why : "none built in");
    free(why);
    return NULL;
}
