/* Marks: what the user or the program said at a moment of the run. */
#include "config.h"

#include "session/limits.h"
#include "session/model.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

int session_mark_add(struct session *s, double t_s, const char *text)
{
    if (s->nmarks >= LIMIT_MARKS)
        return -1;
    if (s->nmarks == s->marks_alloc) {
        s->marks_alloc = s->marks_alloc ? 2 * s->marks_alloc : 16;
        s->marks = xrealloc(s->marks, s->marks_alloc * sizeof *s->marks);
    }
    size_t n = strnlen(text, LIMIT_MARK_TEXT);
    while (n > 0 && text[n] != '\0' && ((unsigned char)text[n] & 0xc0) == 0x80)
        n--; /* cut between UTF-8 characters, not inside one */
    char *copy = xstrndup(text, n);
    /* A mark is one line of a report and one label on the screen. */
    for (char *p = copy; *p != '\0'; p++) {
        if ((unsigned char)*p < 32 || *p == 127)
            *p = ' ';
    }
    s->marks[s->nmarks++] = (struct session_mark){t_s > 0 ? t_s : 0, copy};
    return 0;
}

void session_marks_free(struct session *s)
{
    for (size_t i = 0; i < s->nmarks; i++)
        free(s->marks[i].text);
    free(s->marks);
    s->marks = NULL;
    s->nmarks = s->marks_alloc = 0;
}
