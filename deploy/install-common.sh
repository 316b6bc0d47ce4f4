# install-common.sh — what install.sh and upgrade.sh (both in this folder of the bundle) share:
# their output lines and how they read an env file and the root's users. Sourced, not run; the
# sourcing script sets R, the prefix of every path in the root (empty for the real root).
# shellcheck shell=bash

# section <title>: a heading in the transcript.
section() { printf '\n== %s\n' "$1"; }
# report <what> <status> [detail]
report() { printf '   %-52s %s%s\n' "$1" "$2" "${3:+ ($3)}"; }

# env_value <file> <KEY>: a setting of an env file (one pair of quotes removed).
env_value() {
  local value
  value=$(sed -n "s/^$2=//p" "$1" | tail -n 1)
  value=${value#\"}
  value=${value%\"}
  printf '%s' "$value"
}

# id_in passwd|group <name>: the id of a user or group from the root's own /etc (the host's may
# differ with --root).
# shellcheck disable=SC2154 # R is set by the sourcing script
id_in() { awk -F: -v name="$2" '$1 == name { print $3; found = 1 } END { exit !found }' "$R/etc/$1"; }
