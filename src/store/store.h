/* store — the SQLite database: the only module that holds SQL.
 *
 * One writer connection (pollers and exporter, serialized by its owner) and any
 * number of read-only connections (one per HTTP thread). WAL, busy_timeout,
 * foreign_keys=ON on every connection. Migrations (schema.h) are applied by the
 * writer at open, in order, each in its own transaction, tracked by
 * PRAGMA user_version; a database newer than this binary is refused.
 *
 * Entity-specific statements live in store_<area>.c files behind their own
 * headers; they share the statement cache declared in store_internal.h.
 *
 * Thread rule: a struct store belongs to one thread at a time. */
#ifndef SPOTLEDGER_STORE_H
#define SPOTLEDGER_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

struct store;

enum store_mode {
    STORE_WRITER, /* read-write; creates the file; migrates */
    STORE_READER, /* read-only (query_only); the file must exist */
};

/* Opens path. On ERR_OK *out is a new handle (free with store_free) and, for a
 * writer, *migrated (if not NULL) holds how many migrations were applied now.
 * Errors: ERR_DB (cannot open, corrupt, newer schema), ERR_NOMEM. */
enum err store_open(const char *path, enum store_mode mode, struct store **out, int *migrated);
/* Finalizes every statement and closes. NULL is a no-op. */
void store_free(struct store *s);

/* PRAGMA user_version of the open database. */
enum err store_schema_version(struct store *s, int *out);
/* Highest version compiled into this binary. */
int store_latest_version(void);

/* BEGIN IMMEDIATE (docs/style.md SQLite 3): every transaction that may write.
 * ERR_BUSY after busy_timeout, ERR_DB otherwise. */
enum err store_begin(struct store *s);
enum err store_commit(struct store *s);
/* Always safe to call; logs, never fails. */
void store_rollback(struct store *s);

/* --- fleet: the cluster of the rows written ---------------------------------
 * Cluster-scoped rows (schema/009_cluster.sql) carry the fleet name of the
 * cluster they were observed in. The writer connection is shared by every
 * cluster's watcher and poller: each sets its cluster with store_set_cluster
 * right after taking the writer lock, before its first write, and the writes
 * that follow bind it. A new connection writes under STORE_DEFAULT_CLUSTER (the
 * name of the one cluster of a single-cluster service). */
#define STORE_DEFAULT_CLUSTER "default"
#define STORE_CLUSTER_MAX 64
/* Sets the cluster of the following writes; NULL or "" is the default. A name
 * longer than STORE_CLUSTER_MAX - 1 bytes is ERR_INVAL (and nothing changes). */
enum err store_set_cluster(struct store *s, const char *name);
/* The cluster writes are bound to now (never NULL). */
const char *store_cluster(const struct store *s);
/* The clusters the following cost loads read (store_cost.h): a list of fleet
 * names as ",a,b," (leading and trailing comma), NULL = every cluster. Set by
 * each loader from its options; statements naming :clusters get it bound. */
void store_set_read_clusters(struct store *s, const char *clusters);

/* "PRAGMA integrity_check" == "ok". */
enum err store_integrity_ok(struct store *s, bool *ok);

/* --- poll runs ------------------------------------------------------------- */

#define STORE_ERROR_MAX 512

struct store_poll {
    int64_t id;
    char source[16];
    int64_t started_at;  /* local wall clock */
    int64_t finished_at; /* 0 while running */
    int64_t source_time; /* the source's Date; 0 unknown */
    char status[8];      /* "running", "ok", "error" */
    char error[STORE_ERROR_MAX];
    int64_t requests;
    int64_t items;
};

/* Inserts a 'running' row; *id receives its id. */
enum err store_poll_begin(struct store *s, const char *source, int64_t started_at, int64_t *id);
/* Completes a row. error NULL means success. */
enum err store_poll_end(struct store *s, int64_t id, int64_t finished_at, int64_t source_time,
                        const char *error, int64_t requests, int64_t items);
/* Latest finished run of source (ok_only: latest successful one).
 * ERR_NOTFOUND when there is none. */
enum err store_poll_last(struct store *s, const char *source, bool ok_only, struct store_poll *out);
/* store_poll_last of one cluster's runs of source (cluster NULL: any). */
enum err store_poll_last_cluster(struct store *s, const char *source, const char *cluster,
                                 bool ok_only, struct store_poll *out);

#endif
