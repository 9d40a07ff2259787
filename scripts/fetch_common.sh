# Shared by the fetch_*.sh scripts (sourced, not run): the idempotence stamp, an npm package checked
# against its published integrity, Debian packages through apt. Each refuses what does not match its pin.

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# up_to_date STAMP WANT LABEL: exit the calling script when STAMP already records WANT.
up_to_date() {
    if [[ -f "$1" && "$(cat "$1")" == "$2" ]]; then
        echo "$3 up to date: $(dirname "$1")"
        exit 0
    fi
}

# npm_pack_checked WORK SPEC INTEGRITY: `npm pack` SPEC into WORK, check the tarball's sha512 against the
# registry's dist.integrity, print the tarball's path.
npm_pack_checked() {
    local tarball got
    tarball="$(cd "$1" && npm pack --silent "$2" 2>/dev/null | tail -n1)"
    got="$(python3 -c 'import base64, hashlib, sys
print("sha512-" + base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$1/$tarball")"
    if [[ "$got" != "$3" ]]; then
        echo "integrity mismatch for $tarball: $got" >&2
        exit 1
    fi
    echo "$1/$tarball"
}

# apt_download DIR LOG PACKAGE...: the .debs into DIR. apt-get download writes into the current folder (as
# root it warns that the _apt sandbox cannot write there, which is harmless and left out of the error).
apt_download() {
    local dir="$1" log="$2"
    shift 2
    if ! (cd "$dir" && apt-get download -qq "$@" 2>"$log"); then
        grep -v "unsandboxed" "$log" >&2 || true
        echo "apt-get download failed; on a fresh machine run 'apt-get update' first" >&2
        exit 1
    fi
}

# stage DEST PREFIX: a scratch folder ($work) and DEST's replacement, built beside it ($staging) so that an
# interrupted fetch never leaves a half-filled DEST; both are removed on exit unless published.
stage() {
    mkdir -p "$(dirname "$1")"
    work="$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")"
    staging="$1.partial.$$"
    trap 'rm -rf "$work" "$staging"' EXIT
}

# publish DEST STAMP WANT: record WANT in the staged STAMP and put the staged folder in DEST's place.
publish() {
    printf '%s\n' "$3" >"$staging/$2"
    rm -rf "$1"
    mv "$staging" "$1"
    trap 'rm -rf "$work"' EXIT
}
