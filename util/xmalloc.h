/* Allocation that fails only when memory runs out: then it says
 * "profil: out of memory (N bytes for WHAT)" and exits with status 1. */
#ifndef PROFIL_XMALLOC_H
#define PROFIL_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
/* PTR with room for at least NEED elements of SIZE; *ALLOC is the room it
 * has (0 when unknown) and is updated.  Grows by doubling: an array that
 * gains N elements one at a time is copied O(N) times in all, not O(N^2)
 * (realloc cannot always grow in place; under ASan it never does). */
void *xgrowarray(void *ptr, size_t *alloc, size_t need, size_t size);
/* Name what the allocations from now on are for ("the TIME chunk"), for
 * that message: a string that outlives them, or NULL.  Returns the previous
 * name, so that a caller can put it back. */
const char *xmalloc_for(const char *what);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
