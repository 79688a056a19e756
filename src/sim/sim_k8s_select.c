/* sim_k8s_select — label selectors (sim_k8s_api.h: k=v, k==v, k!=v, k, !k,
 * k in (..), k notin (..)) and the field selectors kube-apiserver supports for
 * pods, nodes, events and jobs (sim_k8s_serve.h). */
#include "sim/sim_k8s_serve.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "sim/sim_k8s_obj.h"

/* --- label selectors --- */

enum sel_op { SEL_EQ, SEL_NE, SEL_EXISTS, SEL_NOT_EXISTS, SEL_IN, SEL_NOTIN };

#define SEL_MAX_TERMS 16
#define SEL_MAX_VALUES 16

struct sel_term {
    enum sel_op op;
    char *key;
    char *values[SEL_MAX_VALUES];
    int nvalues;
};

struct sim_selector {
    struct sel_term terms[SEL_MAX_TERMS];
    int n;
};

void sim_selector_free(struct sim_selector *sel) {
    if (!sel)
        return;
    for (int i = 0; i < sel->n; i++) {
        free(sel->terms[i].key);
        for (int k = 0; k < sel->terms[i].nvalues; k++)
            free(sel->terms[i].values[k]);
    }
    free(sel);
}

static char *trimdup(const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return xstrndup(s, n);
}

static bool valid_label_part(const char *s, bool value) {
    if (!*s)
        return value;
    for (const char *p = s; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.' || (!value && c == '/');
        if (!ok)
            return false;
    }
    return true;
}

enum err sim_selector_parse(const char *s, struct sim_selector **out) {
    struct sim_selector *sel = xcalloc(1, sizeof *sel);
    const char *p = s ? s : "";
    while (*p) {
        /* one term ends at a comma outside parentheses */
        const char *end = p;
        int depth = 0;
        while (*end && (depth > 0 || *end != ',')) {
            if (*end == '(')
                depth++;
            else if (*end == ')')
                depth--;
            end++;
        }
        if (sel->n >= SEL_MAX_TERMS)
            goto bad;
        struct sel_term *t = &sel->terms[sel->n];
        char *term = trimdup(p, (size_t)(end - p));
        char *q;
        if (!*term) {
            free(term);
            goto bad;
        }
        if ((q = strstr(term, "!=")) != NULL) {
            t->op = SEL_NE;
            t->key = trimdup(term, (size_t)(q - term));
            t->values[t->nvalues++] = trimdup(q + 2, strlen(q + 2));
        } else if ((q = strstr(term, "==")) != NULL) {
            t->op = SEL_EQ;
            t->key = trimdup(term, (size_t)(q - term));
            t->values[t->nvalues++] = trimdup(q + 2, strlen(q + 2));
        } else if ((q = strchr(term, '=')) != NULL) {
            t->op = SEL_EQ;
            t->key = trimdup(term, (size_t)(q - term));
            t->values[t->nvalues++] = trimdup(q + 1, strlen(q + 1));
        } else if ((q = strstr(term, " notin ")) != NULL || (q = strstr(term, " in ")) != NULL) {
            bool notin = strncmp(q, " notin ", 7) == 0;
            t->op = notin ? SEL_NOTIN : SEL_IN;
            t->key = trimdup(term, (size_t)(q - term));
            const char *lp = strchr(q, '('), *rp = strrchr(q, ')');
            if (!lp || !rp || rp < lp || rp[1] != '\0') {
                sel->n++;
                free(term);
                goto bad;
            }
            const char *v = lp + 1;
            while (v < rp) {
                const char *c = memchr(v, ',', (size_t)(rp - v));
                const char *ve = c ? c : rp;
                if (t->nvalues >= SEL_MAX_VALUES) {
                    sel->n++;
                    free(term);
                    goto bad;
                }
                t->values[t->nvalues++] = trimdup(v, (size_t)(ve - v));
                v = c ? c + 1 : rp;
            }
        } else if (term[0] == '!') {
            t->op = SEL_NOT_EXISTS;
            t->key = trimdup(term + 1, strlen(term + 1));
        } else {
            t->op = SEL_EXISTS;
            t->key = trimdup(term, strlen(term));
        }
        sel->n++;
        free(term);
        if (!*t->key || !valid_label_part(t->key, false))
            goto bad;
        for (int k = 0; k < t->nvalues; k++)
            if (!valid_label_part(t->values[k], true))
                goto bad;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            goto bad; /* trailing comma */
    }
    *out = sel;
    return ERR_OK;
bad:
    sim_selector_free(sel);
    return ERR_PARSE;
}

bool sim_selector_match(const struct sim_selector *sel, const struct sim_world *w,
                        enum sim_kind kind, int idx) {
    if (!sel || sel->n == 0)
        return true;
    struct sim_labels l;
    sim_obj_labels(w, kind, idx, &l);
    for (int i = 0; i < sel->n; i++) {
        const struct sel_term *t = &sel->terms[i];
        const char *v = NULL;
        for (int k = 0; k < l.n; k++)
            if (strcmp(l.key[k], t->key) == 0)
                v = l.value[k];
        bool in = false;
        for (int k = 0; v && k < t->nvalues; k++)
            if (strcmp(v, t->values[k]) == 0)
                in = true;
        bool ok;
        switch (t->op) {
        case SEL_EQ:
        case SEL_IN:
            ok = v && in;
            break;
        case SEL_NE:
        case SEL_NOTIN:
            ok = !v || !in;
            break;
        case SEL_EXISTS:
            ok = v != NULL;
            break;
        default:
            ok = v == NULL;
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}

/* The value of a supported field label of object idx, or NULL if the label is not
 * supported for that kind (as kube-apiserver's field label conversion). */
static const char *field_value(const char *key, size_t klen, const struct sim_world *w,
                               enum sim_kind kind, int idx, int64_t asof) {
#define KEY(s) (klen == sizeof(s) - 1 && strncmp(key, s, klen) == 0)
    if (KEY("metadata.name"))
        return sim_obj_name(w, kind, idx);
    if (KEY("metadata.namespace"))
        return sim_obj_namespace(w, kind, idx);
    if (kind == SIM_K_POD && KEY("spec.nodeName"))
        return w->pods[idx].node >= 0 && w->pods[idx].sched_seq <= asof
                   ? w->nodes[w->pods[idx].node].name
                   : "";
    if (kind == SIM_K_POD && KEY("status.phase"))
        return sim_pod_phase(w, idx, asof);
    if (kind == SIM_K_EVENT) {
        const struct sim_kevent *ev = &w->events[idx];
        if (KEY("involvedObject.kind"))
            return sim_kind_name(ev->obj_kind);
        if (KEY("involvedObject.name"))
            return sim_obj_name(w, ev->obj_kind, ev->obj);
        if (KEY("involvedObject.namespace"))
            return sim_obj_namespace(w, ev->obj_kind, ev->obj);
        if (KEY("involvedObject.uid"))
            return sim_obj_uid(w, ev->obj_kind, ev->obj);
        if (KEY("reason"))
            return ev->reason;
        if (KEY("type"))
            return ev->type;
    }
    return NULL;
#undef KEY
}

/* One requirement of a field selector: key=value, key==value or key!=value (neg). */
struct field_req {
    const char *key, *val;
    size_t klen, vlen;
    bool neg;
};

/* Reads the requirement at *p (up to the next ',') into r and moves *p past it;
 * false when it has no '='. */
static bool next_req(const char **p, struct field_req *r) {
    const char *end = strchr(*p, ',');
    size_t n = end ? (size_t)(end - *p) : strlen(*p);
    const char *eq = memchr(*p, '=', n);
    if (!eq)
        return false;
    r->neg = eq > *p && eq[-1] == '!';
    r->key = *p;
    r->klen = (size_t)(eq - *p) - (r->neg ? 1 : 0);
    r->val = eq + 1;
    if (*r->val == '=')
        r->val++;
    r->vlen = n - (size_t)(r->val - *p);
    *p = end ? end + 1 : *p + n;
    return true;
}

bool sim_k8s_field_match(const char *fsel, const struct sim_world *w, enum sim_kind kind, int idx,
                         int64_t asof) {
    if (!fsel || !*fsel)
        return true;
    const char *p = fsel;
    while (*p) {
        struct field_req r;
        if (!next_req(&p, &r))
            return false;
        const char *have = field_value(r.key, r.klen, w, kind, idx, asof);
        if (!have)
            return false;
        bool eqv = strlen(have) == r.vlen && strncmp(have, r.val, r.vlen) == 0;
        if (eqv == r.neg)
            return false;
    }
    return true;
}

/* Every label of fsel is supported for kind (checked on a probe object: the
 * labels depend on the kind only). */
bool sim_k8s_field_selector_ok(const char *fsel, const struct sim_world *w, enum sim_kind kind) {
    if (!fsel || !*fsel)
        return true;
    if (sim_obj_count(w, kind) == 0)
        return true;
    const char *p = fsel;
    while (*p) {
        struct field_req r;
        if (!next_req(&p, &r) || !field_value(r.key, r.klen, w, kind, 0, 0))
            return false;
    }
    return true;
}
