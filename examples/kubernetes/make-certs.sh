#!/usr/bin/env bash
# Makes a private CA and the four certificates the manifests mount, and stores them as
# Secrets in the `mastra` namespace: the members' server and peer certificates, the app's client
# certificate (CN=mastra-app: its etcd user once the etcd-auth Job has turned auth on) and root's
# (CN=root, for that Job only). Run once, from any directory, with kubectl pointed at
# the cluster. cert-manager can issue the same Secrets instead: keep the names and keys.
set -euo pipefail
NS=mastra
DAYS=825
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

openssl req -x509 -newkey rsa:2048 -nodes -days "$DAYS" -subj "/CN=mastra-etcd-ca" \
  -keyout ca.key -out ca.crt

# issue NAME CN EXTENSIONS
issue() {
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$2" -keyout "$1.key" -out "$1.csr"
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days "$DAYS" \
    -extfile "$1.ext" -out "$1.crt"
}

members="DNS:*.etcd.$NS.svc,DNS:*.etcd.$NS.svc.cluster.local"
issue server etcd "subjectAltName=$members,DNS:etcd-client.$NS.svc,DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
issue peer etcd-peer "subjectAltName=$members
extendedKeyUsage=serverAuth,clientAuth"
issue client mastra-app "extendedKeyUsage=clientAuth"
issue root root "extendedKeyUsage=clientAuth"

kubectl get namespace "$NS" >/dev/null 2>&1 || kubectl create namespace "$NS"
for name in server peer client root; do
  secret="etcd-$name-tls"
  kubectl -n "$NS" create secret generic "$secret" \
    --from-file=ca.crt=ca.crt --from-file=tls.crt="$name.crt" --from-file=tls.key="$name.key" \
    --dry-run=client -o yaml | kubectl apply -f -
done
