/* The program's output as lines, kept for the output view: a bounded
 * scroll-back that understands \n, \r, \b and \t and drops escape sequences,
 * so nothing the program prints can tear profil's screen. */
#ifndef PROFIL_OUTBUF_H
#define PROFIL_OUTBUF_H

#include <stddef.h>
#include <stdint.h>

struct outbuf {
    char **lines; /* ring of max_lines owned strings */
    size_t max_lines;
    size_t first;     /* index of the oldest line in the ring */
    size_t count;     /* lines in the ring, the last one being built */
    size_t col;       /* cursor column in the last line */
    int esc;          /* escape-sequence state */
    uint64_t total;   /* bytes ever fed */
    uint64_t dropped; /* lines pushed out of the ring */
};

struct outbuf *outbuf_new(size_t max_lines);
void outbuf_free(struct outbuf *ob);

/* Take N bytes the program wrote. */
void outbuf_feed(struct outbuf *ob, const char *data, size_t n);

/* Line I (0 = oldest kept); borrowed until the next feed. */
const char *outbuf_line(const struct outbuf *ob, size_t i);

#endif
