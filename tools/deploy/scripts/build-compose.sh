#!/usr/bin/env bash
# Installs the Docker Compose CLI plugin from source, for machines whose `docker` has no
# `compose` (the deployment tests then run `docker compose config` instead of only the schema
# check). Needs Go and the Go module proxy; no Docker engine. Idempotent: the binary is cached in
# ~/.cache/entia (ENTIA_CACHE_DIR) and linked into ~/.docker/cli-plugins (DOCKER_CONFIG).
#
#   bash tools/deploy/scripts/build-compose.sh && docker compose version
#
# `go install …@version` refuses this module (its go.mod has exclude directives), so the exact
# module version is downloaded and built from its own go.mod/go.sum, as tools/stack does for FerretDB.
set -euo pipefail

VERSION="${COMPOSE_VERSION:-v2.40.3}"
MODULE="github.com/docker/compose/v2"
CACHE="${ENTIA_CACHE_DIR:-$HOME/.cache/entia}/compose/$VERSION"
PLUGINS="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"

if [ ! -x "$CACHE/docker-compose" ]; then
  command -v go >/dev/null || { echo "build-compose: Go is needed (https://go.dev/doc/install)" >&2; exit 1; }
  dir="$(go mod download -json "$MODULE@$VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
  [ -n "$dir" ] || { echo "build-compose: could not download $MODULE@$VERSION" >&2; exit 1; }
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  cp -r "$dir/." "$work/" && chmod -R u+w "$work"
  mkdir -p "$CACHE"
  (cd "$work" && go build -trimpath -ldflags "-X github.com/docker/compose/v2/internal.Version=$VERSION" -o "$CACHE/docker-compose.tmp" ./cmd)
  mv "$CACHE/docker-compose.tmp" "$CACHE/docker-compose"
fi

mkdir -p "$PLUGINS"
ln -sf "$CACHE/docker-compose" "$PLUGINS/docker-compose"
echo "docker compose $VERSION: $PLUGINS/docker-compose -> $CACHE/docker-compose"
