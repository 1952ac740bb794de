#!/usr/bin/env bash
# Drives the interactive pincode-demo in a real terminal (tmux): raw keys, redraws, and the
# terminal restored on Ctrl-C. Usage: demo-in-tmux.sh PATH-TO-pincode-demo
set -euo pipefail
demo=$(realpath "$1")
session="pincode-demo-check-$$"
fail() { echo "demo-in-tmux: $*"; tmux capture-pane -t "$session" -p || true; tmux kill-session -t "$session" 2>/dev/null || true; exit 1; }
screen() { tmux capture-pane -t "$session" -p; }
expect() { # waits up to 5 s for the screen to show $1
    for _ in $(seq 50); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
    fail "expected to see: $1"
}

tmux new-session -d -s "$session" -x 200 -y 30 "$demo; echo \"EXIT \$?\"; stty -a | grep -o -- '-\?icanon' | head -1; sleep 30"
expect "state   normal"
tmux send-keys -t "$session" 1 3 5 7
expect "state   org.statefulcontrols.filled | org.statefulcontrols.valid"
expect "submit  [ Submit ] enabled, title green"
tmux send-keys -t "$session" BSpace
expect "state   normal"
tmux send-keys -t "$session" 7 h
expect "state   highlighted | org.statefulcontrols.filled | org.statefulcontrols.valid"
tmux send-keys -t "$session" d
expect "state   highlighted | disabled | org.statefulcontrols.filled | org.statefulcontrols.valid"
tmux send-keys -t "$session" C-c
expect "EXIT 130"
# The terminal's mode is printed just after the exit status: wait for it, then read it.
for _ in $(seq 50); do screen | grep -qx -- '-\?icanon' && break; sleep 0.1; done
screen | grep -qx "icanon" || fail "the terminal was not restored (icanon is off)"
tmux kill-session -t "$session"
echo "demo-in-tmux: typing, backspace, highlight, disable and Ctrl-C (terminal restored) all work"
