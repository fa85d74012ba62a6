/*
 * The kernel's functions, looked up one PC at a time in a sorted copy of
 * /proc/kallsyms kept for this boot.  The kernel formats its 120,000 lines
 * each time the file is read (60 ms of a short run's 100); the copy is read
 * once per boot and set of modules, and a lookup reads a few of its lines.
 */
#ifndef PROFIL_ELF_KALLSYMS_H
#define PROFIL_ELF_KALLSYMS_H

#include "elf/symbols.h"

#include <stdbool.h>
#include <stdint.h>

struct kallsyms;

/* The copy in DIR (made there, private, when it is missing or was made for
 * another boot, another set of modules or another user), else NULL with
 * *CAUSE (owned): no DIR, /proc/kallsyms unreadable, a copy not profil's
 * own.  *HIDDEN is set when the kernel hides its addresses
 * (kernel.kptr_restrict): then NULL and no cause. */
struct kallsyms *kallsyms_open(const char *dir, bool *hidden, char **cause);

/* A copy already open on FD (taken over): its first line is the key,
 * every other "ADDR t NAME [module]", sorted by ADDR.  NULL when FD is not
 * a regular file or is empty.  Lines that do not parse are no function. */
struct kallsyms *kallsyms_map(int fd);

/* The function PC is in: *OUT its start, its end (where the next one
 * begins), its name and its module (NULL: the kernel's own), owned by the
 * caller (free OUT->name and OUT->owner).  False when PC is in none. */
bool kallsyms_find(const struct kallsyms *k, uint64_t pc, struct symbols_text *out);

void kallsyms_close(struct kallsyms *k);

/* Where the copy is kept: $XDG_CACHE_HOME/profil, else ~/.cache/profil;
 * NULL when there is no home (owned). */
char *kallsyms_dir(void);

#endif
