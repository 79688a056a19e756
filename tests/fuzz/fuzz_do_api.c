/* fuzz_do_api — every DigitalOcean parser (do_api.h) on arbitrary bytes. The first
 * byte picks the parser; the rest is the body, passed without a terminating NUL.
 * Invariants: ERR_OK or ERR_PARSE only (no other error for a bounded body), a
 * reason in `why` on ERR_PARSE, NUL-terminated `why`, every release safe. */
#include "source/do_api.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    log_set_level(LOG_OFF);
    return 0;
}

#define CHECK_RC(rc) FUZZ_CHECK((rc) == ERR_OK || (rc) == ERR_PARSE || (rc) == ERR_NOMEM)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    unsigned which = data[0] % 10;
    char *buf = fuzz_copy(data + 1, size - 1);
    size_t len = size - 1;
    char why[DO_API_WHY_MAX];
    memset(why, 'x', sizeof why);
    why[0] = '\0';
    enum err rc = ERR_OK;
    switch (which) {
    case 0: {
        struct do_sizes v = {0};
        rc = do_api_parse_sizes(buf, len, &v, why, sizeof why);
        if (rc == ERR_OK)
            for (size_t i = 0; i < v.n; i++)
                FUZZ_CHECK(v.v[i].slug != NULL);
        do_sizes_release(&v);
        break;
    }
    case 1: {
        struct do_cluster v = {0};
        rc = do_api_parse_cluster(buf, len, &v, why, sizeof why);
        do_cluster_release(&v);
        break;
    }
    case 2: {
        struct do_pools v = {0};
        rc = do_api_parse_pools(buf, len, &v, why, sizeof why);
        if (rc == ERR_OK)
            for (size_t i = 0; i < v.n; i++)
                FUZZ_CHECK(v.v[i].id != NULL && (v.v[i].n_nodes == 0 || v.v[i].nodes));
        do_pools_release(&v);
        break;
    }
    case 3: {
        struct do_pool v = {0};
        rc = do_api_parse_pool(buf, len, &v, why, sizeof why);
        do_pool_release(&v);
        break;
    }
    case 4: {
        struct do_error v = {0};
        rc = do_api_parse_error(buf, len, &v, why, sizeof why);
        do_error_release(&v);
        break;
    }
    case 5: {
        struct do_invoices v = {0};
        rc = do_api_parse_invoices(buf, len, &v, why, sizeof why);
        do_invoices_release(&v);
        break;
    }
    case 6: {
        struct do_invoice_items v = {0};
        rc = do_api_parse_invoice_items(buf, len, &v, why, sizeof why);
        do_invoice_items_release(&v);
        break;
    }
    case 7: {
        struct do_billing_history v = {0};
        rc = do_api_parse_billing_history(buf, len, &v, why, sizeof why);
        do_billing_history_release(&v);
        break;
    }
    case 8: {
        struct do_balance v;
        rc = do_api_parse_balance(buf, len, &v, why, sizeof why);
        break;
    }
    default: {
        int64_t v;
        rc = do_api_price_literal(buf, len, &v);
        if (rc == ERR_OK)
            FUZZ_CHECK(v >= INT64_MIN);
        free(buf);
        return 0;
    }
    }
    CHECK_RC(rc);
    FUZZ_CHECK(memchr(why, '\0', sizeof why) != NULL);
    if (rc == ERR_PARSE)
        FUZZ_CHECK(why[0] != '\0');
    free(buf);
    return 0;
}
