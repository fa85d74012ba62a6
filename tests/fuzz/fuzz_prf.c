/* libFuzzer target for the .PRF reader: whatever the bytes, the reader
 * returns a session or a one-line reason, and what it returns is usable. */
#include "config.h"

#include "analysis/calltree.h"
#include "elf/source.h"
#include "export/export.h"
#include "prf/prf.h"
#include "report/annotate.h"
#include "report/report.h"
#include "session/stacks.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *cause = NULL;
    struct session *s = prf_read_buffer(data, size, &cause);
    if (s == NULL) {
        fuzz_refused(cause); /* every refusal is one line */
        fuzz_set_verdict("refused");
        return 0;
    }
    fuzz_set_verdict("accepted");
    /* Everything downstream of the reader must cope with what it accepted. */
    char *json = report_json(s);
    free(json);
    json = report_json_tree(s, size & 1, 0.5);
    free(json);
    json = report_json_full(s, size & 2, size & 4, 0.5, true); /* with its lines */
    free(json);
    FILE *out = fopen("/dev/null", "w");
    if (out != NULL) {
        report_text(s, "fuzz", out, 0);
        report_tree(s, out, false, 0);
        report_tree(s, out, true, 1);
        export_folded(s, out);
        export_callgrind(s, out);
        report_lines(s, out, REPORT_LINES_SHOWN);
        /* The hottest function's annotated source, as the Source view draws
         * it; without the disassembly, which reads the program's file. */
        size_t n;
        size_t *order = session_ranking(s, &n);
        if (n > 0) {
            struct annotation *a = annotate_function(s, (int64_t)order[0], false);
            annotate_print(s, a, out);
            annotation_free(a);
        }
        free(order);
        fclose(out);
    }
    /* The exports for other tools. */
    uint8_t *pb = NULL;
    size_t pblen = 0;
    if (export_pprof(s, &pb, &pblen, &cause) == 0)
        free(pb);
    else
        free(cause);
    free(export_speedscope(s));
    free(export_html(s, "fuzz", (size & 8) ? s : NULL, "fuzz")); /* and as its own diff */
    /* The stack views of every function the file names. */
    for (size_t i = 0; i < s->nfuncs && i < 64; i++) {
        size_t n;
        free(session_callers(s, (int64_t)i, &n));
        free(session_callees(s, (int64_t)i, &n));
    }
    session_rebucket(s, s->view.bucket_paragraphs > 1 ? s->view.bucket_paragraphs / 2 : 2);
    uint8_t *again;
    size_t len;
    prf_write_buffer(s, &again, &len);
    free(again);
    session_free(s);
    source_reset(); /* the embedded texts the file gave source.c */
    return 0;
}
