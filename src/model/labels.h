/* labels — the Kubernetes label and annotation names spotledger reads, shared by
 * the parsers (source/k8s_api.c), the watcher and the advice rules. Names only,
 * no code. The spotledger.io/ ones are documented in the README (Configuration
 * reference, Setup advice).
 * Thread rule: constants. */
#ifndef SPOTLEDGER_LABELS_H
#define SPOTLEDGER_LABELS_H

#define K8S_LABEL_CONFIGURATION "spotledger.io/configuration"
#define K8S_LABEL_EXPERIMENT "spotledger.io/experiment"
#define K8S_ANNOTATION_IGNORE_ADVICE "spotledger.io/ignore-advice"
#define K8S_LABEL_POOL_ID "doks.digitalocean.com/node-pool-id"
#define K8S_LABEL_POOL_NAME "doks.digitalocean.com/node-pool"
#define K8S_LABEL_CONTROLLER_UID "batch.kubernetes.io/controller-uid"
#define K8S_LABEL_COMPLETION_INDEX "batch.kubernetes.io/job-completion-index"

#endif
