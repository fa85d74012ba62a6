#include "config.h"

#include "xmalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Running out of memory is the one error we do not try to survive. */
static void __attribute__((noreturn)) xmalloc_fail(void)
{
    static const char msg[] = "profil: out of memory\n";
    ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)r;
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        xmalloc_fail();
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (p == NULL)
        xmalloc_fail();
    return p;
}

/* libiberty's demangler calls xmalloc, xrealloc and xstrdup and lets the
 * program provide them: these, so that its own xmalloc.o is never linked. */
void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (p == NULL)
        xmalloc_fail();
    return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
    void *p = reallocarray(ptr, nmemb ? nmemb : 1, size ? size : 1);
    if (p == NULL)
        xmalloc_fail();
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
        xmalloc_fail();
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (p == NULL)
        xmalloc_fail();
    return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *p;
    if (vasprintf(&p, fmt, ap) < 0)
        xmalloc_fail();
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
