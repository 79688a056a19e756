/* test_store_faults — a database the store cannot use answers a clear error, never a
 * crash, a leak (the ASan build) or an open transaction.
 *
 * Each case takes a fresh temporary database holding the worked example
 * (tests/unit/testdb.h) plus a cluster, an invoice with one item, an export, two
 * polls and a watch resume point, breaks ONE table through a second connection,
 * opens the store, runs ONE store call and compares its result with the case's:
 *   MISSING     the table is dropped: every statement naming it fails to prepare;
 *   UNREADABLE  the table is renamed and a view of the same name reads it through
 *               abs(-2^63), an integer overflow: statements prepare, stepping fails;
 *   READ_ONLY   the same view without the overflow: reads work, writes to it fail to
 *               prepare (a view cannot be modified);
 *   REFUSED     triggers RAISE(ABORT) before any insert, update or delete of it: the
 *               write's step fails.
 * The expected result is ERR_DB when the call needs the broken table, ERR_OK when it
 * does not (the controls: an unrelated table broken changes nothing). After every
 * call the store has no transaction open and still answers its schema version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/log.h"
#include "engine/reconcile.h"
#include "store/store.h"
#include "store/store_advice.h"
#include "store/store_cost.h"
#include "store/store_do.h"
#include "store/store_export.h"
#include "store/store_internal.h"
#include "store/store_k8s.h"
#include "store/store_read.h"
#include "testdb.h"

enum mode { MISSING, UNREADABLE, READ_ONLY, REFUSED };

enum op {
    OP_POLL_BEGIN,
    OP_POLL_END,
    OP_POLL_LAST,
    OP_SOURCE_NOW,
    OP_POLL_STATS,
    OP_TASK_ATTEMPTS,
    OP_EXPERIMENTS,
    OP_WINDOW_VERSION,
    OP_EXPORT_PUT,
    OP_EXPORT_GET,
    OP_EXPORT_LIST,
    OP_FIRST_TIME,
    OP_LAST_TIME,
    OP_CLUSTER,
    OP_SIZE,
    OP_SIZE_PRICE,
    OP_POOL,
    OP_NODE,
    OP_VANISHED,
    OP_INVOICE,
    OP_HAS_ITEMS,
    OP_ITEMS,
    OP_BILLING,
    OP_BALANCE,
    OP_RECONCILE,
    OP_COST_LOAD,
    OP_COST_TASK,
    OP_ADVICE,
    OP_JOB_KNOWN,
    OP_K8S_VANISHED,
    OP_WATCH_GET,
    OP_WATCH_SET,
    OP_PUT_JOB,
};

static const char *const OP_NAME[] = {
    "poll_begin",  "poll_end",       "poll_last",  "source_now", "poll_stats",  "task_attempts",
    "experiments", "window_version", "export_put", "export_get", "export_list", "first_time",
    "last_time",   "cluster",        "size",       "size_price", "pool",        "node",
    "do_vanished", "invoice",        "has_items",  "items",      "billing",     "balance",
    "reconcile",   "cost_load",      "cost_task",  "advice",     "job_known",   "k8s_vanished",
    "watch_get",   "watch_set",      "put_job"};

static const char *const MODE_NAME[] = {"MISSING", "UNREADABLE", "READ_ONLY", "REFUSED"};

/* The worked example plus the rows the calls below read. */
static void fill(const struct testdb *d) {
    const long long t = TESTDB_T0;
    testdb_worked_example(d);
    testdb_execf(
        d,
        "INSERT INTO clusters(id, name, region, version, first_seen, last_seen)"
        " VALUES ('c1', 'lab', 'nyc2', '1.31', %lld, %lld);"
        "UPDATE nodes SET do_id = 'do-' || name;"
        "UPDATE node_pools SET deleted_at = NULL;"
        "INSERT INTO invoices(uuid, invoice_id, period, amount_micro, is_preview, first_seen,"
        " last_seen) VALUES ('inv-1', '1', '2026-11', 16200000, 1, %lld, %lld);"
        "INSERT INTO invoice_items(invoice_uuid, ordinal, product, resource_uuid, amount_micro)"
        " VALUES ('inv-1', 0, 'Droplets', 'do-F', 10800000);"
        "INSERT INTO exports VALUES ('2026-W45', 'summary', '/x/summary.csv', 10, 2, %lld);"
        "INSERT INTO poll_runs(source, started_at, finished_at, source_time, status, requests)"
        " VALUES ('do', %lld, %lld, %lld, 'ok', 3), ('k8s', %lld, %lld, %lld, 'ok', 4);"
        "INSERT INTO watch_state(resource, resource_version, updated_at) VALUES ('pods', '42', "
        "%lld);",
        t, t, t, t, t + 1, t, t + 1, t, t, t + 1, t, t);
}

static void break_table(const struct testdb *d, const char *table, enum mode m) {
    switch (m) {
    case MISSING:
        testdb_execf(d, "DROP TABLE %s;", table);
        break;
    case UNREADABLE:
    case READ_ONLY:
        testdb_execf(d,
                     "ALTER TABLE %s RENAME TO %s_real;"
                     "CREATE VIEW %s AS SELECT * FROM %s_real%s;",
                     table, table, table, table,
                     m == UNREADABLE ? " WHERE abs(-9223372036854775807 - 1) >= 0" : "");
        break;
    case REFUSED:
        testdb_execf(d,
                     "CREATE TRIGGER refuse_ins BEFORE INSERT ON %s BEGIN"
                     " SELECT RAISE(ABORT, 'refused by the test'); END;"
                     "CREATE TRIGGER refuse_upd BEFORE UPDATE ON %s BEGIN"
                     " SELECT RAISE(ABORT, 'refused by the test'); END;"
                     "CREATE TRIGGER refuse_del BEFORE DELETE ON %s BEGIN"
                     " SELECT RAISE(ABORT, 'refused by the test'); END;",
                     table, table, table);
        break;
    }
}

/* One store call with inputs the filled database answers fully (every statement of
 * the call runs: a new price, a spot pool and both nodes gone, an invoice with items). */
static enum err run(struct store *s, enum op op) {
    const long long t = TESTDB_T0;
    enum err rc = ERR_OK;
    switch (op) {
    case OP_POLL_BEGIN: {
        int64_t id = -7;
        rc = store_poll_begin(s, "do", t + 2, &id);
        if (rc != ERR_OK)
            assert_int_equal(id, -7); /* untouched */
        return rc;
    }
    case OP_POLL_END:
        return store_poll_end(s, 1, t + 3, t + 3, NULL, 1, 1);
    case OP_POLL_LAST: {
        struct store_poll p;
        return store_poll_last(s, "do", true, &p);
    }
    case OP_SOURCE_NOW: {
        int64_t now = -7;
        rc = store_source_now(s, &now);
        assert_int_equal(now, rc == ERR_OK ? t : -7); /* the latest ok poll's Date */
        return rc;
    }
    case OP_POLL_STATS: {
        struct store_poll_stats st;
        return store_poll_stats(s, "do", &st);
    }
    case OP_TASK_ATTEMPTS: {
        struct store_attempt_info a[4];
        size_t n = 99;
        rc = store_task_attempts(s, "J2", a, 4, &n);
        assert_int_equal(n, rc == ERR_OK ? 2 : 99); /* J2-a1, J2-a2 */
        return rc;
    }
    case OP_EXPERIMENTS: {
        char e[4][256];
        size_t n = 99;
        rc = store_experiments(s, NULL, e, 4, &n);
        assert_int_equal(n, rc == ERR_OK ? 1 : 99); /* exp-a */
        return rc;
    }
    case OP_WINDOW_VERSION: {
        int64_t v[2];
        return store_window_version(s, t, t + 86400, v);
    }
    case OP_EXPORT_PUT: {
        struct store_export_row r = {.week = "2026-W46", .kind = "tasks", .path = "/x/t.csv"};
        return store_export_put(s, &r);
    }
    case OP_EXPORT_GET: {
        struct store_export_row r;
        rc = store_export_get(s, "2026-W45", "summary", &r);
        if (rc == ERR_OK) { /* the row fill() stored, written at T0 + 1 */
            assert_string_equal(r.path, "/x/summary.csv");
            assert_int_equal(r.bytes, 10);
            assert_int_equal(r.rows, 2);
            assert_int_equal(r.written_at, t + 1);
        }
        return rc;
    }
    case OP_EXPORT_LIST: {
        struct store_export_row r[2];
        size_t n = 99;
        rc = store_export_list(s, r, 2, &n);
        assert_int_equal(n, rc == ERR_OK ? 1 : 99);
        return rc;
    }
    case OP_FIRST_TIME: {
        int64_t v;
        return store_first_data_time(s, &v);
    }
    case OP_LAST_TIME: {
        int64_t v;
        return store_last_data_time(s, &v);
    }
    case OP_CLUSTER: {
        char id[] = "c1", name[] = "lab", region[] = "nyc2", version[] = "1.31";
        struct do_cluster c = {.id = id, .name = name, .region = region, .version = version};
        return store_do_upsert_cluster(s, &c, t + 5);
    }
    case OP_SIZE: {
        char slug[] = "gpu-x";
        struct do_size z = {.slug = slug,
                            .vcpus = 8,
                            .memory_mb = 65536,
                            .gpu_count = 1,
                            .price_hourly = 3700000,
                            .price_monthly = 2486400000};
        return store_do_upsert_size(s, &z, t + 5, NULL);
    }
    case OP_SIZE_PRICE: {
        int64_t h = -7;
        rc = store_do_size_price(s, "gpu-x", &h);
        assert_int_equal(h, rc == ERR_OK ? 3600000 : -7); /* $3.60/h */
        return rc;
    }
    case OP_POOL: {
        char id[] = "pool-spot", name[] = "gpu-spot", size[] = "gpu-x-spot";
        struct do_pool p = {.id = id, .name = name, .size = size};
        return store_do_upsert_pool(s, "c1", &p, "spot", "label", 1800000, t + 5);
    }
    case OP_NODE: {
        char id[] = "pool-fb", name[] = "gpu-fallback", size[] = "gpu-x";
        char nid[] = "do-F", nname[] = "F", state[] = "running";
        struct do_pool p = {.id = id, .name = name, .size = size};
        struct do_node n = {.id = nid, .name = nname, .state = state};
        return store_do_upsert_node(s, &p, &n, "on-demand", 3600000, t + 5);
    }
    case OP_VANISHED: {
        /* pool-fb still listed without nodes: S and F gone, pool-spot (spot) gone */
        char id[] = "pool-fb";
        struct do_pool p = {.id = id};
        struct do_pools l = {.v = &p, .n = 1};
        int pg = -7, ng = -7;
        rc = store_do_mark_vanished(s, "c1", &l, t + 7300, &pg, &ng);
        assert_int_equal(pg, rc == ERR_OK ? 1 : -7);
        assert_int_equal(ng, rc == ERR_OK ? 2 : -7);
        return rc;
    }
    case OP_INVOICE: {
        char uuid[] = "inv-1", id[] = "1", period[] = "2026-11";
        struct do_invoice v = {
            .uuid = uuid, .id = id, .period = period, .amount = 16200000, .preview = true};
        return store_do_upsert_invoice(s, &v, t + 5);
    }
    case OP_HAS_ITEMS: {
        bool has = false;
        rc = store_do_invoice_has_items(s, "inv-1", &has);
        assert_int_equal(has, rc == ERR_OK);
        return rc;
    }
    case OP_ITEMS: {
        char product[] = "Droplets", ruuid[] = "do-S";
        struct do_invoice_item it = {.product = product, .resource_uuid = ruuid, .amount = 5400000};
        return store_do_replace_invoice_items(s, "inv-1", &it, 1);
    }
    case OP_BILLING: {
        char type[] = "Invoice";
        struct do_billing_entry b = {.date = t, .type = type, .amount = 16200000};
        return store_do_add_billing_entry(s, &b);
    }
    case OP_BALANCE: {
        struct do_balance b = {.month_to_date_usage = 16200000, .generated_at = t};
        return store_do_add_balance(s, &b, t + 5);
    }
    case OP_RECONCILE: {
        struct reconcile_input in;
        rc = store_do_reconcile_input(s, "2026-11", "c1", &in);
        if (rc == ERR_OK) {
            /* 2 pools, 2 nodes, the invoice's 1 item */
            assert_int_equal(in.n_pools, 2);
            assert_int_equal(in.n_nodes, 2);
            assert_int_equal(in.n_items, 1);
            reconcile_input_release(&in);
        }
        return rc;
    }
    case OP_COST_LOAD: {
        struct store_cost_data *d = NULL;
        rc = store_cost_load(s, t, t + 86400, NULL, &d);
        if (rc == ERR_OK)
            store_cost_free(d);
        else
            assert_null(d);
        return rc;
    }
    case OP_COST_TASK: {
        struct store_cost_data *d = NULL;
        rc = store_cost_load_task(s, "J2", NULL, &d);
        if (rc == ERR_OK)
            store_cost_free(d);
        else
            assert_null(d);
        return rc;
    }
    case OP_ADVICE: {
        struct store_advice_data *d = NULL;
        rc = store_advice_load(s, t, t + 86400, COST_FALLBACK, NULL, NULL, &d);
        if (rc == ERR_OK)
            store_advice_free(d);
        else
            assert_null(d);
        return rc;
    }
    case OP_JOB_KNOWN: {
        bool known = false;
        rc = store_k8s_job_known(s, "J1", &known);
        assert_int_equal(known, rc == ERR_OK);
        return rc;
    }
    case OP_K8S_VANISHED: {
        /* a relist that saw no Job: the three tasks' Jobs vanish */
        int64_t marked = -7;
        if ((rc = store_k8s_seen_reset(s, K8S_JOB)) != ERR_OK)
            return rc;
        return store_k8s_mark_vanished(s, K8S_JOB, NULL, t + 9100, &marked);
    }
    case OP_WATCH_GET: {
        char rv[16] = "unset";
        rc = store_k8s_watch_get(s, "pods", rv, sizeof rv);
        assert_string_equal(rv, rc == ERR_OK ? "42" : "unset");
        return rc;
    }
    case OP_WATCH_SET:
        return store_k8s_watch_set(s, "pods", "43", t + 5);
    case OP_PUT_JOB: {
        char spec[] = "{}";
        struct k8s_job j = {.meta = {.uid = "J9",
                                     .name = "job-nine",
                                     .ns = "batch",
                                     .created_at = t,
                                     .deletion_grace = -1},
                            .backoff_limit = -1,
                            .active_deadline = -1,
                            .ttl_after_finished = -1,
                            .completions = -1,
                            .spec_json = spec};
        return store_k8s_put_job(s, &j, 0, t + 5);
    }
    }
    fail_msg("unknown op %d", (int)op);
    return ERR_INVAL;
}

struct fault_case {
    enum op op;
    const char *table;
    enum mode mode;
    enum err want;
};

/* Every case needs the table it breaks (want ERR_DB) unless it is a control. */
static const struct fault_case CASES[] = {
    /* poll runs (store.c, store_read.c) */
    {OP_POLL_BEGIN, "poll_runs", MISSING, ERR_DB},
    {OP_POLL_BEGIN, "poll_runs", REFUSED, ERR_DB},
    {OP_POLL_END, "poll_runs", MISSING, ERR_DB},
    {OP_POLL_LAST, "poll_runs", MISSING, ERR_DB},
    {OP_POLL_LAST, "poll_runs", UNREADABLE, ERR_DB},
    {OP_SOURCE_NOW, "poll_runs", MISSING, ERR_DB},
    {OP_SOURCE_NOW, "poll_runs", UNREADABLE, ERR_DB},
    {OP_SOURCE_NOW, "exports", MISSING, ERR_OK},
    {OP_POLL_STATS, "poll_runs", MISSING, ERR_DB},
    {OP_POLL_STATS, "poll_runs", UNREADABLE, ERR_DB},
    /* read queries */
    {OP_TASK_ATTEMPTS, "attempts", MISSING, ERR_DB},
    {OP_TASK_ATTEMPTS, "attempts", UNREADABLE, ERR_DB},
    {OP_TASK_ATTEMPTS, "exports", MISSING, ERR_OK},
    {OP_EXPERIMENTS, "tasks", MISSING, ERR_DB},
    {OP_EXPERIMENTS, "tasks", UNREADABLE, ERR_DB},
    {OP_WINDOW_VERSION, "attempts", MISSING, ERR_DB},
    {OP_WINDOW_VERSION, "attempts", UNREADABLE, ERR_DB},
    {OP_WINDOW_VERSION, "tasks", MISSING, ERR_DB},
    {OP_WINDOW_VERSION, "change_marks", MISSING, ERR_DB},
    {OP_WINDOW_VERSION, "change_spans", MISSING, ERR_DB},
    {OP_WINDOW_VERSION, "billing_spans", MISSING, ERR_DB},
    {OP_WINDOW_VERSION, "change_marks", UNREADABLE, ERR_DB},
    /* exports */
    {OP_EXPORT_PUT, "exports", MISSING, ERR_DB},
    {OP_EXPORT_PUT, "exports", REFUSED, ERR_DB},
    {OP_EXPORT_GET, "exports", MISSING, ERR_DB},
    {OP_EXPORT_GET, "exports", UNREADABLE, ERR_DB},
    {OP_EXPORT_GET, "tasks", MISSING, ERR_OK},
    {OP_EXPORT_LIST, "exports", MISSING, ERR_DB},
    {OP_EXPORT_LIST, "exports", UNREADABLE, ERR_DB},
    {OP_FIRST_TIME, "attempts", MISSING, ERR_DB},
    {OP_FIRST_TIME, "attempts", UNREADABLE, ERR_DB},
    {OP_LAST_TIME, "tasks", MISSING, ERR_DB},
    {OP_LAST_TIME, "tasks", UNREADABLE, ERR_DB},
    /* DigitalOcean facts */
    {OP_CLUSTER, "clusters", MISSING, ERR_DB},
    {OP_CLUSTER, "clusters", REFUSED, ERR_DB},
    {OP_SIZE, "sizes", MISSING, ERR_DB},
    {OP_SIZE, "sizes", REFUSED, ERR_DB},
    {OP_SIZE, "size_prices", MISSING, ERR_DB},
    {OP_SIZE, "size_prices", UNREADABLE, ERR_DB},
    {OP_SIZE, "size_prices", READ_ONLY, ERR_DB},
    {OP_SIZE, "size_prices", REFUSED, ERR_DB},
    {OP_SIZE_PRICE, "size_prices", UNREADABLE, ERR_DB},
    {OP_SIZE_PRICE, "sizes", MISSING, ERR_OK},
    {OP_POOL, "reclaims", MISSING, ERR_DB},
    {OP_POOL, "reclaims", REFUSED, ERR_OK}, /* no reclaim of pool-spot to withdraw */
    {OP_POOL, "node_pools", READ_ONLY, ERR_DB},
    {OP_POOL, "node_pools", REFUSED, ERR_DB},
    {OP_NODE, "nodes", MISSING, ERR_DB},
    {OP_NODE, "nodes", REFUSED, ERR_DB},
    {OP_VANISHED, "node_pools", MISSING, ERR_DB},
    {OP_VANISHED, "node_pools", UNREADABLE, ERR_DB},
    {OP_VANISHED, "nodes", MISSING, ERR_DB},
    {OP_VANISHED, "nodes", READ_ONLY, ERR_DB},
    {OP_VANISHED, "nodes", REFUSED, ERR_DB},
    {OP_VANISHED, "node_pools", READ_ONLY, ERR_DB},
    {OP_VANISHED, "node_pools", REFUSED, ERR_DB},
    {OP_VANISHED, "reclaims", MISSING, ERR_DB},
    {OP_VANISHED, "reclaims", REFUSED, ERR_DB},
    {OP_VANISHED, "invoices", MISSING, ERR_OK},
    {OP_INVOICE, "invoices", MISSING, ERR_DB},
    {OP_INVOICE, "invoices", REFUSED, ERR_DB},
    {OP_HAS_ITEMS, "invoice_items", MISSING, ERR_DB},
    {OP_HAS_ITEMS, "invoice_items", UNREADABLE, ERR_DB},
    {OP_ITEMS, "invoice_items", MISSING, ERR_DB},
    {OP_ITEMS, "invoice_items", REFUSED, ERR_DB},
    /* the items' change mark reads their invoice's month (schema/010) */
    {OP_ITEMS, "invoices", MISSING, ERR_DB},
    {OP_ITEMS, "exports", MISSING, ERR_OK},
    {OP_BILLING, "billing_history", MISSING, ERR_DB},
    {OP_BILLING, "billing_history", REFUSED, ERR_DB},
    {OP_BALANCE, "balance_snapshots", MISSING, ERR_DB},
    {OP_BALANCE, "balance_snapshots", REFUSED, ERR_DB},
    /* the reconcile loader: each of its five queries */
    {OP_RECONCILE, "clusters", MISSING, ERR_DB},
    {OP_RECONCILE, "clusters", UNREADABLE, ERR_DB},
    {OP_RECONCILE, "node_pools", MISSING, ERR_DB},
    {OP_RECONCILE, "node_pools", UNREADABLE, ERR_DB},
    {OP_RECONCILE, "nodes", MISSING, ERR_DB},
    {OP_RECONCILE, "nodes", UNREADABLE, ERR_DB},
    {OP_RECONCILE, "invoices", MISSING, ERR_DB},
    {OP_RECONCILE, "invoices", UNREADABLE, ERR_DB},
    {OP_RECONCILE, "invoice_items", MISSING, ERR_DB},
    {OP_RECONCILE, "invoice_items", UNREADABLE, ERR_DB},
    {OP_RECONCILE, "exports", MISSING, ERR_OK},
    /* the cost and advice loaders */
    {OP_COST_LOAD, "nodes", MISSING, ERR_DB},
    {OP_COST_LOAD, "nodes", UNREADABLE, ERR_DB},
    {OP_COST_LOAD, "attempts", MISSING, ERR_DB},
    {OP_COST_LOAD, "attempts", UNREADABLE, ERR_DB},
    {OP_COST_LOAD, "tasks", MISSING, ERR_DB},
    {OP_COST_LOAD, "tasks", UNREADABLE, ERR_DB},
    {OP_COST_LOAD, "node_conditions", MISSING, ERR_DB},
    {OP_COST_LOAD, "node_conditions", UNREADABLE, ERR_DB},
    {OP_COST_LOAD, "exports", MISSING, ERR_OK},
    {OP_COST_TASK, "tasks", MISSING, ERR_DB},
    {OP_COST_TASK, "tasks", UNREADABLE, ERR_DB},
    {OP_COST_TASK, "attempts", MISSING, ERR_DB},
    {OP_COST_TASK, "attempts", UNREADABLE, ERR_DB},
    {OP_COST_TASK, "nodes", MISSING, ERR_DB},
    {OP_COST_TASK, "nodes", UNREADABLE, ERR_DB},
    {OP_ADVICE, "tasks", MISSING, ERR_DB},
    {OP_ADVICE, "tasks", UNREADABLE, ERR_DB},
    {OP_ADVICE, "attempts", MISSING, ERR_DB},
    {OP_ADVICE, "nodes", MISSING, ERR_DB},
    {OP_ADVICE, "node_pools", MISSING, ERR_DB},
    {OP_ADVICE, "reclaims", MISSING, ERR_DB},
    {OP_ADVICE, "pdbs", MISSING, ERR_DB},
    {OP_ADVICE, "pdbs", UNREADABLE, ERR_DB},
    {OP_ADVICE, "exports", MISSING, ERR_OK},
    /* Kubernetes bookkeeping */
    {OP_JOB_KNOWN, "tasks", MISSING, ERR_DB},
    {OP_JOB_KNOWN, "tasks", UNREADABLE, ERR_DB},
    {OP_K8S_VANISHED, "tasks", MISSING, ERR_DB},
    {OP_K8S_VANISHED, "tasks", REFUSED, ERR_DB},
    {OP_WATCH_GET, "watch_state", MISSING, ERR_DB},
    {OP_WATCH_GET, "watch_state", UNREADABLE, ERR_DB},
    {OP_WATCH_SET, "watch_state", MISSING, ERR_DB},
    {OP_WATCH_SET, "watch_state", REFUSED, ERR_DB},
    {OP_PUT_JOB, "tasks", MISSING, ERR_DB},
    {OP_PUT_JOB, "tasks", REFUSED, ERR_DB},
    {OP_PUT_JOB, "change_spans", MISSING, ERR_DB}, /* the tasks trigger writes it (schema/011) */
    {OP_PUT_JOB, "exports", MISSING, ERR_OK},
};

/* A copy of the template database (closed, so fully checkpointed) in a new directory. */
static void copy_db(const struct testdb *from, struct testdb *to) {
    testdb_mkdir(to);
    FILE *in = fopen(from->path, "rb"), *out = fopen(to->path, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

static void test_broken_tables(void **state) {
    (void)state;
    log_set_level(LOG_OFF); /* every case logs its failure */
    struct testdb tpl;
    testdb_create(&tpl);
    fill(&tpl);
    int failed = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        const struct fault_case *c = &CASES[i];
        struct testdb d;
        copy_db(&tpl, &d);
        break_table(&d, c->table, c->mode);
        struct store *s = NULL;
        assert_int_equal(store_open(d.path, STORE_WRITER, &s, NULL), ERR_OK);
        enum err rc = run(s, c->op);
        if (rc != c->want) {
            print_message("case %zu: %s with %s %s: %s, want %s\n", i, OP_NAME[c->op], c->table,
                          MODE_NAME[c->mode], err_str(rc), err_str(c->want));
            failed++;
        }
        /* no transaction left open, and the store still answers */
        assert_true(sqlite3_get_autocommit(store_db(s)));
        int v = -1;
        assert_int_equal(store_schema_version(s, &v), ERR_OK);
        assert_int_equal(v, store_latest_version());
        store_free(s);
        testdb_remove(&d);
    }
    testdb_remove(&tpl);
    print_message("%zu broken-table cases\n", sizeof CASES / sizeof *CASES);
    assert_int_equal(failed, 0);
}

/* A migrated database with no rows: every "latest" and "first" query says not found. */
static void test_empty_database(void **state) {
    (void)state;
    struct testdb d;
    testdb_create(&d);
    struct store *s = NULL;
    assert_int_equal(store_open(d.path, STORE_READER, &s, NULL), ERR_OK);
    int64_t v = -7;
    assert_int_equal(store_first_data_time(s, &v), ERR_NOTFOUND);
    assert_int_equal(store_last_data_time(s, &v), ERR_NOTFOUND);
    assert_int_equal(store_source_now(s, &v), ERR_NOTFOUND);
    assert_int_equal(v, -7);
    struct store_export_row r;
    assert_int_equal(store_export_get(s, "2026-W45", "summary", &r), ERR_NOTFOUND);
    struct store_poll p;
    assert_int_equal(store_poll_last(s, "do", false, &p), ERR_NOTFOUND);
    char rv[8] = "unset";
    assert_int_equal(store_k8s_watch_get(s, "pods", rv, sizeof rv), ERR_NOTFOUND);
    assert_int_equal(store_do_size_price(s, "gpu-x", &v), ERR_NOTFOUND);
    assert_int_equal(v, -7);
    store_free(s);
    testdb_remove(&d);
}

/* Opening: a reader refuses a database of another schema version (it never migrates);
 * ":memory:" is SQLite's own (no file is created for it) and migrates from 0, one
 * migration per version 1..N (schema/ numbers them without gaps); freeing NULL is a
 * no-op. */
static void test_open_edges(void **state) {
    (void)state;
    log_set_level(LOG_OFF);
    struct testdb d;
    testdb_create(&d);
    testdb_execf(&d, "PRAGMA user_version = %d;", store_latest_version() - 1);
    struct store *s = (struct store *)&d; /* must stay untouched on failure */
    assert_int_equal(store_open(d.path, STORE_READER, &s, NULL), ERR_DB);
    assert_ptr_equal(s, (struct store *)&d);
    testdb_remove(&d);

    int migrated = -1;
    s = NULL;
    assert_int_equal(store_open(":memory:", STORE_WRITER, &s, &migrated), ERR_OK);
    assert_int_equal(migrated, store_latest_version());
    assert_int_equal(access(":memory:", F_OK), -1);
    int v = -1;
    assert_int_equal(store_schema_version(s, &v), ERR_OK);
    assert_int_equal(v, store_latest_version());
    store_free(s);
    store_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_database),
        cmocka_unit_test(test_open_edges),
        cmocka_unit_test(test_broken_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
