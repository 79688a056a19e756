/* k8s_load — stores a Kubernetes list fixture through the writers (header only;
 * include after cmocka.h). Shared by the store tests that need rows from the own
 * fixtures (tests/fixtures/k8s). */
#ifndef SPOTLEDGER_TEST_K8S_LOAD_H
#define SPOTLEDGER_TEST_K8S_LOAD_H

#include "k8s_fixtures.h"
#include "source/k8s_api.h"
#include "store/store.h"
#include "store/store_k8s.h"

/* Parses dir/name as a list of kind and stores every item (events: only the
 * relevant ones) in one transaction, seen at seen_at. Fails the test on error. */
static inline void k8s_load_list(struct store *s, const char *dir, const char *name,
                                 enum k8s_kind kind, int64_t seen_at) {
    size_t len = 0;
    char *body = fx_read_in(dir, name, &len);
    assert_non_null(body);
    struct k8s_list l;
    assert_int_equal(k8s_list_parse(body, len, kind, &l), ERR_OK);
    free(body);
    assert_int_equal(store_begin(s), ERR_OK);
    for (size_t i = 0; i < l.n; i++) {
        if (kind == K8S_EVENT && !k8s_event_is_relevant(&l.items[i].u.event))
            continue;
        assert_int_equal(store_k8s_put(s, &l.items[i], 0, seen_at), ERR_OK);
    }
    assert_int_equal(store_commit(s), ERR_OK);
    k8s_list_release(&l);
}

#endif
