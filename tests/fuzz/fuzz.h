/*
 * What the fuzz targets share (tests/fuzz/fuzz.c): the entry point that
 * libFuzzer and regress.c call, the verdict a target gives its input (which
 * regress.c compares with the one recorded for a corpus file), the check of
 * a refusal, and the scratch files a reader that wants a file is given.
 */
#ifndef PROFIL_FUZZ_H
#define PROFIL_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One input; 0 always: a finding aborts (or a sanitizer stops the run). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The verdict on the latest input, such as "accepted", "refused" or "12
 * functions": what the reader decided, in words that do not depend on the
 * machine.  The empty string when the target has said none. */
const char *fuzz_verdict(void);
void fuzz_set_verdict(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A reader refused its input: CAUSE (owned, freed here) must be one line of
 * text.  Aborts when it is NULL, empty or holds a newline. */
void fuzz_refused(char *cause);

/* A line of text, as a reason or a name shown on one line must be: aborts,
 * saying WHAT, when TEXT is NULL or holds a newline. */
void fuzz_one_line(const char *what, const char *text);

/* A private directory for this process, made on first use and removed with
 * everything in it at exit: its path. */
const char *fuzz_dir(void);

/* A path in fuzz_dir() (the caller frees it). */
char *fuzz_path(const char *name);

/* Write LEN bytes of DATA to PATH, replacing it (mode 0600); aborts when it
 * cannot: the target cannot do its work. */
void fuzz_write_file(const char *path, const void *data, size_t len);

/* A memory file (memfd) holding exactly LEN bytes of DATA: slot SLOT (0..3)
 * is made on first use and rewritten by every later call.  Its name as a
 * path, "/proc/self/fd/N", is what fopen and open take. */
const char *fuzz_memfd(int slot, const void *data, size_t len);

struct session;

/* A session as a replay starts from, for readers that add to one: a program
 * (not on disk, already "loaded") whose area is 16 buckets at 0x1000, and
 * no samples.  The caller frees it (session_free). */
struct session *fuzz_session(void);

/* Save S as profil does (prf_write_buffer) and read the file back: aborts,
 * saying WHO, when it does not read. */
void fuzz_save_reads_back(struct session *s, const char *who);

#endif
