#include "config.h"

#include "util/xmalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *xmalloc_what; /* what is being allocated, for the message */

const char *xmalloc_for(const char *what)
{
    const char *before = xmalloc_what;
    xmalloc_what = what;
    return before;
}

/* Running out of memory is the one error we do not try to survive, but it
 * is an error, not a crash: one line and exit status 1, never a core dump.
 * exit() runs the atexit handlers, so a screen in use is given back. */
static void __attribute__((noreturn)) xmalloc_fail(size_t nmemb, size_t size)
{
    char msg[192];
    unsigned long long n;
    if (__builtin_mul_overflow((unsigned long long)nmemb, (unsigned long long)size, &n))
        snprintf(msg, sizeof msg, "profil: out of memory (%zu x %zu bytes%s%s)\n", nmemb, size,
                 xmalloc_what ? " for " : "", xmalloc_what ? xmalloc_what : "");
    else if (n == 0) /* vasprintf: it does not say how much */
        snprintf(msg, sizeof msg, "profil: out of memory%s%s%s\n", xmalloc_what ? " (for " : "",
                 xmalloc_what ? xmalloc_what : "", xmalloc_what ? ")" : "");
    else
        snprintf(msg, sizeof msg, "profil: out of memory (%llu bytes%s%s)\n", n,
                 xmalloc_what ? " for " : "", xmalloc_what ? xmalloc_what : "");
    ssize_t r = write(STDERR_FILENO, msg, strlen(msg));
    (void)r;
    exit(1);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        xmalloc_fail(1, size);
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (p == NULL)
        xmalloc_fail(nmemb, size);
    return p;
}

/* libiberty's demangler calls xmalloc, xrealloc and xstrdup and lets the
 * program provide them: these, so that its own xmalloc.o is never linked. */
void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (p == NULL)
        xmalloc_fail(1, size);
    return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
    void *p = reallocarray(ptr, nmemb ? nmemb : 1, size ? size : 1);
    if (p == NULL)
        xmalloc_fail(nmemb, size);
    return p;
}

void *xgrowarray(void *ptr, size_t *alloc, size_t need, size_t size)
{
    if (ptr != NULL && need <= *alloc)
        return ptr;
    size_t n = *alloc > 4 ? *alloc : 4;
    while (n < need)
        n = n <= SIZE_MAX / 2 ? 2 * n : need;
    ptr = xreallocarray(ptr, n, size);
    *alloc = n;
    return ptr;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (p == NULL)
        xmalloc_fail(1, strlen(s) + 1);
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (p == NULL)
        xmalloc_fail(1, n + 1);
    return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *p;
    if (vasprintf(&p, fmt, ap) < 0)
        xmalloc_fail(1, 0);
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = xvasprintf(fmt, ap);
    va_end(ap);
    return p;
}
