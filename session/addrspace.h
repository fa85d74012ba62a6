/*
 * The live address spaces (addrspace.c): each process's executable
 * mappings, as the mmap, fork, exec and exit events give them, and where a
 * user PC lies in them.  Only while ingesting live events.
 */
#ifndef PROFIL_SESSION_ADDRSPACE_H
#define PROFIL_SESSION_ADDRSPACE_H

#include "session/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct unwinder;

/* One executable mapping of a live process. */
struct mapping {
    uint64_t start;
    uint64_t end;
    uint64_t pgoff;
    uint32_t module;
};

/* The executable mappings of one live process, sorted by start. */
struct addrspace {
    uint32_t pid;
    struct mapping *maps;
    size_t nmaps;
    size_t alloc;
    struct unwinder *unwinder; /* made on the first stack to unwind here */
    bool unwind_dirty;         /* the mappings changed since the unwinder saw them */
};

/* The address space of PID, made on first sight when CREATE. */
struct addrspace *session_space(struct session *s, uint32_t pid, bool create);

/* The mapping holding PC, or NULL. */
const struct mapping *addrspace_find(const struct addrspace *as, uint64_t pc);

/* Where user PC of AS lies: its module and file offset, or for anonymous
 * code (or no mapping) [anon] and the address itself; true in that case. */
bool session_user_place(struct session *s, const struct addrspace *as, uint64_t pc,
                        uint32_t *module, uint64_t *offset);

void session_on_mmap(struct session *s, const struct event *ev);
void session_on_fork(struct session *s, const struct event *ev);
/* PID's mappings are gone (an exec), and with REMOVE the space itself (an exit). */
void session_forget_space(struct session *s, uint32_t pid, bool remove);
void session_free_spaces(struct session *s);

#endif
