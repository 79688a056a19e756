/* bench_gen — seeded generators of the bench data (tests/bench/README.md):
 * Kubernetes List pages of realistic Jobs and Pods (managedFields and all), and a
 * SQLite database in spotledger's own schema (opened with store_open, so the
 * migrations run) holding N tasks, about 3 N attempts and N / 50 nodes.
 * Deterministic: same seed and sizes give the same bytes. Thread rule: main only. */
#ifndef SPOTLEDGER_BENCH_GEN_H
#define SPOTLEDGER_BENCH_GEN_H

#include <stdint.h>

/* The generated year: ISO weeks 2026-W01 .. 2026-W52 (Monday 2025-12-29 00:00 UTC). */
#define BENCH_T0 1766966400LL
#define BENCH_WEEK (7LL * 86400)
#define BENCH_WEEKS 52
/* A tenth of the tasks fall in this week (index from W01 = 0): 2026-W30. */
#define BENCH_HOT_WEEK 29
/* An ordinary week: 2026-W20. */
#define BENCH_NORMAL_WEEK 19

/* Writes jobs-NNNN.json and pods-NNNN.json (List pages of `limit` items, with
 * continue tokens) into dir. Returns 0, or -1 with a message on stderr. */
int bench_gen_k8s(const char *dir, long jobs, long pods, long limit, uint64_t seed);

/* Creates the database at path (must not exist). When week_tasks > 0, exactly that
 * many tasks start in BENCH_NORMAL_WEEK (the history-growth databases: the same week
 * in more and more history). Returns 0 or -1. */
int bench_gen_db(const char *path, long tasks, long nodes, long week_tasks, uint64_t seed);

/* A fleet (docs/fleet.md): `clusters` clusters named c00, c01, ... in one
 * database, each with its own pools and nodes and tasks_per tasks laid out as
 * bench_gen_db lays them (week_tasks_per of them in BENCH_NORMAL_WEEK when > 0).
 * Returns 0 or -1. */
int bench_gen_fleet_db(const char *path, int clusters, long tasks_per, long nodes_per,
                       long week_tasks_per, uint64_t seed);

#endif
