#!/bin/sh
# The image's entry point: `docker run <image> <command> [args]`. Each command is the npm script of the
# same name (package.json; test/platform/release-files.test.ts holds them together), run by node with
# tsx's loader as PID 1's only child-free process, so SIGTERM reaches it directly.
set -e
command="${1:-help}"
[ $# -gt 0 ] && shift
case "$command" in
  api) exec node --import tsx cmd/api-main.ts "$@" ;;
  worker) exec node --import tsx cmd/worker-main.ts "$@" ;;
  migrate) exec node --import tsx cmd/migrate-main.ts "$@" ;;
  admin) exec node --import tsx cmd/admin.ts "$@" ;;
  sandbox) exec node --import tsx sandbox/main.ts "$@" ;;
  help | --help | -h)
    cat <<'USAGE'
usage: docker run <image> <command> [args]
  api       the API (all services, PORT 3000); applies pending migrations first
  worker    a worker polling both task queues; applies pending migrations first
  migrate   applies pending migrations to DATABASE_URL and exits
  admin     operator commands: admin <command> [--options] (docs/operations.md)
  sandbox   the sandbox parties (SMPP carrier, providers, banks, merchant, acquirer, bureau)
  <other>   runs it as given (e.g. sh)
USAGE
    ;;
  *) exec "$command" "$@" ;;
esac
