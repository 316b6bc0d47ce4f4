# install-database.sh — the database steps of install.sh (the control plane's PostgreSQL role,
# database and migrations; the agent's MariaDB account) and of upgrade.sh (the pre-upgrade dump,
# the migrations with the service's env file, the restore after a failed upgrade). Sourced after
# install-common.sh (report); the caller defines todo and fail.
# shellcheck shell=bash

# postgres_url_parts <url>: db_user, db_password, db_host, db_port and db_name of a
# postgres://user:password@host:port/name URL; 1 when it has another form.
postgres_url_parts() {
  [[ "$1" =~ ^postgres(ql)?://([^:@/]+):([^@/]*)@([^:/]+):?([0-9]*)/([^?]+) ]] || return 1
  # shellcheck disable=SC2034 # read by control_plane_database
  db_user=${BASH_REMATCH[2]} db_password=${BASH_REMATCH[3]} db_host=${BASH_REMATCH[4]} db_port=${BASH_REMATCH[5]:-5432} db_name=${BASH_REMATCH[6]}
}

# local_postgres_answers: Debian's PostgreSQL on this machine answers its postgres user.
local_postgres_answers() { command -v psql >/dev/null && runuser -u postgres -- psql -qtAc 'select 1' >/dev/null 2>&1; }

# ensure_postgres_account <user> <password> <database>: the role (with that password) and its
# database in the local PostgreSQL, as the postgres user; kept when they exist.
ensure_postgres_account() {
  local user=$1 password=$2 name=$3
  if [[ "$(runuser -u postgres -- psql -qtAc "select 1 from pg_roles where rolname = '$user'")" == 1 ]]; then
    report "PostgreSQL-rol $user" ongewijzigd
  else
    runuser -u postgres -- psql -qc "create role \"$user\" login password '$password'"
    report "PostgreSQL-rol $user" aangemaakt
  fi
  if [[ "$(runuser -u postgres -- psql -qtAc "select 1 from pg_database where datname = '$name'")" == 1 ]]; then
    report "PostgreSQL-database $name" ongewijzigd
  else
    runuser -u postgres -- createdb --owner "$user" "$name"
    report "PostgreSQL-database $name" aangemaakt
  fi
}

# migrate_as <user> <database url> <devplein>: `devplein migrate` as that user with only the
# database setting of the service's env file; prints its output.
migrate_as() {
  (cd / && runuser -u "$1" -- env DATABASE_URL="$2" "$3" migrate)
}

# ensure_mariadb_account <user> <password>: the agent's admin account in the local MariaDB (as
# root over its socket), kept when it exists.
ensure_mariadb_account() {
  local user=$1 password=$2
  if [[ "$(mariadb -NBe "select count(*) from mysql.user where user = '$user' and host = '127.0.0.1'")" == 1 ]]; then
    report "MariaDB-account $user" ongewijzigd
  else
    mariadb -e "create user '$user'@'127.0.0.1' identified by '$password'; grant all privileges on *.* to '$user'@'127.0.0.1' with grant option"
    report "MariaDB-account $user" aangemaakt
  fi
}

# control_plane_database <env file> <service user> <devplein>: install.sh's database step of the
# control plane: with DATABASE_URL of the env file, a local PostgreSQL's role and database (as the
# postgres user), then `devplein migrate` as the service's user.
control_plane_database() {
  local database_url migrated db_user db_password db_host db_port db_name
  database_url=$(env_value "$1" DATABASE_URL)
  if ! postgres_url_parts "$database_url"; then
    report "PostgreSQL" overgeslagen "DATABASE_URL niet in de vorm postgres://gebruiker:wachtwoord@host:poort/naam"
    todo "Database: zet DATABASE_URL in /etc/devplein/control-plane.env; de migraties lopen bij de start (of: devplein migrate)."
    return
  fi
  # A local PostgreSQL of Debian's package: its account and database, as the postgres user.
  if [[ "$db_host" =~ ^(127\.0\.0\.1|localhost)$ ]] && local_postgres_answers; then
    ensure_postgres_account "$db_user" "$db_password" "$db_name"
  fi
  if (exec 3<>"/dev/tcp/$db_host/$db_port") 2>/dev/null; then
    # As the service's user, with only the database setting of its env file.
    migrated=$(migrate_as "$2" "$database_url" "$3" 2>&1) || {
      printf '%s\n' "$migrated" | sed 's/^/     /'
      fail "migrations failed"
    }
    if [[ "$migrated" == *"up to date"* ]]; then report "migraties" ongewijzigd "$migrated"; else report "migraties" uitgevoerd "$migrated"; fi
  else
    report "migraties" overgeslagen "PostgreSQL op $db_host:$db_port niet bereikbaar"
    todo "Database: PostgreSQL op $db_host:$db_port was niet bereikbaar; de migraties lopen bij de start van de control plane (of: devplein migrate)."
  fi
}

# agent_mariadb_account <env file>: install.sh's database step of the agent: the account of
# AGENT_MYSQL_URL in the local MariaDB, when that answers root over its socket.
agent_mariadb_account() {
  local mysql_url
  mysql_url=$(env_value "$1" AGENT_MYSQL_URL)
  if [[ "$mysql_url" =~ ^mysql://([^:@/]+):([^@/]*)@(127\.0\.0\.1|localhost) ]] && command -v mariadb >/dev/null && mariadb -e 'select 1' >/dev/null 2>&1; then
    ensure_mariadb_account "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
  else
    report "MariaDB-account van de agent" overgeslagen "MariaDB niet bereikbaar als root"
    todo "MariaDB: maak het account uit AGENT_MYSQL_URL (/etc/devplein/agent.env) aan, zie docs/operations.md stap 5."
  fi
}

# dump_database <url> <file>: pg_dump's custom format of the database, readable by root only.
dump_database() {
  (umask 077 && pg_dump --format=custom --file="$2" --dbname="$1")
}

# restore_database <url> <dump>: the dump into a clean database.
restore_database() {
  # A clean database first: what the new version's migrations made must not survive.
  psql --no-psqlrc -q -v ON_ERROR_STOP=1 --dbname="$1" <<'SQL'
set client_min_messages = warning;
do $$
declare s name;
begin
  for s in select nspname from pg_namespace
           where nspname !~ '^pg_' and nspname <> 'information_schema'
             and (nspname = 'public' or nspowner = (select oid from pg_roles where rolname = current_user))
  loop
    execute format('drop schema %I cascade', s);
  end loop;
end $$;
create schema if not exists public;
SQL
  pg_restore --no-owner --exit-on-error --single-transaction --dbname="$1" "$2"
}

# env_pairs <file>: its KEY=value lines as systemd reads them (one pair of quotes removed).
env_pairs() {
  local line value
  while IFS= read -r line || [[ -n "$line" ]]; do
    [[ "$line" =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
    value=${BASH_REMATCH[2]}
    value=${value#\"}
    value=${value%\"}
    printf '%s=%s\n' "${BASH_REMATCH[1]}" "$value"
  done <"$1"
}

# migrate_with_env_file <uid> <gid> <env file> <devplein>: `devplein migrate` as that user with
# the service's env file (env_pairs) and PATH as its whole environment; prints its output.
migrate_with_env_file() {
  local settings
  mapfile -t settings < <(env_pairs "$3")
  setpriv --reuid="$1" --regid="$2" --clear-groups -- \
    env -i PATH=/usr/local/bin:/usr/bin:/bin "${settings[@]}" "$4" migrate
}
