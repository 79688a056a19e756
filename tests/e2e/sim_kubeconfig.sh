#!/bin/sh
# sim_kubeconfig — prints a kubeconfig for spotsim's HTTPS port (used by the e2e
# scripts that run kubectl). Usage: sim_kubeconfig.sh HOST:PORT CA_FILE TOKEN
set -eu
cat <<KC
apiVersion: v1
kind: Config
clusters:
- name: spotsim
  cluster:
    server: https://$1
    certificate-authority: $2
users:
- name: spotsim
  user:
    token: $3
contexts:
- name: spotsim
  context:
    cluster: spotsim
    user: spotsim
    namespace: batch
current-context: spotsim
KC
