/* sim_do_invoice — the billing side of spotsim's DigitalOcean API (sim_do_serve.h):
 * invoices and their items, summaries, billing history, balance, insights, all
 * from the simulation's own billing (sim_billing.h). */
#include "sim/sim_do_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/money.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "model/billing.h"
#include "sim/sim_billing.h"

/* --- billing --- */

#define MAX_MONTHS 24

/* One billed item of one of the account's worlds. */
struct acct_item {
    const struct sim_world *w;
    struct sim_bill_item it;
};

/* Every item billed up to now, world by world, each in node order; *n of them
 * (the caller frees). */
static struct acct_item *account_items(const struct sim_account *a, int64_t now, size_t *n) {
    size_t cap = 0;
    for (int k = 0; k < a->n; k++)
        cap += (size_t)a->w[k]->nnodes * SIM_BILL_MAX_MONTHS;
    struct acct_item *all = xmalloc(sizeof *all * (cap ? cap : 1));
    *n = 0;
    struct sim_bill_item items[SIM_BILL_MAX_MONTHS];
    for (int k = 0; k < a->n; k++)
        for (int i = 0; i < a->w[k]->nnodes; i++) {
            int c = sim_billing_node(a->w[k], i, now, items, SIM_BILL_MAX_MONTHS);
            for (int q = 0; q < c; q++)
                all[(*n)++] = (struct acct_item){a->w[k], items[q]};
        }
    return all;
}

/* Months (starts) with any billed item up to now, ascending; returns the count. */
static int billed_months(const struct sim_account *a, int64_t now, int64_t *months) {
    int n = 0;
    size_t ni;
    struct acct_item *all = account_items(a, now, &ni);
    for (size_t q = 0; q < ni; q++) {
        bool seen = false;
        for (int m = 0; m < n; m++)
            if (months[m] == all[q].it.month)
                seen = true;
        if (!seen && n < MAX_MONTHS)
            months[n++] = all[q].it.month;
    }
    free(all);
    for (int x = 1; x < n; x++)
        for (int y = x; y > 0 && months[y - 1] > months[y]; y--) {
            int64_t t = months[y];
            months[y] = months[y - 1];
            months[y - 1] = t;
        }
    return n;
}

/* The month's total in whole cents (each item rounded, as the invoice shows
 * it); *count (if not NULL) gets its items. */
static int64_t month_total_n(const struct sim_account *a, int64_t month, int64_t now, int *count) {
    int64_t sum = 0;
    int c = 0;
    size_t ni;
    struct acct_item *all = account_items(a, now, &ni);
    for (size_t q = 0; q < ni; q++)
        if (all[q].it.month == month) {
            sum += sim_billing_cents(all[q].it.amount);
            c++;
        }
    free(all);
    if (count)
        *count = c;
    return sum;
}

static int64_t month_total(const struct sim_account *a, int64_t month, int64_t now) {
    return month_total_n(a, month, now, NULL);
}

/* Dollars with two decimals, as DigitalOcean writes every billing amount ("12.34");
 * callers pass whole cents (sim_billing_cents). */
static void money_str(struct jsonw *j, const char *key, int64_t micro) {
    char tmp[MONEY_FMT_MAX];
    money_format_fixed(micro, tmp);
    size_t len = strlen(tmp);
    if (len > 4)
        tmp[len - 4] = '\0'; /* "12.340000" -> "12.34" */
    jsonw_kstr(j, key, tmp);
}

static void period(int64_t month, char out[16]) {
    int64_t y;
    int m, d;
    timeutil_civil_from_days(month / 86400, &y, &m, &d);
    snprintf(out, 16, "%04lld-%02d", (long long)y, m);
}

/* The invoice id DigitalOcean shows for the month (a number, as text). */
static void invoice_id(int64_t month, char out[24]) {
    snprintf(out, 24, "%lld", 10000000LL + month / 86400);
}

static void invoice_summary(struct jsonw *j, const struct sim_account *a, int64_t month,
                            int64_t now, bool preview) {
    char uuid[37], per[16], id[24];
    sim_do_invoice_uuid(a->w[0], month, uuid);
    period(month, per);
    invoice_id(month, id);
    jsonw_obj(j);
    jsonw_kstr(j, "invoice_uuid", uuid);
    jsonw_kstr(j, "invoice_id", id);
    money_str(j, "amount", month_total(a, month, now));
    jsonw_kstr(j, "invoice_period", per);
    if (preview)
        jsonw_ktime(j, "updated_at", now);
    jsonw_obj_end(j);
}

/* Closed invoices: billed months that ended by now, newest first (as DO lists them). */
static int closed_months(const struct sim_account *a, int64_t now, int64_t *out) {
    int64_t months[MAX_MONTHS];
    int n = billed_months(a, now, months), k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (timeutil_next_month_start(months[i]) <= now)
            out[k++] = months[i];
    return k;
}

/* Opens the paged list `key` of the closed months (into months, newest first). */
static bool closed_list_open(const struct sim_account *a, const struct request *req, int64_t now,
                             const char *key, int64_t months[MAX_MONTHS], struct page *pg,
                             struct jsonw *j, struct response *resp) {
    return sim_do_list_open(req, closed_months(a, now, months), key, pg, j, resp);
}

void sim_do_invoices(const struct sim_account *a, const struct request *req, int64_t now,
                     const char *base, struct response *resp) {
    int64_t months[MAX_MONTHS];
    struct page pg;
    struct jsonw j;
    if (!closed_list_open(a, req, now, "invoices", months, &pg, &j, resp))
        return;
    for (int64_t i = pg.first; i < pg.last; i++)
        invoice_summary(&j, a, months[i], now, false);
    jsonw_arr_end(&j);
    jsonw_key(&j, "invoice_preview");
    invoice_summary(&j, a, timeutil_month_start(now), now, true);
    sim_do_links_meta(&j, &pg, base, "/v2/customers/my/invoices");
    jsonw_obj_end(&j);
}

/* The month of invoice `uuid` (the preview's or a billed month's), -1 if none. */
static int64_t invoice_month(const struct sim_account *a, int64_t now, const char *uuid) {
    const struct sim_world *w = a->w[0]; /* its seed names the account's invoices */
    int64_t months[MAX_MONTHS];
    int n = billed_months(a, now, months);
    char cand[37];
    int64_t cur = timeutil_month_start(now);
    sim_do_invoice_uuid(w, cur, cand);
    if (strcmp(cand, uuid) == 0)
        return cur;
    for (int i = 0; i < n; i++) {
        sim_do_invoice_uuid(w, months[i], cand);
        if (strcmp(cand, uuid) == 0)
            return months[i];
    }
    return -1;
}

/* GET /v2/customers/my/invoices/{uuid}/summary: the month's product charges
 * (Droplets, the only product spotsim bills), no overages, taxes or credits. */
bool sim_do_invoice_summary_doc(const struct sim_account *a, int64_t now, const char *uuid,
                                struct response *resp) {
    int64_t month = invoice_month(a, now, uuid);
    if (month < 0)
        return false;
    char per[16], id[24];
    period(month, per);
    invoice_id(month, id);
    int items = 0;
    int64_t total = month_total_n(a, month, now, &items);
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_kstr(&j, "invoice_uuid", uuid);
    jsonw_kstr(&j, "invoice_id", id);
    jsonw_kstr(&j, "billing_period", per);
    money_str(&j, "amount", total);
    jsonw_kstr(&j, "user_name", "spotsim");
    jsonw_kstr(&j, "user_company", "spotsim");
    jsonw_kstr(&j, "user_email", "spotsim@example.com");
    jsonw_key(&j, "product_charges");
    jsonw_obj(&j);
    jsonw_kstr(&j, "name", "Product usage charges");
    money_str(&j, "amount", total);
    jsonw_key(&j, "items");
    jsonw_arr(&j);
    jsonw_obj(&j);
    money_str(&j, "amount", total);
    jsonw_kstr(&j, "name", "Droplets");
    char cnt[16];
    snprintf(cnt, sizeof cnt, "%d", items);
    jsonw_kstr(&j, "count", cnt);
    jsonw_obj_end(&j);
    jsonw_arr_end(&j);
    jsonw_obj_end(&j);
    static const char *const zero[][2] = {{"overages", "Overages"},
                                          {"taxes", "Taxes"},
                                          {"credits_and_adjustments", "Credits & adjustments"}};
    for (int k = 0; k < 3; k++) {
        jsonw_key(&j, zero[k][0]);
        jsonw_obj(&j);
        jsonw_kstr(&j, "name", zero[k][1]);
        jsonw_kstr(&j, "amount", "0.00");
        jsonw_obj_end(&j);
    }
    jsonw_obj_end(&j);
    return true;
}

static bool parse_day(const char *s, int64_t *out) {
    char tmp[32];
    if (strlen(s) != 10)
        return false;
    snprintf(tmp, sizeof tmp, "%sT00:00:00Z", s);
    return timeutil_parse_rfc3339(tmp, strlen(tmp), out) == ERR_OK;
}

/* GET /v2/billing/{account_urn}/insights/{start_date}/{end_date}: per day and node
 * pool, the Droplet usage billed that day (in cents), days up to now. */
void sim_do_insights(const struct sim_account *a, const struct request *req, int64_t now,
                     const char *rest, struct response *resp) {
    char urn[80], from_s[16], to_s[16];
    if (sscanf(rest, "%79[^/]/insights/%15[^/]/%15s", urn, from_s, to_s) != 3) {
        sim_do_not_found(resp);
        return;
    }
    int64_t from, to;
    if (!parse_day(from_s, &from) || !parse_day(to_s, &to) || to < from ||
        to - from > 400LL * 86400) {
        sim_do_error(resp, 400, "bad_request",
                     "start_date and end_date: YYYY-MM-DD, start <= end, at most 400 days");
        return;
    }
    /* the points (day x pool with a non-zero amount), then one page of them */
    struct point {
        int64_t day, amount;
        const struct sim_world *w;
        int pool;
    } *pts = NULL;
    size_t npts = 0, cap = 0;
    for (int64_t d = from; d <= to && d <= now; d += 86400) {
        for (int wk = 0; wk < a->n; wk++) {
            const struct sim_world *w = a->w[wk];
            for (int p = 0; p < w->npools; p++) {
                int64_t amount = 0;
                for (int i = 0; i < w->nnodes; i++) {
                    const struct sim_node *n = &w->nodes[i];
                    if (n->pool != p || n->ready_t == SIM_NEVER || n->ready_t > now)
                        continue;
                    int64_t amt = 0;
                    if (billing_node_amount(sim_billing_rate(w, i), n->ready_t,
                                            n->deleted_t <= now ? n->deleted_t : 0, now, d,
                                            d + 86400, &amt) == ERR_OK)
                        amount += amt;
                }
                amount = sim_billing_cents(amount);
                if (amount == 0)
                    continue;
                if (npts == cap) {
                    cap = cap ? cap * 2 : 64;
                    pts = xrealloc(pts, cap * sizeof *pts);
                }
                pts[npts++] = (struct point){d, amount, w, p};
            }
        }
    }
    struct page pg;
    struct jsonw j;
    if (!sim_do_list_open(req, (int64_t)npts, "data_points", &pg, &j, resp)) {
        free(pts);
        return;
    }
    for (int64_t k = pg.first; k < pg.last; k++) {
        const struct point *pt = &pts[k];
        const struct sim_world *w = pt->w;
        const struct sim_pool_spec *ps = &w->sc->pools[w->pools[pt->pool].spec];
        char day[16], team[96], desc[160];
        int64_t y;
        int mo, dd;
        timeutil_civil_from_days(pt->day / 86400, &y, &mo, &dd);
        snprintf(day, sizeof day, "%04d-%02d-%02d", (int)y, mo, dd);
        snprintf(team, sizeof team, "do:team:%s", w->cluster_id);
        snprintf(desc, sizeof desc, "%s nodes (%s)", w->pools[pt->pool].name, ps->size);
        jsonw_obj(&j);
        jsonw_kstr(&j, "usage_team_urn", team);
        jsonw_kstr(&j, "start_date", day);
        money_str(&j, "total_amount", pt->amount);
        jsonw_kstr(&j, "region", w->sc->region);
        jsonw_kstr(&j, "sku", "1-KS-K8SWN-00109");
        jsonw_kstr(&j, "description", desc);
        jsonw_kstr(&j, "group_description", w->sc->cluster_name);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_kint(&j, "total_items", (int64_t)npts);
    jsonw_kint(&j, "total_pages", npts == 0 ? 1 : ((int64_t)npts + pg.per_page - 1) / pg.per_page);
    jsonw_kint(&j, "current_page", pg.page);
    jsonw_obj_end(&j);
    free(pts);
}

bool sim_do_invoice_items(const struct sim_account *a, const struct request *req, int64_t now,
                          const char *base, const char *uuid, struct response *resp) {
    int64_t month = invoice_month(a, now, uuid);
    if (month < 0)
        return false;
    /* this month's items, world by world in node order */
    size_t ni;
    struct acct_item *all = account_items(a, now, &ni);
    int count = 0;
    for (size_t q = 0; q < ni; q++)
        if (all[q].it.month == month)
            all[count++] = all[q];
    struct page pg;
    struct jsonw j;
    if (!sim_do_list_open(req, count, "invoice_items", &pg, &j, resp)) {
        free(all);
        return true;
    }
    for (int64_t i = pg.first; i < pg.last; i++) {
        const struct sim_world *w = all[i].w;
        const struct sim_bill_item *it = &all[i].it;
        const struct sim_node *nd = &w->nodes[it->node];
        const struct sim_pool *p = &w->pools[nd->pool];
        const struct sim_pool_spec *ps = &w->sc->pools[p->spec];
        char tmp[160];
        jsonw_obj(&j);
        jsonw_kstr(&j, "product", "Droplets");
        jsonw_kstr(&j, "resource_id", nd->droplet_id);
        jsonw_kstr(&j, "resource_uuid", nd->do_id);
        snprintf(tmp, sizeof tmp, "Kubernetes cluster %s / node pool %s (%s)", w->sc->cluster_name,
                 p->name, p->id);
        jsonw_kstr(&j, "group_description", tmp);
        snprintf(tmp, sizeof tmp, "%s (%s)", nd->name, ps->size);
        jsonw_kstr(&j, "description", tmp);
        money_str(&j, "amount", sim_billing_cents(it->amount));
        snprintf(tmp, sizeof tmp, "%lld", (long long)sim_billing_hours(it->seconds));
        jsonw_kstr(&j, "duration", tmp);
        jsonw_kstr(&j, "duration_unit", "Hours");
        jsonw_ktime(&j, "start_time", it->start);
        jsonw_ktime(&j, "end_time", it->end);
        jsonw_kstr(&j, "project_name", w->sc->project_name);
        jsonw_kstr(&j, "category", "iaas");
        jsonw_obj_end(&j);
    }
    char path[128];
    snprintf(path, sizeof path, "/v2/customers/my/invoices/%s", uuid);
    sim_do_list_close(&j, &pg, base, path);
    free(all);
    return true;
}

void sim_do_billing_history(const struct sim_account *a, const struct request *req, int64_t now,
                            const char *base, struct response *resp) {
    int64_t months[MAX_MONTHS];
    struct page pg;
    struct jsonw j;
    if (!closed_list_open(a, req, now, "billing_history", months, &pg, &j, resp))
        return;
    static const char *const names[] = {"January",   "February", "March",    "April",
                                        "May",       "June",     "July",     "August",
                                        "September", "October",  "November", "December"};
    for (int64_t i = pg.first; i < pg.last; i++) {
        int64_t y;
        int m, d;
        timeutil_civil_from_days(months[i] / 86400, &y, &m, &d);
        char desc[64], uuid[37], id[24];
        snprintf(desc, sizeof desc, "Invoice for %s %lld", names[m - 1], (long long)y);
        sim_do_invoice_uuid(a->w[0], months[i], uuid);
        invoice_id(months[i], id);
        jsonw_obj(&j);
        jsonw_kstr(&j, "description", desc);
        money_str(&j, "amount", month_total(a, months[i], now));
        jsonw_kstr(&j, "invoice_id", id);
        jsonw_kstr(&j, "invoice_uuid", uuid);
        jsonw_ktime(&j, "date", timeutil_next_month_start(months[i]));
        jsonw_kstr(&j, "type", "Invoice");
        jsonw_obj_end(&j);
    }
    sim_do_list_close(&j, &pg, base, "/v2/customers/my/billing_history");
}

void sim_do_balance(const struct sim_account *a, int64_t now, struct response *resp) {
    int64_t months[MAX_MONTHS];
    int n = closed_months(a, now, months);
    int64_t owed = 0;
    for (int i = 0; i < n; i++)
        owed += month_total(a, months[i], now);
    int64_t mtd = month_total(a, timeutil_month_start(now), now);
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    money_str(&j, "month_to_date_balance", owed + mtd);
    money_str(&j, "account_balance", owed);
    money_str(&j, "month_to_date_usage", mtd);
    jsonw_ktime(&j, "generated_at", now);
    jsonw_obj_end(&j);
}
