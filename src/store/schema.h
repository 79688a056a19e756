/* schema — the migrations of schema/NNN_name.sql, compiled into the binary by
 * schema/gen_schema.sh (build/gen/schema_sql.c), in version order.
 * Thread rule: read-only data, any thread. */
#ifndef SPOTLEDGER_SCHEMA_H
#define SPOTLEDGER_SCHEMA_H

struct schema_migration {
    int version;      /* NNN of the file name; strictly increasing */
    const char *name; /* "001_init" */
    const char *sql;
};

extern const struct schema_migration schema_migrations[];
extern const int schema_migrations_count;

#endif
