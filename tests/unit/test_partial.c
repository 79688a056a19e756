/* test_partial — property test of cost_partial (docs/performance.md): a window
 * composed from the partials of its parts equals cost_compute over the window,
 * every figure to the micro-dollar.
 *
 * Each seed makes a random small cluster over a week (spot pools by slug, one
 * reclaimed, On-Demand GPU pools, a CPU pool, a list-price change, nodes with
 * NotReady spells, alive nodes, tasks of the three configurations with retries,
 * interruptions, N-completion Jobs, restore and work reports, running tasks and
 * open attempts), then random windows (any second, not only day bounds), each
 * cut at random points into 1-6 parts. Every part is captured, encoded and
 * decoded (the stored form), the parts are added and the window is composed from
 * pools, nodes and prices only. The summary, pools, nodes and reclaims JSON of
 * the composed result must be byte-equal to the direct one (a task running
 * across parts counts once). The expected side is the engine's
 * own direct computation over the whole input: the figures themselves are
 * checked by test_cost, test_stability and test_oracle; this test proves the
 * composition loses nothing. PARTIAL_SEEDS=k (default 60), PARTIAL_SEED=n. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "engine/cost.h"
#include "engine/cost_partial.h"
#include "query/report.h"

#include "partial_world.h"

static const struct cost_od_size OD[] = {{"gpu-b-spot", "gpu-b", 5000000}};

/* What the compared windows held (the property must be tested on every kind of
 * figure, not only on empty windows). */
static struct {
    int reclaims, restore, priced, unpriced, unattributed, running, dup, ckpt, filtered;
} seen;

static void note(const struct cost_result *r, unsigned configs) {
    seen.reclaims += r->n_reclaims > 0;
    seen.unattributed += r->unattributed_idle > 0;
    seen.priced += r->counterfactual.tasks_priced > 0;
    seen.unpriced += r->counterfactual.tasks_unpriced > 0;
    seen.filtered += configs != 0;
    for (int c = 0; c < COST_NCONFIG; c++) {
        seen.restore += r->configs[c].restore.samples > 1;
        seen.running += r->configs[c].tasks_running > 0;
        seen.dup += r->configs[c].duplicate_seconds > 0;
    }
    for (size_t i = 0; i < r->n_advice; i++)
        seen.ckpt += r->advice[i].checkpoint_samples > 0 && r->advice[i].reclaims > 0;
}

/* One window; returns 1 when composed and compared, 0 when not composable. */
static int check_window(const struct world *w, int64_t from, int64_t to, unsigned configs,
                        uint64_t seed, struct buf *want, struct buf *got) {
    struct cost_query q = {.from = from, .to = to, .now = w->now, .configs = configs};
    if (chance(50)) {
        q.od_sizes = OD;
        q.n_od_sizes = 1;
    }
    struct cost_result *direct = NULL, *comp = NULL;
    assert_int_equal(cost_compute(&w->in, &q, &direct), ERR_OK);
    render(direct, want);
    int nparts = (int)rr(1, 6);
    int64_t cut[8];
    cut[0] = from;
    for (int i = 1; i < nparts; i++)
        cut[i] = from + rr(1, to - from - 1);
    if (nparts > 1 && chance(30)) /* a cut just before the reclaim */
        cut[1] = w->pools[2].deleted_at - rr(0, 1200);
    for (int i = 1; i < nparts; i++)
        if (cut[i] <= from || cut[i] >= to)
            cut[i] = from + 1;
    cut[nparts] = to;
    for (int i = 1; i < nparts; i++) /* sort the inner cuts */
        for (int j = i + 1; j < nparts; j++)
            if (cut[j] < cut[i]) {
                int64_t t = cut[i];
                cut[i] = cut[j];
                cut[j] = t;
            }
    struct cost_partial *sum = cost_partial_new(from, from);
    for (int i = 0; i < nparts; i++) {
        if (cut[i + 1] <= cut[i])
            continue;
        struct cost_query pq = {.from = cut[i], .to = cut[i + 1], .now = w->now};
        struct cost_partial *p = NULL, *back = NULL;
        assert_int_equal(cost_partial_capture(&w->in, &pq, &p), ERR_OK);
        struct buf enc;
        buf_init(&enc, 0);
        assert_int_equal(cost_partial_encode(p, &enc), ERR_OK);
        assert_int_equal(cost_partial_decode(enc.data, enc.len, true, &back), ERR_OK);
        /* without the reclaim evidence: the same partial less its events */
        struct cost_partial *noev = NULL;
        assert_int_equal(cost_partial_decode(enc.data, enc.len, false, &noev), ERR_OK);
        assert_int_equal(noev->n_events, 0);
        assert_int_equal(noev->n_nodes, back->n_nodes);
        assert_int_equal(noev->n_running, back->n_running);
        cost_partial_free(noev);
        /* a truncated blob is refused, never read past its end */
        struct cost_partial *bad = NULL;
        assert_int_equal(cost_partial_decode(enc.data, enc.len - 1, true, &bad), ERR_INVAL);
        buf_release(&enc);
        if (i % 2) /* both ways of summing: copying and moving */
            cost_partial_take(sum, back);
        else
            cost_partial_add(sum, back);
        cost_partial_free(p);
        cost_partial_free(back);
    }
    cost_partial_normalize(sum);
    int done = 0;
    {
        struct cost_input nodes_only = w->in;
        nodes_only.tasks = NULL;
        nodes_only.n_tasks = 0;
        nodes_only.attempts = NULL;
        nodes_only.n_attempts = 0;
        assert_int_equal(cost_compose(&nodes_only, &q, sum, &comp), ERR_OK);
        /* the partial flag needs the tasks at the window's edges: calc_compose
         * adds it from the store (test_compose checks it there), not cost_compose */
        comp->partial = direct->partial;
        for (int c = 0; c < COST_NCONFIG; c++)
            comp->configs[c].partial = direct->configs[c].partial;
        render(comp, got);
        if (strcmp(want->data, got->data) != 0) {
            print_error("seed %llu window [%lld, %lld) configs %u parts %d\nwant %s\ngot  %s\n",
                        (unsigned long long)seed, (long long)(from - T0), (long long)(to - T0),
                        configs, nparts, want->data, got->data);
            fail();
        }
        done = 1;
        note(direct, configs);
    }
    cost_partial_free(sum);
    cost_result_free(direct);
    cost_result_free(comp);
    return done;
}

static void test_composed_equals_direct(void **state) {
    (void)state;
    const char *one = getenv("PARTIAL_SEED");
    const char *ns = getenv("PARTIAL_SEEDS");
    uint64_t first = one ? strtoull(one, NULL, 10) : 1;
    uint64_t n = one ? 1 : ns ? strtoull(ns, NULL, 10) : 60;
    struct world *w = malloc(sizeof *w);
    assert_non_null(w);
    struct buf want, got;
    buf_init(&want, 0);
    buf_init(&got, 0);
    int composed = 0, skipped = 0;
    for (uint64_t s = first; s < first + n; s++) {
        make_world(w, s);
        for (int k = 0; k < 12; k++) {
            int64_t from, to;
            if (k < 4) { /* whole days, as the service cuts them */
                from = T0 + rr(-1, 5) * DAY;
                to = from + rr(1, 3) * DAY;
            } else if (k < 6) { /* starting just before the reclaim */
                from = w->pools[2].deleted_at - rr(0, 1200);
                to = from + rr(H, 2 * DAY);
            } else {
                from = T0 + rr(-DAY, 6 * DAY);
                to = from + rr(2, 4 * DAY);
            }
            unsigned configs = chance(25) ? 1u << rr(0, 2) : 0;
            if (check_window(w, from, to, configs, s, &want, &got))
                composed++;
            else
                skipped++;
        }
    }
    printf("test_partial: %d windows composed equal to direct, %d not composed\n", composed,
           skipped);
    assert_int_equal(skipped, 0);
    printf("test_partial: windows with reclaims %d, restore samples %d, priced %d, unpriced %d, "
           "unattributed idle %d, running %d, duplicates %d, advice %d, filtered %d\n",
           seen.reclaims, seen.restore, seen.priced, seen.unpriced, seen.unattributed, seen.running,
           seen.dup, seen.ckpt, seen.filtered);
    if (n >= 20) { /* every kind of figure was compared */
        assert_true(seen.reclaims > 10 && seen.restore > 10 && seen.priced > 10);
        assert_true(seen.unpriced > 10 && seen.unattributed > 10 && seen.running > 10);
        assert_true(seen.dup > 10 && seen.ckpt > 10 && seen.filtered > 10);
    }
    buf_release(&want);
    buf_release(&got);
    free(w);
}

/* Hand-made: a node of 1 GPU at 2400 µ$/h (2/3 µ$ per second) held by one
 * attempt for 3 s, [T0 + 10, T0 + 13). The window's useful cost is
 * round(3 x 2400 / 3600) = round(2) = 2 µ$. Cut into three parts of 1 s, each
 * part alone rounds 0.667 to 1 µ$: 3 µ$ if parts were rounded and added. The
 * partial keeps share-seconds, so the composed figure is the window's 2 µ$. */
static void test_numerators_not_rounded_per_part(void **state) {
    (void)state;
    struct cost_pool pool = {
        .id = "p", .size = "gpu-x", .capacity = COST_CAP_ON_DEMAND, .price_hourly = 3600000};
    pool.price_hourly = 2400;
    struct cost_node node = {.name = "n",
                             .pool = 0,
                             .created_at = T0,
                             .ready_at = T0,
                             .k8s_deleted_at = T0 + DAY,
                             .gpu_allocatable = 1};
    struct cost_task task = {.uid = "t",
                             .config = COST_ON_DEMAND,
                             .outcome = COST_TASK_SUCCEEDED,
                             .completed_at = T0 + 12};
    struct cost_attempt at = {.uid = "a",
                              .task = 0,
                              .node = 0,
                              .gpu_request = 1,
                              .created_at = T0 + 10,
                              .scheduled_at = T0 + 10,
                              .started_at = T0 + 10,
                              .finished_at = T0 + 13,
                              .phase = COST_PHASE_SUCCEEDED,
                              .work_seconds = -1,
                              .restore_seconds = -1,
                              .checkpoint_seconds = -1};
    struct cost_input in = {.pools = &pool,
                            .n_pools = 1,
                            .nodes = &node,
                            .n_nodes = 1,
                            .tasks = &task,
                            .n_tasks = 1,
                            .attempts = &at,
                            .n_attempts = 1};
    struct cost_query q = {.from = T0 + 10, .to = T0 + 13, .now = T0 + DAY};
    struct cost_result *direct = NULL, *comp = NULL;
    assert_int_equal(cost_compute(&in, &q, &direct), ERR_OK);
    assert_int_equal(direct->configs[COST_ON_DEMAND].useful_cost, 2);
    struct cost_partial *sum = cost_partial_new(q.from, q.from);
    for (int i = 0; i < 3; i++) {
        struct cost_query pq = {.from = T0 + 10 + i, .to = T0 + 11 + i, .now = T0 + DAY};
        struct cost_partial *p = NULL;
        assert_int_equal(cost_partial_capture(&in, &pq, &p), ERR_OK);
        cost_partial_add(sum, p);
        cost_partial_free(p);
    }
    cost_partial_normalize(sum);
    struct cost_input nodes_only = in;
    nodes_only.n_tasks = nodes_only.n_attempts = 0;
    assert_int_equal(cost_compose(&nodes_only, &q, sum, &comp), ERR_OK);
    assert_int_equal(comp->configs[COST_ON_DEMAND].useful_cost, 2);
    assert_int_equal(comp->configs[COST_ON_DEMAND].tasks_succeeded, 1);
    assert_int_equal(comp->nodes_total, 2);
    /* a filtered query cannot be captured; tasks in a compose input are refused */
    struct cost_partial *p = NULL;
    struct cost_query fq = q;
    fq.ns = "x";
    assert_int_equal(cost_partial_capture(&in, &fq, &p), ERR_INVAL);
    struct cost_result *r = NULL;
    assert_int_equal(cost_compose(&in, &q, sum, &r), ERR_INVAL);
    cost_partial_free(sum);
    cost_result_free(direct);
    cost_result_free(comp);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numerators_not_rounded_per_part),
        cmocka_unit_test(test_composed_equals_direct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
