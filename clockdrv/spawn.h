/* Starting the program: fork, hold it before exec while a driver attaches,
 * then let it exec and learn whether exec worked. */
#ifndef PROFIL_SPAWN_H
#define PROFIL_SPAWN_H

#include "clockdrv/clockdrv.h"

#include <sys/types.h>

struct spawn {
    pid_t pid;
    int go_fd;  /* write end: a byte lets the child exec */
    int err_fd; /* read end: errno from a failed exec, or EOF on success */
};

/* Fork the child; it waits, with default signal dispositions, for spawn_go. */
int spawn_prepare(struct spawn *sp, const struct launch *l, char **cause);

/* Let the child exec.  0 once exec has happened, or -errno with *cause. */
int spawn_go(struct spawn *sp, const struct launch *l, char **cause);

/* Kill and reap a child that will not be run after all. */
void spawn_abort(struct spawn *sp);

#endif
