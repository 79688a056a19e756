#include "base/promw.h"

#include <stdio.h>
#include <string.h>

#include "base/money.h"

void promw_family(struct buf *b, const char *name, const char *type, const char *help) {
    buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void labels_out(struct buf *b, const char *const *labels) {
    if (!labels || !labels[0])
        return;
    buf_putc(b, '{');
    for (int i = 0; labels[i] && labels[i + 1]; i += 2) {
        if (i)
            buf_putc(b, ',');
        buf_printf(b, "%s=\"", labels[i]);
        for (const char *p = labels[i + 1]; *p; p++) {
            if (*p == '\\')
                buf_puts(b, "\\\\");
            else if (*p == '"')
                buf_puts(b, "\\\"");
            else if (*p == '\n')
                buf_puts(b, "\\n");
            else
                buf_putc(b, *p);
        }
        buf_putc(b, '"');
    }
    buf_putc(b, '}');
}

void promw_sample_int(struct buf *b, const char *name, const char *const *labels, int64_t v) {
    buf_puts(b, name);
    labels_out(b, labels);
    buf_printf(b, " %lld\n", (long long)v);
}

void promw_sample_micro(struct buf *b, const char *name, const char *const *labels, int64_t micro) {
    char tmp[MONEY_FMT_MAX];
    money_format(micro, tmp);
    buf_puts(b, name);
    labels_out(b, labels);
    buf_printf(b, " %s\n", tmp);
}
