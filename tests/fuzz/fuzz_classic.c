/* libFuzzer target for the 1983 PROFIL file (prf/classic.c): whatever
 * the bytes, classic_read takes them as classic_detect judged them, and
 * what it takes is reported, replayed to its end with the same counters,
 * written again as the very same bytes (--export classic), and saved as a
 * .PRF that reads back. */
#include "config.h"

#include "prf/classic.h"
#include "prf/replay.h"
#include "report/report.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool classic = classic_detect(data, size);
    char *cause = NULL;
    struct session *s = classic_read(data, size, "PROFIL.PRF", &cause);
    if ((s != NULL) != classic) {
        fprintf(stderr, "fuzz_classic: classic_detect says %d, classic_read %s\n", classic,
                s ? "accepts" : "refuses");
        abort();
    }
    if (s == NULL) {
        fuzz_refused(cause);
        fuzz_set_verdict("refused");
        return 0;
    }
    fuzz_set_verdict("accepted, buckets: %zu", s->view.nbuckets);
    FILE *out = fopen("/dev/null", "w");
    if (out == NULL)
        abort();
    report_text(s, "fuzz", out, 0);
    report_hist(s, out, true);
    fclose(out);
    free(report_json(s));
    if (session_rebucket(s, s->view.bucket_paragraphs + 1) == 0) {
        fprintf(stderr, "fuzz_classic: a 1983 file has no hits to re-bucket\n");
        abort();
    }

    /* The 1983 file again: the same bytes, nothing saturated. */
    uint8_t *again;
    size_t len;
    const char *saturated;
    classic_write_buffer(s, &again, &len, &saturated);
    if (len != size || memcmp(again, data, size) != 0 || saturated != NULL) {
        fprintf(stderr,
                "fuzz_classic: written again as %zu bytes (%s saturated), not the %zu read\n", len,
                saturated ? saturated : "nothing", size);
        abort();
    }
    free(again);
    fuzz_save_reads_back(s, "fuzz_classic");

    /* Replayed to its end, as --replay does: the counters of the file. */
    struct session *copy = classic_read(data, size, "PROFIL.PRF", &cause);
    struct counters want = s->view.c;
    struct replay *r = replay_new(s, copy);
    replay_seek(r, r->nframes);
    if (memcmp(&r->now->view.c, &want, sizeof want) != 0) {
        fprintf(stderr, "fuzz_classic: the replay ends with other counters than the file's\n");
        abort();
    }
    replay_free(r);
    return 0;
}
