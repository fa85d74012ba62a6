#include "config.h"

#include "util/save.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Keep the regular file PATH as PATH.old, replacing an older one: 0 (with
 * *KEPT), or an errno.  A hard link leaves PATH in place until the new file
 * replaces it, so a failure at any step loses nothing; a file system without
 * links gets a rename, which *MOVED reports so that it can be undone. */
static int save_keep_old(const char *path, const char *tmp, bool *kept, bool *moved)
{
    struct stat st;
    if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return 0; /* nothing to keep */
    char *old = xasprintf("%s.old", path), *link_tmp = xasprintf("%s.old", tmp);
    int err = 0;
    if (link(path, link_tmp) == 0) {
        if (rename(link_tmp, old) < 0) {
            err = errno;
            unlink(link_tmp);
        }
    } else if (rename(path, old) == 0) {
        *moved = true;
    } else {
        err = errno;
    }
    *kept = err == 0;
    free(old);
    free(link_tmp);
    return err;
}

int save_atomic(const char *path, const uint8_t *data, size_t len, char **cause)
{
    bool kept;
    return save_write(path, data, len, 0, &kept, NULL, cause);
}

int save_atomic_keep(const char *path, const uint8_t *data, size_t len, bool keep_old, bool *kept,
                     char **cause)
{
    return save_write(path, data, len, keep_old ? SAVE_KEEP_OLD : 0, kept, NULL, cause);
}

/* The mode of the file about to be written at PATH: that of the regular file
 * it REPLACEs (a 0600 session stays private), else what the umask leaves of
 * 0666, as for any file a program creates. */
static mode_t save_file_mode(const char *path, bool replace)
{
    struct stat st;
    if (replace && stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 0777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* Whether another user could take PATH's name before this one: its
 * directory DIR is sticky (/tmp, a shared PROFDIR), where a file that user
 * made at the name could neither be replaced nor removed, and PATH is not
 * already a file of ours. */
static bool save_name_contested(const char *dir, const char *path)
{
    struct stat st;
    if (stat(dir, &st) < 0 || !(st.st_mode & S_ISVTX))
        return false;
    return lstat(path, &st) < 0 || st.st_uid != geteuid();
}

/* PATH with a random part before its .PRF (or at its end): NAME.x7Kq2b.PRF.
 * The caller frees. */
static char *save_random_name(const char *path)
{
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[6];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20) ^ (uintptr_t)r;
        for (size_t i = 0; i < sizeof r; i++, x = x * 6364136223846793005u + 1442695040888963407u)
            r[i] = (unsigned char)(x >> 33);
    }
    char part[sizeof r + 1];
    for (size_t i = 0; i < sizeof r; i++)
        part[i] = set[r[i] % (sizeof set - 1)];
    part[sizeof r] = '\0';
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strlen(path);
    if (strlen(base) > 4 && strcasecmp(path + n - 4, ".PRF") == 0)
        return xasprintf("%.*s.%s%s", (int)(n - 4), path, part, path + n - 4);
    return xasprintf("%s.%s", path, part);
}

/* Give the written temporary file TMP a name of its own that no other file
 * has: PATH, else PATH with a random part, never replacing a file.  A hard
 * link takes the name as O_EXCL would, with the whole file already there;
 * where there are no links, the name is taken with O_EXCL and the file
 * renamed onto it.  0 with *CHOSEN (owned), or an errno. */
#define SAVE_NAME_TRIES 100
static int save_place_new(const char *tmp, const char *path, char **chosen)
{
    for (int i = 0; i < SAVE_NAME_TRIES; i++) {
        char *cand = i == 0 ? xstrdup(path) : save_random_name(path);
        int err = link(tmp, cand) == 0 ? 0 : errno;
        if (err == 0) {
            unlink(tmp);
        } else if (err != EEXIST) {
            int fd = open(cand, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            err = fd < 0 ? errno : 0;
            if (fd >= 0) {
                close(fd);
                if (rename(tmp, cand) < 0) {
                    err = errno;
                    unlink(cand);
                }
            }
        }
        if (err == 0) {
            *chosen = cand;
            return 0;
        }
        free(cand);
        if (err != EEXIST)
            return err;
    }
    return EEXIST;
}

/* What the non-regular file of mode MODE is, for a message. */
static const char *save_kind(mode_t mode)
{
    return S_ISFIFO(mode)                   ? "a FIFO"
           : S_ISCHR(mode) || S_ISBLK(mode) ? "a device"
           : S_ISSOCK(mode)                 ? "a socket"
                                            : "not a file";
}

/* Whether NAME is in /dev itself, where /dev/stdout and its like are links
 * (to /proc/self/fd/1: a regular file when standard output is one) that a
 * rename would replace for everyone. */
static bool save_in_dev(const char *name)
{
    char *copy = xstrdup(name);
    char *dir = realpath(dirname(copy), NULL);
    bool yes = dir != NULL && strcmp(dir, "/dev") == 0;
    free(dir);
    free(copy);
    return yes;
}

/* Whether the file of mode MODE at the output's name NAME is written into
 * rather than replaced, under FLAGS: a FIFO, a character device, a name in
 * /dev for a regular file (/dev/stdout); never a disk. */
static bool save_through(const char *name, mode_t mode, unsigned flags)
{
    return (flags & SAVE_THROUGH) &&
           (S_ISFIFO(mode) || S_ISCHR(mode) || (S_ISREG(mode) && save_in_dev(name)));
}

/* Whether NAME (PATH, or its .old) is something other than a regular file
 * or a directory (whose own refusal, EISDIR, says why), or a name in /dev:
 * 0, or -EEXIST with *CAUSE. */
static int save_check_one(const char *path, const char *name, unsigned flags, char **cause)
{
    struct stat st;
    if (lstat(name, &st) < 0)
        return 0; /* nothing there */
    bool dev = save_in_dev(name), target = stat(name, &st) == 0;
    if (dev ? save_through(name, st.st_mode, flags)
            : !target || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
                  save_through(name, st.st_mode, flags))
        return 0; /* a link to nothing is replaced: the link, not what it names */
    const char *kind = target && !S_ISREG(st.st_mode) ? save_kind(st.st_mode) : NULL;
    if (kind == NULL) /* /dev/stdout onto a regular file */
        *cause = xasprintf("%s: a name in /dev, not a file of its own: will not replace it", name);
    else if (strcmp(name, path) == 0)
        *cause = xasprintf("%s: not a regular file (%s): will not replace it", path, kind);
    else
        *cause = xasprintf("%s: %s is not a regular file (%s): will not replace it to keep the "
                           "previous file",
                           path, name, kind);
    return -EEXIST;
}

int save_check(const char *path, unsigned flags, char **cause)
{
    char *copy = xstrdup(path);
    bool contested = save_name_contested(dirname(copy), path);
    free(copy);
    if ((flags & SAVE_NEW) || contested)
        return 0; /* replaces nothing: another name is taken */
    int r = save_check_one(path, path, flags, cause);
    if (r == 0 && (flags & SAVE_KEEP_OLD)) {
        char *old = xasprintf("%s.old", path);
        r = save_check_one(path, old, 0, cause);
        free(old);
    }
    return r;
}

/* Write LEN bytes of DATA into the FIFO, character device or name in /dev
 * PATH, as `>` would: 0, 1 when PATH turned out to be a regular file after all (it is
 * then replaced as one), or -errno with *CAUSE.  A FIFO waits for its
 * reader, as it does for the shell. */
static int save_write_through(const char *path, const uint8_t *data, size_t len, char **cause)
{
    /* /dev/stdout onto a regular file: emptied first, as tee does. */
    bool dev = save_in_dev(path);
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (dev ? O_TRUNC : 0));
    struct stat st;
    int err = fd < 0 ? errno : 0;
    if (err == 0 && fstat(fd, &st) < 0)
        err = errno;
    if (err == 0 && !dev && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
        close(fd);
        return 1;
    }
    for (size_t done = 0; err == 0 && done < len;) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            err = w < 0 ? errno : ENOSPC;
        else
            done += (size_t)w;
    }
    if (fd >= 0 && close(fd) < 0 && err == 0)
        err = errno;
    if (err != 0)
        *cause = xasprintf("%s: cannot write: %s", path, strerror(err));
    return -err;
}

/* Make a rename in DIR last: the directory's own entry is flushed too. */
static void save_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int save_write(const char *path, const uint8_t *data, size_t len, unsigned flags, bool *kept,
               char **saved_as, char **cause)
{
    bool moved = false;
    *kept = false;
    if (saved_as != NULL)
        *saved_as = NULL;
    struct stat st;
    if (!(flags & SAVE_NEW) && stat(path, &st) == 0 && save_through(path, st.st_mode, flags)) {
        int r = save_write_through(path, data, len, cause);
        if (r <= 0) {
            if (r == 0 && saved_as != NULL)
                *saved_as = xstrdup(path);
            return r;
        }
    }
    int refused = save_check(path, flags, cause);
    if (refused < 0)
        return refused;
    char *copy = xstrdup(path);
    char *dir = xstrdup(dirname(copy));
    free(copy);
    char *tmp = xasprintf("%s/.%s.XXXXXX", dir, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    /* Never over a file another user may have put in our way. */
    bool place_new = (flags & SAVE_NEW) || save_name_contested(dir, path);
    mode_t mode = save_file_mode(path, !place_new);
    int err = 0;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        *cause = xasprintf("%s: Cannot open output file (%s)", path, strerror(err));
        free(tmp);
        free(dir);
        return -err;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    if (err == 0 && fchmod(fd, mode) < 0)
        err = errno;
    if (err == 0 && fsync(fd) < 0)
        err = errno;
    if (close(fd) < 0 && err == 0)
        err = errno;
    char *chosen = NULL;
    if (err == 0 && place_new) {
        err = save_place_new(tmp, path, &chosen);
        goto out;
    }
    if (err == 0 && (flags & SAVE_KEEP_OLD) &&
        (err = save_keep_old(path, tmp, kept, &moved)) != 0) {
        /* Neither file may be lost: the new one goes beside the old, as .new. */
        char *fresh = xasprintf("%s.new", path);
        if (link(tmp, fresh) == 0) {
            *cause = xasprintf("%s: cannot keep the previous file as %s.old (%s): this run is "
                               "saved as %s",
                               path, path, strerror(err), fresh);
            unlink(tmp);
        } else { /* no links here, or a .new already: the temporary file stays */
            *cause = xasprintf("%s: cannot keep the previous file as %s.old (%s): this run is "
                               "saved as %s",
                               path, path, strerror(err), tmp);
        }
        save_sync_dir(dir);
        free(fresh);
        free(tmp);
        free(dir);
        return -err;
    }
    if (err == 0 && rename(tmp, path) < 0) {
        err = errno;
        if (moved) { /* put the previous file back where it was */
            char *old = xasprintf("%s.old", path);
            rename(old, path);
            free(old);
            *kept = false;
        }
    }
    if (err == 0)
        chosen = xstrdup(path);
out:
    if (err != 0) {
        unlink(tmp);
        *cause = xasprintf("%s: cannot write the profile: %s", path, strerror(err));
    } else {
        save_sync_dir(dir);
    }
    if (saved_as != NULL)
        *saved_as = chosen;
    else
        free(chosen);
    free(tmp);
    free(dir);
    return -err;
}
