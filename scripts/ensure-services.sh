#!/usr/bin/env bash
# Make sure PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) answer, for the tests of the
# PostgreSQL and Redis paths. Starts them when installed but stopped; installs them from Debian's
# packages when missing and we are root. Never fails the build: tests that need a service skip
# with a clear reason when it is still unreachable.
set -u

pg_up() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
redis_up() { (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; }

apt_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
  echo "ensure-services: installing $* from Debian's packages"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >/dev/null 2>&1
}

if ! pg_up; then
  command -v pg_ctlcluster >/dev/null || apt_install postgresql
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    for version in $(ls /etc/postgresql); do
      pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 || true
    done
    for _ in $(seq 1 20); do pg_up && break; sleep 0.5; done
    # A fresh cluster only trusts its socket: let the tests connect over TCP as postgres.
    if ! psql -h 127.0.0.1 -U postgres -d postgres -c 'select 1' >/dev/null 2>&1; then
      for hba in /etc/postgresql/*/main/pg_hba.conf; do
        grep -q 'gradeformer-tests' "$hba" || sed -i '1i host all all 127.0.0.1/32 trust # gradeformer-tests' "$hba"
      done
      for version in $(ls /etc/postgresql); do
        pg_ctlcluster --skip-systemctl-redirect "$version" main reload >/dev/null 2>&1 || true
      done
    fi
  fi
fi
pg_up && echo "ensure-services: PostgreSQL answers on 127.0.0.1:5432" \
      || echo "ensure-services: PostgreSQL unavailable; its tests will be skipped"

if ! redis_up; then
  command -v redis-server >/dev/null || apt_install redis-server
  if command -v redis-server >/dev/null; then
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log >/dev/null 2>&1 \
      || redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null 2>&1
    for _ in $(seq 1 20); do redis_up && break; sleep 0.25; done
  fi
fi
redis_up && echo "ensure-services: Redis answers on 127.0.0.1:6379" \
         || echo "ensure-services: Redis unavailable; its tests will be skipped"
exit 0
