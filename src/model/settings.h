/* settings — what the layers below the service need from its configuration, as
 * plain values. The service fills them once at start-up from its struct config
 * (service/app.c, app_use_config) and never changes them afterwards; query/ and
 * engine/ take these, never struct config (layer order: src/README.md). To pass
 * one more flag down, add a field here and fill it in app_use_config; a zeroed
 * struct (or NULL where a function takes a pointer) means every default.
 * Thread rule: read-only after start-up; any thread. */
#ifndef SPOTLEDGER_SETTINGS_H
#define SPOTLEDGER_SETTINGS_H

#include <stddef.h>

/* One KEY=VALUE flag value (--spot-label, --on-demand-size). */
struct config_pair {
    char *key;
    char *value;
};

/* The cost calculation's settings (query/calc.h). Strings are borrowed from the
 * service's config, which outlives every request. */
struct calc_settings {
    const char *default_configuration;         /* --default-configuration; NULL: fallback */
    const struct config_pair *on_demand_sizes; /* --on-demand-size SPOT=OD, flag order */
    size_t n_on_demand_sizes;
    const struct config_pair *spot_labels; /* --spot-label KEY=VALUE; none: the two defaults */
    size_t n_spot_labels;
    /* per request (a copy of the service's settings): the clusters to read,
     * ",a,b,"; NULL all (docs/fleet.md) */
    const char *clusters;
};

#endif
