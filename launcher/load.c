/* Reading a session file for a mode, with the options every mode shares. */
#include "config.h"

#include "launcher/launcher.h"
#include "prf/prf.h"
#include "session/view.h"
#include "util/quote.h"

#include <stdio.h>
#include <stdlib.h>

/* Read the session file PATH, or say in one line why not. */
struct session *launcher_read(const char *path, const struct options *o)
{
    char *cause = NULL;
    struct session *s = prf_read_file(path, &cause);
    if (s == NULL) {
        fprintf(stderr, "profil: %s\n", quote(cause)); /* it may quote the file */
        free(cause);
    } else {
        s->raw_names = o->no_demangle;
        if (o->on_cpu)
            session_oncpu_set(s, true);
    }
    return s;
}
