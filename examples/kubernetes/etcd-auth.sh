#!/bin/sh
# Turns on etcd auth with least privilege for the app: a root user (etcd needs one before `auth enable`), a role
# with readwrite on the app's lease and event prefixes only, and the app's user holding just that role. Under
# --client-cert-auth etcd takes a client certificate's CN as the user: the app's (CN=mastra-app) then reaches
# only its prefixes, and no other certificate the CA signed is root any more.
#
# These are the "Least privilege in etcd" commands of docs/security.md, made safe to run again: what exists is left as it is
# (a role already granted, a permission already given and auth already on are no-ops in etcd).
#
#   ETCDCTL_ENDPOINTS, ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY   etcdctl's own variables: a root certificate (CN=root)
#   APP_USER       the CN of the app's client certificate           (default mastra-app)
#   APP_ROLE       the role created for it                           (default mastra-app)
#   APP_PREFIXES   space-separated key prefixes the role may use     (default "mastra/lease/ mastra/events/")
#   WAIT_SECONDS   how long to wait for etcd to answer               (default 120)
set -eu
export ETCDCTL_API=3
app_user="${APP_USER:-mastra-app}"
app_role="${APP_ROLE:-mastra-app}"
app_prefixes="${APP_PREFIXES:-mastra/lease/ mastra/events/}"
wait_seconds="${WAIT_SECONDS:-120}"

# The Job may start before the members have elected a leader: wait until a read goes through.
waited=0
until etcdctl get --keys-only --limit=1 probe >/dev/null 2>&1; do
  waited=$((waited + 2))
  [ "$waited" -le "$wait_seconds" ] || { etcdctl get --keys-only --limit=1 probe; exit 1; }
  sleep 2
done

exists() { etcdctl "$1" get "$2" >/dev/null 2>&1; }

exists user root || etcdctl user add root --no-password
etcdctl user grant-role root root
exists role "$app_role" || etcdctl role add "$app_role"
for prefix in $app_prefixes; do
  etcdctl role grant-permission "$app_role" readwrite "$prefix" --prefix=true
done
exists user "$app_user" || etcdctl user add "$app_user" --no-password
etcdctl user grant-role "$app_user" "$app_role"
etcdctl auth enable
echo "etcd auth is on; $app_user may read and write under: $app_prefixes"
