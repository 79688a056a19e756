/* k8s_pdb — the policy/v1 PodDisruptionBudget parser (model/k8s.h struct
 * k8s_pdb): spec.minAvailable / spec.maxUnavailable (a number or "N%"),
 * spec.selector.matchLabels, status.expectedPods / currentHealthy /
 * desiredHealthy / disruptionsAllowed. k8s_api.c calls it for K8S_PDB items
 * after it parsed the metadata, so Lists, watch lines and single objects of
 * PDBs go through k8s_api.h like every other kind.
 *
 * Invariants as k8s_api.h: absent numbers are -1; a malformed intstr ("abc",
 * "-1", "150%") counts as absent. A selector with matchExpressions, or none,
 * leaves selector_json NULL (the advisor does not evaluate it).
 *
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_K8S_PDB_H
#define SPOTLEDGER_K8S_PDB_H

#include <json-c/json.h>

#include "model/k8s.h"

/* Fills every field of p but meta from the object o (a JSON object). Allocates
 * p->selector_json (k8s_pdb_release frees it). */
void k8s_pdb_fill(json_object *o, struct k8s_pdb *p);
void k8s_pdb_release(struct k8s_pdb *p);

#endif
