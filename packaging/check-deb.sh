#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks a built EnsembleLab .deb: its file list and control fields, that the extracted
# programs run, and that the desktop entry and AppStream metadata validate.
# Usage: bash packaging/check-deb.sh PACKAGE.deb EXPECTED_VERSION
#        bash packaging/check-deb.sh --build BUILD_DIR EXPECTED_VERSION   (runs cpack there first)
set -euo pipefail
if [ "${1:-}" = "--build" ]; then
  build=$(cd "$2" && pwd)
  (cd "$build" && cpack -G DEB -B "$build/package" >/dev/null)
  deb=$(ls "$build"/package/ensemble-lab_*_amd64.deb)
  version=$3
else
  deb=$1
  version=$2
fi
fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }
echo "check-deb: $deb"
[ "$(basename "$deb")" = "ensemble-lab_${version}_amd64.deb" ] || fail "package file name $(basename "$deb") does not carry version $version"

files=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/ensemble-lab ./usr/bin/ensemble-lab-cli ./usr/libexec/ensemble-lab/ensemble-lab-cli-engine \
         ./usr/share/applications/org.ensemblelab.EnsembleLab.desktop \
         ./usr/share/metainfo/org.ensemblelab.EnsembleLab.metainfo.xml \
         ./usr/share/icons/hicolor/48x48/apps/org.ensemblelab.EnsembleLab.png \
         ./usr/share/icons/hicolor/128x128/apps/org.ensemblelab.EnsembleLab.png \
         ./usr/share/icons/hicolor/256x256/apps/org.ensemblelab.EnsembleLab.png \
         ./usr/share/icons/hicolor/scalable/apps/org.ensemblelab.EnsembleLab.svg \
         ./usr/share/man/man1/ensemble-lab.1.gz ./usr/share/man/man1/ensemble-lab-cli.1.gz \
         ./usr/share/doc/ensemble-lab/copyright ./usr/share/doc/ensemble-lab/changelog.gz \
         ./usr/share/bash-completion/completions/ensemble-lab-cli \
         ./usr/share/zsh/vendor-completions/_ensemble-lab-cli \
         ./usr/share/fish/vendor_completions.d/ensemble-lab-cli.fish; do
  grep -qx -- "$f" <<<"$files" || fail "missing $f"
done
outside=$(grep -v -E '^\./usr/(bin|share|libexec/ensemble-lab)/' <<<"$files" | grep -v -x -E '\./usr/(libexec/)?' || true)
[ -z "$outside" ] || fail "files outside /usr/bin, /usr/libexec/ensemble-lab and /usr/share: $outside"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Version)" = "$version" ] || fail "Version is $(field Version), expected $version"
[ "$(field Section)" = "science" ] || fail "Section is $(field Section)"
field Depends | grep -q libtorch || fail "Depends does not name LibTorch: $(field Depends)"
field Depends | grep -q libqt6widgets6 || fail "Depends does not name Qt Widgets: $(field Depends)"
field Recommends | grep -q libopenblas0-pthread || fail "Recommends lacks libopenblas0-pthread"
field Recommends | grep -q dataset-fashion-mnist || fail "Recommends lacks dataset-fashion-mnist"
[ -n "$(field Homepage)" ] && [ -n "$(field Maintainer)" ] || fail "Homepage or Maintainer missing"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg -x "$deb" "$root"
# Each program's whole output is read before it is searched: `prog | grep -q` under
# pipefail fails at random once the output outgrows one write (grep exits at the first
# match and the program dies of SIGPIPE).
output() { "$@" || fail "$* exited with status $?"; }
grep -qx "ensemble-lab-cli $version" <<<"$(output "$root/usr/bin/ensemble-lab-cli" --version)" || fail "ensemble-lab-cli --version"
grep -q "ensemble-lab-cli train" <<<"$(output "$root/usr/bin/ensemble-lab-cli" --help)" || fail "ensemble-lab-cli --help"
# devices needs LibTorch: the front door starts the engine from the package's libexec folder.
grep -qE '^-\s+cpu\s' <<<"$(output "$root/usr/bin/ensemble-lab-cli" devices)" || fail "ensemble-lab-cli devices lists no cpu"
grep -qx "ensemble-lab $version" <<<"$(output env -u DISPLAY -u WAYLAND_DISPLAY "$root/usr/bin/ensemble-lab" --version)" ||
  fail "ensemble-lab --version without a display"
grep -q -- "--runs" <<<"$(output env -u DISPLAY -u WAYLAND_DISPLAY "$root/usr/bin/ensemble-lab" --help)" || fail "ensemble-lab --help"
# The bash completion, as bash runs it at a prompt, answered by the package's own CLI.
offered=$(bash -c 'source "$1"; COMP_LINE="$2 tr"; COMP_POINT=${#COMP_LINE}; _ensemble_lab_cli; echo "${COMPREPLY[*]}"' \
  bash "$root/usr/share/bash-completion/completions/ensemble-lab-cli" "$root/usr/bin/ensemble-lab-cli")
[ "$offered" = train ] || fail "its bash completion offers '$offered' for 'ensemble-lab-cli tr', not train"
# And in zsh, the package's file as zsh finds it (in $fpath), typed at a real prompt.
offered=$(zsh "$(dirname "$0")/../tests/CompleteInZsh.zsh" "$root/usr/share/zsh/vendor-completions/_ensemble-lab-cli" \
  "$root/usr/bin" "$root" "ensemble-lab-cli tr")
[ "$offered" = train ] || fail "its zsh completion offers '$offered' for 'ensemble-lab-cli tr', not train"
# And in fish, found as fish finds a package's (by the command's name) and asked with complete -C.
offered=$(PATH="$root/usr/bin:$PATH" fish --no-config -c 'set -p fish_complete_path $argv[1]; complete -C"ensemble-lab-cli tr"' \
  "$root/usr/share/fish/vendor_completions.d")
[ "$offered" = train ] || fail "its fish completion offers '$offered' for 'ensemble-lab-cli tr', not train"
desktop-file-validate "$root/usr/share/applications/org.ensemblelab.EnsembleLab.desktop" || fail "desktop-file-validate"
appstreamcli validate --no-net "$root/usr/share/metainfo/org.ensemblelab.EnsembleLab.metainfo.xml" || fail "appstreamcli validate"
grep -q "<release version=\"$version\"" "$root/usr/share/metainfo/org.ensemblelab.EnsembleLab.metainfo.xml" || fail "metainfo lacks release $version"
# One license everywhere: the package's copyright file and the metainfo say GPL-3.0-or-later.
grep -qx "License: GPL-3.0-or-later" "$root/usr/share/doc/ensemble-lab/copyright" || fail "copyright does not say GPL-3.0-or-later"
grep -q "<project_license>GPL-3.0-or-later</project_license>" "$root/usr/share/metainfo/org.ensemblelab.EnsembleLab.metainfo.xml" ||
  fail "metainfo's project_license is not GPL-3.0-or-later"
echo "check-deb: all checks passed"
