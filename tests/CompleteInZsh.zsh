#!/usr/bin/env zsh
# SPDX-License-Identifier: GPL-3.0-or-later
# What zsh offers when TAB is pressed after LINE, with a zsh completion file installed as it
# would be: a real interactive zsh (on a pseudo-terminal, zsh/zpty) with compinit, the file
# in its $fpath as _ensemble-lab-cli and CLI_FOLDER first on its PATH, typing LINE and TAB in
# CWD. Each match offered is printed on a line of its own (with what zsh puts before it),
# followed by " (no space)" where the offer is to be typed on (lr=, rotate:).
# Usage: zsh CompleteInZsh.zsh COMPLETION_FILE CLI_FOLDER CWD LINE
zmodload zsh/zpty || exit 2
local completion_file=$1 cli_folder=$2 cwd=$3 line=$4
local functions_folder=$(mktemp -d) || exit 2
cp -- $completion_file $functions_folder/_ensemble-lab-cli || exit 2
zpty shell zsh -f -i
zpty -w shell "PATH=${(q)cli_folder}:\$PATH; cd ${(q)cwd}; fpath=(${(q)functions_folder} \$fpath);" \
  "PROMPT=''; RPROMPT=''; autoload -U compinit; compinit -u -d ${(q)functions_folder}/compdump"
# Each match the completion offers is printed as it is offered, after a marker the terminal's
# echo of this definition cannot contain; -O, -A and -D ask for matches back, not offered.
zpty -w shell 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a given matches; local -A option; local match
  given=("$@")
  zparseopts -E -A option P: S: p: s: i: I: W: J: V: X: x: r: R: F: M: E: d: o: q Q f e a l 1 2 k n U C
  builtin compadd -A matches "${given[@]}"
  for match in $matches; do
    if (( ${+option[-S]} )) && [[ -z ${option[-S]} ]]; then
      print -r -- "<""offered>${IPREFIX}${option[-p]}${match} (no space)"
    else
      print -r -- "<""offered>${IPREFIX}${option[-p]}${match}"
    fi
  done
  builtin compadd "${given[@]}"
}'
# The shell exits once the completion is done: all it printed is then read.
zpty -w shell 'comppostfuncs=(exit)'
zpty -w -n shell "$line"$'\t'
local output chunk
while zpty -r shell chunk; do output+=$chunk; done
zpty -d shell
rm -rf -- $functions_folder
local -a lines=(${(f)output//$'\r'/})
print -r -- ${(F)${(M)lines:#*<offered>*}##*<offered>}
