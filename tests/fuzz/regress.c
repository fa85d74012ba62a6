/* Replays the fuzz corpus through the fuzz target without libFuzzer, so that
 * every past input stays a regression test in make check. */
#include "config.h"

#include "tests/tap.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : TEST_CORPUS;
    DIR *d = opendir(dir);
    if (!ok(d != NULL, "the corpus %s opens", dir))
        return tap_done();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            continue;
        uint8_t *buf = malloc(1 << 24);
        size_t n = fread(buf, 1, 1 << 24, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n); /* aborts, or ASan stops us, on a finding */
        free(buf);
        ok(1, "%s", e->d_name);
    }
    closedir(d);
    return tap_done();
}
