/* textout_fx — the fixture of the text writers' tests (header only; include after
 * cmocka.h): an output buffer b and, writing into it, a CSV writer c and a JSON
 * writer w, as cmocka state. A test writes through the writer it tests and reads b;
 * textout_fx_teardown releases b, also when the test failed. */
#ifndef SPOTLEDGER_TEST_TEXTOUT_FX_H
#define SPOTLEDGER_TEST_TEXTOUT_FX_H

#include <stdlib.h>

#include "base/buf.h"
#include "base/csv.h"
#include "base/jsonw.h"

struct textout_fx {
    struct buf b;
    struct csv c;
    struct jsonw w;
};

/* cmocka setup: an empty uncapped buffer and both writers on it. */
static inline int textout_fx_setup(void **state) {
    struct textout_fx *o = calloc(1, sizeof *o);
    assert_non_null(o);
    buf_init(&o->b, 0);
    csv_init(&o->c, &o->b);
    jsonw_init(&o->w, &o->b);
    *state = o;
    return 0;
}

static inline int textout_fx_teardown(void **state) {
    struct textout_fx *o = *state;
    buf_release(&o->b);
    free(o);
    return 0;
}

#endif
