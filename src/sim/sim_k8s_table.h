/* sim_k8s_table — the meta.k8s.io/v1 Table form of lists, GETs and watch events,
 * what kubectl asks for (Accept: application/json;as=Table;v=v1;g=meta.k8s.io) to
 * print `kubectl get` columns. The columns and their priorities (1 = -o wide
 * only) follow kube-apiserver's printers for Pods, Nodes, Jobs, Events and
 * PodDisruptionBudgets. Each row's cells are read from the object as
 * sim_obj_render writes it (so a row and the JSON of the same seq agree), and
 * the row carries that object in full. Ages are relative to simulated now.
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_SIM_K8S_TABLE_H
#define SPOTLEDGER_SIM_K8S_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/jsonw.h"
#include "sim/sim_world.h"

/* Whether an Accept header asks for the Table form. */
bool sim_table_wanted(const char *accept);

/* {"kind":"Table", ..., "columnDefinitions":[...], "rows":[ — then rows, then end. */
void sim_table_begin(struct jsonw *j, enum sim_kind kind, int64_t rv, const char *cont,
                     int64_t remaining);
void sim_table_row(struct jsonw *j, const struct sim_world *w, enum sim_kind kind, int idx,
                   int64_t asof, int64_t now);
void sim_table_end(struct jsonw *j);

/* Kubernetes' HumanDuration ("45s", "3m12s", "5h", "2d3h", ...) into out. */
void sim_table_age(int64_t seconds, char *out, size_t n);

#endif
