/* fuzz_k8s_api — the Kubernetes parsers (k8s_api.h) on arbitrary bytes: objects,
 * List pages and watch lines of every kind, Status objects, quantities and index
 * sets. The first byte picks the parser (low 3 bits) and the kind (next 2 bits).
 * Invariants: documented errors only; fixed-size strings NUL-terminated; list
 * counts consistent; releases safe. */
#include "fuzz_common.h"
#include "source/k8s_api.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    log_set_level(LOG_OFF);
    return 0;
}

static void check_meta(const struct k8s_meta *m) {
    FUZZ_CHECK(memchr(m->uid, '\0', sizeof m->uid) && m->uid[0]);
    FUZZ_CHECK(memchr(m->name, '\0', sizeof m->name));
    FUZZ_CHECK(memchr(m->ns, '\0', sizeof m->ns));
    FUZZ_CHECK(memchr(m->resource_version, '\0', sizeof m->resource_version));
}

static void check_object(const struct k8s_object *o) {
    check_meta(k8s_object_meta(o));
    if (o->kind == K8S_JOB)
        FUZZ_CHECK(o->u.job.spec_json != NULL);
    if (o->kind == K8S_NODE)
        FUZZ_CHECK(o->u.node.labels_json != NULL);
    if (o->kind == K8S_POD)
        FUZZ_CHECK(o->u.pod.gpu_request >= 0 || o->u.pod.gpu_request == -1);
}

#define DOC_ERR(rc) ((rc) == ERR_OK || (rc) == ERR_PARSE || (rc) == ERR_NOMEM)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    unsigned which = data[0] & 7;
    enum k8s_kind kind = (enum k8s_kind)((data[0] >> 3) & 3);
    char *buf = fuzz_copy(data + 1, size - 1);
    size_t len = size - 1;
    switch (which) {
    case 0:
    case 1: {
        struct k8s_object o;
        memset(&o, 0, sizeof o);
        enum err rc = k8s_object_parse(buf, len, kind, &o);
        FUZZ_CHECK(DOC_ERR(rc));
        if (rc == ERR_OK) {
            FUZZ_CHECK(o.kind == kind);
            check_object(&o);
            k8s_object_release(&o);
        }
        break;
    }
    case 2:
    case 3: {
        struct k8s_list l;
        memset(&l, 0, sizeof l);
        enum err rc = k8s_list_parse(buf, len, kind, &l);
        FUZZ_CHECK(DOC_ERR(rc));
        if (rc == ERR_OK) {
            FUZZ_CHECK(l.n == 0 || l.items != NULL);
            for (size_t i = 0; i < l.n; i++)
                check_object(&l.items[i]);
        }
        k8s_list_release(&l);
        break;
    }
    case 4:
    case 5: {
        struct k8s_watch_event ev;
        memset(&ev, 0, sizeof ev);
        enum err rc = k8s_watch_parse(buf, len, kind, &ev);
        FUZZ_CHECK(DOC_ERR(rc));
        if (rc == ERR_OK) {
            if (ev.type == K8S_ADDED || ev.type == K8S_MODIFIED || ev.type == K8S_DELETED)
                check_object(&ev.obj);
            FUZZ_CHECK(memchr(ev.status.message, '\0', sizeof ev.status.message));
            k8s_watch_event_release(&ev);
        }
        break;
    }
    case 6: {
        struct k8s_status st;
        enum err rc = k8s_status_parse(buf, len, &st);
        FUZZ_CHECK(DOC_ERR(rc));
        if (rc == ERR_OK)
            FUZZ_CHECK(memchr(st.reason, '\0', sizeof st.reason) &&
                       memchr(st.message, '\0', sizeof st.message));
        break;
    }
    default: {
        char *s = fuzz_strndup(data + 1, size - 1);
        int64_t v;
        enum err rc = k8s_quantity_milli(s, &v);
        FUZZ_CHECK(rc == ERR_OK || rc == ERR_PARSE);
        (void)k8s_index_set_contains(s, (int64_t)(size % 50));
        free(s);
        break;
    }
    }
    free(buf);
    return 0;
}
