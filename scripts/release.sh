#!/usr/bin/env bash
# Builds every release artifact into dist/:
#   - static binaries (CGO_ENABLED=0, -trimpath, version stamped) for linux,
#     darwin and windows on amd64 and arm64, as archives, with SHA256SUMS;
#   - the npm packages: @stet-dev/stet (a launcher) and one package per
#     platform holding its binary, as tarballs (npm pack);
#   - one Claude Desktop extension (.mcpb) per platform, validated and packed
#     with the pinned @anthropic-ai/mcpb CLI;
#   - server.json for the MCP Registry, naming the npm package.
#
# usage: scripts/release.sh [--snapshot | --publish | --check-publish]
#
# Without --snapshot, HEAD must be a clean checkout of a tag vX.Y.Z, and the
# version is that tag. With --snapshot, any checkout builds, as version
# 0.0.0-snapshot+<short commit> (npm, the extension and server.json take the
# semver form 0.0.0-snapshot.<short commit>).
#
# --publish builds the tag's release as above, signs the .mcpb bundles, then
# publishes: a GitHub release of the tag with every file in dist/, the npm
# packages, and server.json to the MCP Registry (docs/releasing.md). Before
# building it checks every credential it needs and refuses, naming each one
# missing: NPM_TOKEN; GH_TOKEN (or a gh auth login); an mcp-publisher login;
# STET_MCPB_CERT and STET_MCPB_KEY, the PEM files for mcpb sign.
# --check-publish does only that check: no build, no network.
#
# STET_RELEASE_TARGETS="linux/amd64 darwin/arm64" builds only those targets
# (default: all six). Needs go, node, npm, tar, and zip or python3.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
targets=${STET_RELEASE_TARGETS:-$all_targets}
snapshot=false
publish=false
check_only=false

die() { echo "release: $*" >&2; exit 1; }

for arg in "$@"; do
  case $arg in
    --snapshot) snapshot=true ;;
    --publish) publish=true ;;
    --check-publish) publish=true check_only=true ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $arg; the flags are --snapshot, --publish and --check-publish (see scripts/release.sh --help)" ;;
  esac
done
if $snapshot && $publish; then
  die "--snapshot builds are never published; drop --snapshot, or build without publishing"
fi

# check_credentials: every credential and tool --publish needs, each missing
# one named with how to provide it. Reads the environment and local files
# only; it contacts no network.
check_credentials() {
  local missing=()
  [ -n "${NPM_TOKEN:-}" ] ||
    missing+=("NPM_TOKEN is not set: an npm automation (or granular publish) token for the @stet-dev organization")
  if ! command -v gh >/dev/null 2>&1; then
    missing+=("gh (the GitHub CLI) is not installed: it creates the GitHub release")
  elif [ -z "${GH_TOKEN:-}${GITHUB_TOKEN:-}" ] && ! gh auth token >/dev/null 2>&1; then
    missing+=("no GitHub token: set GH_TOKEN (contents: write on stet-dev/stet) or run gh auth login")
  fi
  if ! command -v mcp-publisher >/dev/null 2>&1; then
    missing+=("mcp-publisher is not installed: it publishes server.json to the MCP Registry")
  elif [ ! -s "$HOME/.mcp_publisher_token" ] && [ ! -s "$HOME/.config/mcp-publisher/token.json" ]; then
    missing+=("no MCP Registry login: run mcp-publisher login github (as a member of the stet-dev GitHub organization)")
  fi
  local v
  for v in STET_MCPB_CERT STET_MCPB_KEY; do
    if [ -z "${!v:-}" ]; then
      case $v in
        STET_MCPB_CERT) missing+=("STET_MCPB_CERT is not set: the certificate (a PEM file) mcpb sign signs the .mcpb bundles with") ;;
        *) missing+=("STET_MCPB_KEY is not set: that certificate's private key (a PEM file) for mcpb sign") ;;
      esac
    elif [ ! -r "${!v}" ]; then
      missing+=("$v names ${!v}, which is not a readable file")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "release: refusing to publish; missing:" >&2
    printf '  - %s\n' "${missing[@]}" >&2
    echo "release: see docs/releasing.md; scripts/release.sh --snapshot builds without publishing" >&2
    exit 1
  fi
  echo "release: every credential for publishing is present"
}

if $publish; then
  check_credentials
  $check_only && exit 0
fi

for t in $targets; do
  case " $all_targets " in
    *" $t "*) ;;
    *) die "STET_RELEASE_TARGETS: $t is not a release target; choose from: $all_targets" ;;
  esac
done

for tool in go node npm tar git; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed; it is needed to build the release"
done

commit=$(git rev-parse --short=12 HEAD 2>/dev/null) || die "not a git checkout; run from a clone of the repository"
if $snapshot; then
  suffix=$commit
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    suffix="$commit.dirty"
  fi
  version="0.0.0-snapshot+$suffix"
  # A numeric semver identifier may not start with 0: keep the commit
  # alphanumeric (as git describe does, with a g) when it is all digits.
  case $commit in
    *[a-f]*) semver="0.0.0-snapshot.$suffix" ;;
    *) semver="0.0.0-snapshot.g$suffix" ;;
  esac
else
  tag=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null) ||
    die "HEAD ($commit) is not at a release tag vX.Y.Z; tag it (git tag v0.1.0) or build a snapshot with --snapshot"
  [[ $tag =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
    die "tag $tag is not of the form vX.Y.Z[-pre]; retag, or build a snapshot with --snapshot"
  [ -z "$(git status --porcelain --untracked-files=no)" ] ||
    die "the checkout has uncommitted changes; a release builds only the tagged tree (commit or stash them, or use --snapshot)"
  version=$tag
  semver=${tag#v}
fi

dist=dist
rm -rf "$dist"
mkdir -p "$dist"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "release: stet $version (npm $semver) for: $targets"

# zipdir OUT PARENT NAME: a zip of the directory PARENT/NAME, as NAME/...
# (zip, else python3's zipfile).
zipdir() {
  local out=$1 parent=$2 name=$3
  if command -v zip >/dev/null 2>&1; then
    (cd "$parent" && zip -q -r -X "$out" "$name")
  elif command -v python3 >/dev/null 2>&1; then
    (cd "$parent" && python3 -m zipfile -c "$out" "$name")
  else
    die "neither zip nor python3 is installed; one is needed for the Windows archives"
  fi
}

# Node's names for Go's GOOS and GOARCH: the npm packages' os and cpu fields,
# and the extension's platforms.
node_os() { case $1 in windows) echo win32 ;; *) echo "$1" ;; esac; }
node_cpu() { case $1 in amd64) echo x64 ;; *) echo "$1" ;; esac; }

# --- binaries -------------------------------------------------------------
for t in $targets; do
  goos=${t%/*} goarch=${t#*/}
  exe=stet
  [ "$goos" = windows ] && exe=stet.exe
  name="stet_${semver}_${goos}_${goarch}"
  mkdir -p "$work/bin/$name"
  echo "release: go build $goos/$goarch"
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
    -ldflags "-s -w -X main.version=$version" -o "$work/bin/$name/$exe" ./cmd/stet
  cp LICENSE README.md "$work/bin/$name/"
  if [ "$goos" = windows ]; then
    zipdir "$PWD/$dist/$name.zip" "$work/bin" "$name"
  else
    tar -C "$work/bin" -czf "$dist/$name.tar.gz" --owner=0 --group=0 "$name"
  fi
done

# --- npm packages ---------------------------------------------------------
# Staged copies of npm/stet and npm/platform with the version filled in.
plats=()
for t in $targets; do
  goos=${t%/*} goarch=${t#*/}
  plats+=("$(node_os "$goos")/$(node_cpu "$goarch")=$work/bin/stet_${semver}_${goos}_${goarch}")
done
node npm/stage.mjs "$semver" "$work/npm" "${plats[@]}"
for pkg in "$work"/npm/*/; do
  (cd "$pkg" && npm pack --silent --pack-destination "$OLDPWD/$dist" >/dev/null)
done

# --- Claude Desktop extensions (.mcpb) ------------------------------------
# The pinned CLI, installed from packaging/mcpb/package-lock.json.
if [ ! -x packaging/mcpb/node_modules/.bin/mcpb ]; then
  npm ci --prefix packaging/mcpb --no-audit --no-fund --silent
fi
mcpb=packaging/mcpb/node_modules/.bin/mcpb
# The tool list shown in the extension's page comes from a binary for this
# machine (the targets above may not include it).
CGO_ENABLED=0 go build -trimpath -o "$work/stet-host" ./cmd/stet # shares the targets' build cache
"$work/stet-host" tools --format mcp >"$work/tools.json"
for t in $targets; do
  goos=${t%/*} goarch=${t#*/}
  exe=stet
  [ "$goos" = windows ] && exe=stet.exe
  dir="$work/mcpb/$goos-$goarch"
  mkdir -p "$dir/server"
  cp "$work/bin/stet_${semver}_${goos}_${goarch}/$exe" "$dir/server/$exe"
  cp LICENSE "$dir/"
  node packaging/mcpb/manifest.mjs "$semver" "$(node_os "$goos")" "server/$exe" "$work/tools.json" >"$dir/manifest.json"
  "$mcpb" validate "$dir/manifest.json" >"$work/validate.log" 2>&1 ||
    { cat "$work/validate.log" >&2; die "mcpb validate rejected the manifest for $goos/$goarch"; }
  "$mcpb" pack "$dir" "$dist/stet_${semver}_${goos}_${goarch}.mcpb" >"$work/pack.log" 2>&1 ||
    { cat "$work/pack.log" >&2; die "mcpb pack failed for $goos/$goarch"; }
  if $publish; then
    "$mcpb" sign --cert "$STET_MCPB_CERT" --key "$STET_MCPB_KEY" "$dist/stet_${semver}_${goos}_${goarch}.mcpb" >"$work/sign.log" 2>&1 ||
      { cat "$work/sign.log" >&2; die "mcpb sign failed for $goos/$goarch"; }
  fi
done

# --- MCP Registry server.json ---------------------------------------------
node -e '
const fs = require("fs");
const [src, version] = process.argv.slice(1);
const s = JSON.parse(fs.readFileSync(src, "utf8"));
s.version = version;
for (const p of s.packages) p.version = version;
process.stdout.write(JSON.stringify(s, null, 2) + "\n");
' packaging/server.json "$semver" >"$dist/server.json"

# --- checksums ------------------------------------------------------------
(
  cd "$dist"
  shopt -s nullglob
  files=(*.tar.gz *.zip *.tgz *.mcpb server.json)
  sha256sum -- "${files[@]}" >SHA256SUMS
)
echo "release: wrote $dist/:"
(cd "$dist" && ls -1)
$publish || exit 0

# --- publish ----------------------------------------------------------------
# In this order: the GitHub release (every file in dist/), the npm platform
# packages and then the launcher that depends on them, then server.json, which
# the MCP Registry checks against the published npm package.
echo "release: publishing $version"
gh release create "$version" --verify-tag --title "stet $version" \
  --notes "stet $version: see docs/install.md. Check downloads with SHA256SUMS." "$dist"/*
# The token reaches npm through a private npmrc, never the user's.
printf '//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n' >"$work/npmrc"
for f in "$dist"/stet-dev-stet-[a-z]*.tgz "$dist"/stet-dev-stet-[0-9]*.tgz; do
  npm publish --access public --userconfig "$work/npmrc" "$f"
done
(cd "$dist" && mcp-publisher publish)
echo "release: published $version (GitHub release, npm, MCP Registry)"
