/* Putting a file in place (util/save.c): the previous one kept as NAME.old,
 * no failure losing it, a taken name left alone, the mode of the file
 * replaced. */
#include "config.h"

#include "tests/tap.h"
#include "util/save.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole of PATH, or "" when it cannot be read; the caller frees. */
static char *slurp(const char *path)
{
    char *text = calloc(1, 64);
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        fread(text, 1, 63, f);
        fclose(f);
    }
    return text;
}

/* Saving over a session keeps the previous one as NAME.old, and no failure loses it. */
static void test_keep_old(void)
{
    char dir[] = "/tmp/profil-test-XXXXXX";
    if (mkdtemp(dir) == NULL)
        exit(1);
    char path[128], old[160];
    snprintf(path, sizeof path, "%s/s.PRF", dir);
    snprintf(old, sizeof old, "%s.old", path);
    char *cause = NULL, *text;
    bool kept = true;
    ok(save_atomic_keep(path, (const uint8_t *)"one", 3, true, &kept, &cause) == 0 && !kept,
       ".old: nothing to keep the first time");
    ok(access(old, F_OK) < 0, ".old: and no .old made");
    ok(save_atomic_keep(path, (const uint8_t *)"two", 3, true, &kept, &cause) == 0 && kept,
       ".old: the second save keeps the first");
    is_str(text = slurp(old), "one", ".old: NAME.old holds the previous file");
    free(text);
    is_str(text = slurp(path), "two", ".old: NAME the new one");
    free(text);
    ok(save_atomic_keep(path, (const uint8_t *)"three", 5, false, &kept, &cause) == 0 && !kept,
       ".old: a later save of the same run does not keep again");
    is_str(text = slurp(old), "one", ".old: so NAME.old is still the previous run's");
    free(text);

    /* NAME.old cannot be replaced (it is a directory): the save fails, nothing is lost. */
    unlink(old);
    mkdir(old, 0700);
    ok(save_atomic_keep(path, (const uint8_t *)"four", 4, true, &kept, &cause) < 0 && !kept &&
           cause != NULL && strchr(cause, '\n') == NULL && strstr(cause, "cannot keep"),
       ".old: a failure to keep is one clear line: %s", cause ? cause : "");
    free(cause);
    is_str(text = slurp(path), "three", ".old: and the previous file is still in place");
    free(text);
    rmdir(old);
    DIR *d = opendir(dir);
    int left = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        left += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d != NULL)
        closedir(d);
    is_u64(left, 0, ".old: no temporary file is left behind");
    char fresh[168];
    snprintf(fresh, sizeof fresh, "%s.new", path);
    is_str(text = slurp(fresh), "four", ".old: this run went to NAME.new instead");
    free(text);
    unlink(fresh);
    unlink(path);
    ok(rmdir(dir) == 0, ".old: and the directory is left empty");
}

/* SAVE_NEW replaces nothing: a taken name gets a random part; a new
 * file has the umask's mode, a replaced one keeps its own. */
static void test_save_new(void)
{
    char dir[] = "/tmp/profil-test-XXXXXX";
    if (mkdtemp(dir) == NULL)
        exit(1);
    char path[128];
    snprintf(path, sizeof path, "%s/s.PRF", dir);
    char *cause = NULL, *as = NULL, *text;
    bool kept;
    mode_t mask = umask(077);
    ok(save_write(path, (const uint8_t *)"one", 3, SAVE_NEW, &kept, &as, &cause) == 0 &&
           as != NULL && strcmp(as, path) == 0,
       "new: a free name is taken as it is");
    free(as);
    struct stat st;
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "new: umask 077 gives 0600");
    as = NULL; /* freed above; the message below reads the new one */
    int r = save_write(path, (const uint8_t *)"two", 3, SAVE_NEW, &kept, &as, &cause);
    ok(r == 0 && as != NULL && strlen(as) == strlen(path) + 7 &&
           strncmp(as, path, strlen(path) - 4) == 0 && strcmp(as + strlen(as) - 4, ".PRF") == 0,
       "new: a taken name gets a random part: %s", as ? as : "");
    is_str(text = slurp(path), "one", "new: and the file there is left alone");
    free(text);
    is_str(text = as != NULL ? slurp(as) : strdup(""), "two", "new: the new file is under it");
    free(text);
    if (as != NULL)
        unlink(as);
    free(as);
    umask(022);
    ok(save_write(path, (const uint8_t *)"three", 5, 0, &kept, &as, &cause) == 0 &&
           stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
       "mode: a 0600 file replaced under umask 022 stays 0600");
    free(as);
    unlink(path);
    ok(save_write(path, (const uint8_t *)"four", 4, 0, &kept, NULL, &cause) == 0 &&
           stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
       "mode: a new file under umask 022 is 0644");
    umask(mask);
    unlink(path);
    ok(rmdir(dir) == 0, "new: no temporary file is left behind");
}

int main(void)
{
    plan(20);
    test_keep_old();
    test_save_new();
    return tap_done();
}
