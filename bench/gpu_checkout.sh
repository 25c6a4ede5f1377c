#!/usr/bin/env bash
# A checkout that travels to a borrowed GPU (at most 64 MiB: tracked + untracked-not-ignored files + carried paths),
# then comes back exactly as it was (docs/gpu-race.md). The model folders (~118 MB) are what does not fit, and a
# race does not read them (the `small` preset trains from scratch on a token bundle), so for the call they leave
# the index and are ignored; their files stay on disk, untouched.
#   bash bench/gpu_checkout.sh hide                  the folders leave the index; lines in info/exclude ignore them
#   bash bench/gpu_checkout.sh size [CARRIED ...]    the bytes that would travel, checked against 64 MiB
#   bash bench/gpu_checkout.sh restore               the index and info/exclude exactly as before `hide`
# Run from anywhere inside the checkout the call sends. `hide` refuses to run twice; `restore` refuses when HEAD
# moved since `hide` (then: git reset -q -- assets/model assets/stronger-generator, and remove the lines by hand).
set -euo pipefail
HIDDEN=(assets/model assets/stronger-generator)
LIMIT=$((64 * 1024 * 1024))
BEGIN="# bench/gpu_checkout.sh hide: begin (restore removes these lines)"
END="# bench/gpu_checkout.sh hide: end"

cd "$(git rev-parse --show-toplevel)"
exclude=$(git rev-parse --git-path info/exclude)  # a worktree's is its main repository's, shared by all worktrees
index=$(git rev-parse --git-path index)
saved="$index.before-gpu-hide"  # the index as it was, HEAD, the status, whether info/exclude existed

travelling() {  # NUL-separated paths that would travel: in the index, or untracked and not ignored
  git ls-files -z --cached --others --exclude-standard
}

bytes_of() {  # total bytes of the NUL-separated files on stdin (files deleted from the disk count nothing)
  xargs -0 -r stat -c %s -- 2>/dev/null | awk '{s += $1} END {print s + 0}'
}

case "${1:-}" in
  hide)
    if [ -e "$saved" ]; then
      echo "already hidden (since $(stat -c %y "$saved")): run restore first" >&2; exit 1
    fi
    before_files=$(git ls-files | wc -l)
    cp "$index" "$saved"
    git rev-parse HEAD > "$saved.head"
    git status --porcelain > "$saved.status"
    [ -e "$exclude" ] || touch "$saved.no-exclude"
    git rm -q --cached -r --ignore-unmatch -- "${HIDDEN[@]}"
    mkdir -p "$(dirname "$exclude")"
    { echo "$BEGIN"; for path in "${HIDDEN[@]}"; do echo "/$path/"; done; echo "$END"; } >> "$exclude"
    left=$(git ls-files -- "${HIDDEN[@]}" | wc -l)
    shown=$(git ls-files --others --exclude-standard -- "${HIDDEN[@]}" | wc -l)
    if [ "$left" != 0 ] || [ "$shown" != 0 ]; then
      echo "hide failed: $left files still tracked, $shown untracked and not ignored under ${HIDDEN[*]}" >&2; exit 1
    fi
    echo "hidden: ${HIDDEN[*]} ($before_files tracked files before, $(git ls-files | wc -l) now)"
    ;;
  size)
    shift
    tree=$(travelling | bytes_of)
    carried=0
    for path in "$@"; do
      [ -e "$path" ] || { echo "no such carried path: $path (make it first)" >&2; exit 1; }
      carried=$((carried + $(find "$path" -type f -print0 | bytes_of)))
    done
    total=$((tree + carried))
    awk -v t="$total" -v w="$tree" -v c="$carried" 'BEGIN {m = 1048576; printf "would travel: %d bytes (%.1f MiB): \
the tree %.1f MiB, carried %.1f MiB; the limit 64 MiB\n", t, t / m, w / m, c / m}'
    if [ "$total" -gt "$LIMIT" ]; then
      echo "over the limit by $(( (total - LIMIT) / 1024 )) KiB" >&2; exit 1
    fi
    ;;
  restore)
    if [ ! -e "$saved" ]; then
      echo "nothing to restore: hide was not run (or restore already was)" >&2; exit 1
    fi
    if [ "$(git rev-parse HEAD)" != "$(cat "$saved.head")" ]; then
      echo "HEAD moved since hide: restoring the old index would undo that; see this script's header" >&2; exit 1
    fi
    mv "$saved" "$index"
    if [ -e "$exclude" ]; then
      awk -v begin="$BEGIN" -v end="$END" '$0 == begin {skip = 1} !skip {print} $0 == end {skip = 0}' "$exclude" \
        > "$exclude.tmp" && mv "$exclude.tmp" "$exclude"
      if [ -e "$saved.no-exclude" ] && [ ! -s "$exclude" ]; then rm -f "$exclude"; fi
    fi
    rm -f "$saved.no-exclude"
    if ! diff <(git status --porcelain) "$saved.status" >/dev/null; then
      echo "restored, but git status differs from before hide:" >&2
      diff <(git status --porcelain) "$saved.status" >&2 || true
      rm -f "$saved.head" "$saved.status"; exit 1
    fi
    rm -f "$saved.head" "$saved.status"
    echo "restored: $(git ls-files | wc -l) tracked files; git status as before hide"
    ;;
  *)
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2
    ;;
esac
