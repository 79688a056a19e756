/* fuzz_task_report — k8s_task_report_parse on arbitrary termination messages.
 * Invariants (k8s_api.h): never fails; NONE only for empty/whitespace input; on
 * OK at least one field is set and every field is -1 or >= 0. */
#include <ctype.h>

#include "fuzz_common.h"
#include "source/k8s_api.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    log_set_level(LOG_OFF);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *buf = fuzz_copy(data, size);
    struct k8s_task_report r;
    enum k8s_report_status st = k8s_task_report_parse(buf, size, &r);
    FUZZ_CHECK(st == K8S_REPORT_NONE || st == K8S_REPORT_BAD || st == K8S_REPORT_OK);
    if (st == K8S_REPORT_OK) {
        FUZZ_CHECK(r.work_seconds >= 0 || r.restore_seconds >= 0 || r.checkpoint_seconds >= 0);
        FUZZ_CHECK(r.work_seconds >= -1 && r.restore_seconds >= -1 && r.checkpoint_seconds >= -1);
    }
    bool blank = true;
    for (size_t i = 0; i < size && blank; i++)
        blank = isspace(data[i]) != 0;
    if (size && !blank)
        FUZZ_CHECK(st != K8S_REPORT_NONE);
    free(buf);
    return 0;
}
