# install-database.sh — the database steps of install.sh (the control plane's PostgreSQL role,
# database and migrations; the agent's MariaDB account) and of upgrade.sh (the pre-upgrade dump,
# the migrations with the service's env file, the restore after a failed upgrade). Sourced after
# install-common.sh (report); the caller defines todo and fail.
#
# No secret on a command line (every local user reads /proc/*/cmdline): a password goes to libpq
# in PGPASSWORD, to a program in its environment, and into SQL over stdin; the environment of a
# process is readable by its own user and root only.
# shellcheck shell=bash

# url_decode <text>: percent-decoding, as the services decode a URL's user and password.
url_decode() {
  local text=${1//\\/\\\\}
  printf '%b' "${text//%/\\x}"
}

# pg_literal, pg_ident <text>: a PostgreSQL string literal and a quoted identifier.
pg_literal() { printf "'%s'" "${1//\'/\'\'}"; }
pg_ident() { printf '"%s"' "${1//\"/\"\"}"; }
# mariadb_literal <text>: a MariaDB string literal (backslashes escape there).
mariadb_literal() {
  local text=${1//\\/\\\\}
  printf "'%s'" "${text//\'/\'\'}"
}

# postgres_url_parts <url>: db_user, db_password, db_host, db_port and db_name of a
# postgres://user:password@host:port/name URL (user, password and name decoded); 1 when it has
# another form.
postgres_url_parts() {
  [[ "$1" =~ ^postgres(ql)?://([^:@/]+):([^@/]*)@([^:/]+):?([0-9]*)/([^?]+) ]] || return 1
  # shellcheck disable=SC2034 # read by control_plane_database
  db_host=${BASH_REMATCH[4]} db_port=${BASH_REMATCH[5]:-5432}
  db_user=$(url_decode "${BASH_REMATCH[2]}")
  db_password=$(url_decode "${BASH_REMATCH[3]}")
  db_name=$(url_decode "${BASH_REMATCH[6]}")
}

# libpq_run <url> <program> [argument...]: a libpq program (psql, pg_dump, pg_restore) with
# --dbname=<the URL without its password> and the password in PGPASSWORD.
libpq_run() {
  local url=$1 program=$2 head password tail
  shift 2
  if [[ "$url" =~ ^(postgres(ql)?://[^:@/]*):([^@/]*)@(.*)$ ]]; then
    head=${BASH_REMATCH[1]} password=${BASH_REMATCH[3]} tail=${BASH_REMATCH[4]}
    url=$head@$tail
    password=$(url_decode "$password")
  fi
  (
    [[ -z "${password:-}" ]] || export PGPASSWORD="$password"
    exec "$program" --dbname="$url" "$@"
  )
}

# local_postgres_answers: Debian's PostgreSQL on this machine answers its postgres user.
local_postgres_answers() { command -v psql >/dev/null && runuser -u postgres -- psql -qtAc 'select 1' >/dev/null 2>&1; }

# ensure_postgres_account <user> <password> <database>: the role (with that password) and its
# database in the local PostgreSQL, as the postgres user; kept when they exist.
ensure_postgres_account() {
  local user=$1 password=$2 name=$3
  if [[ "$(runuser -u postgres -- psql -qtAc "select 1 from pg_roles where rolname = $(pg_literal "$user")")" == 1 ]]; then
    report "PostgreSQL-rol $user" ongewijzigd
  else
    # Over stdin: the password is in no command line.
    runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 <<SQL
set standard_conforming_strings = on;
create role $(pg_ident "$user") login password $(pg_literal "$password");
SQL
    report "PostgreSQL-rol $user" aangemaakt
  fi
  if [[ "$(runuser -u postgres -- psql -qtAc "select 1 from pg_database where datname = $(pg_literal "$name")")" == 1 ]]; then
    report "PostgreSQL-database $name" ongewijzigd
  else
    runuser -u postgres -- createdb --owner "$user" "$name"
    report "PostgreSQL-database $name" aangemaakt
  fi
}

# migrate_as <user> <database url> <devplein>: `devplein migrate` as that user with only the
# database setting of the service's env file (in its environment: runuser without --login keeps
# it); prints its output.
migrate_as() {
  (
    cd /
    export DATABASE_URL="$2"
    exec runuser -u "$1" -- "$3" migrate
  )
}

# ensure_mariadb_account <user> <password>: the agent's admin account in the local MariaDB (as
# root over its socket), kept when it exists.
ensure_mariadb_account() {
  local user=$1 password=$2
  if [[ "$(mariadb -NBe "select count(*) from mysql.user where user = $(mariadb_literal "$user") and host = '127.0.0.1'")" == 1 ]]; then
    report "MariaDB-account $user" ongewijzigd
  else
    # Over stdin: the password is in no command line.
    mariadb <<SQL
create user $(mariadb_literal "$user")@'127.0.0.1' identified by $(mariadb_literal "$password");
grant all privileges on *.* to $(mariadb_literal "$user")@'127.0.0.1' with grant option;
SQL
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
    local user=${BASH_REMATCH[1]} password=${BASH_REMATCH[2]}
    ensure_mariadb_account "$(url_decode "$user")" "$(url_decode "$password")"
  else
    report "MariaDB-account van de agent" overgeslagen "MariaDB niet bereikbaar als root"
    todo "MariaDB: maak het account uit AGENT_MYSQL_URL (/etc/devplein/agent.env) aan, zie docs/operations.md stap 5."
  fi
}

# dump_database <url> <file>: pg_dump's custom format of the database, readable by root only.
dump_database() {
  (umask 077 && libpq_run "$1" pg_dump --format=custom --file="$2")
}

# restore_database <url> <dump>: the dump into a clean database.
restore_database() {
  # A clean database first: what the new version's migrations made must not survive.
  libpq_run "$1" psql --no-psqlrc -q -v ON_ERROR_STOP=1 <<'SQL'
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
  libpq_run "$1" pg_restore --no-owner --exit-on-error --single-transaction "$2"
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
# the service's env file (env_pairs) and PATH as its whole environment, exported by this shell
# (not `env -i KEY=value…`, which puts every setting on a command line); prints its output.
migrate_with_env_file() {
  local settings setting name
  mapfile -t settings < <(env_pairs "$3")
  (
    while read -r name; do unset "$name" 2>/dev/null || true; done < <(compgen -e)
    export PATH=/usr/local/bin:/usr/bin:/bin
    for setting in "${settings[@]}"; do export "${setting?}"; done
    exec setpriv --reuid="$1" --regid="$2" --clear-groups -- "$4" migrate
  )
}
