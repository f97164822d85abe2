#!/usr/bin/env bash
# bash-validator: a PreToolUse hook (matcher "Bash") that blocks dangerous shell commands.
#
# Contract (Claude Code's, run unchanged by hookbridge): the event arrives as JSON on stdin.
#   exit 0, no output  -> the command may run;
#   exit 2, stderr     -> the command is blocked and the agent is shown the message on stderr.
# Improves on the shell-hooks spec's Appendix A: the payload is read with jq, commands are looked at
# word by word (so `rm -rf /tmp/build` is allowed while `rm -rf /` and `rm -fr ~` are not), and
# the message says what was found and why it is dangerous.
set -uo pipefail
set -f # never glob the words of the command we inspect

command=""

block() { # $1: what was found, $2: what it would do
    printf 'Blocked by bash-validator: %s %s.\nCommand: %s\nIf this is really intended, run it yourself outside the agent.\n' \
        "$1" "$2" "$command" >&2
    exit 2
}

if ! command -v jq >/dev/null 2>&1; then
    echo "Blocked by bash-validator: jq is not installed, so the command cannot be checked (install jq)." >&2
    exit 2
fi

input=$(cat)
if ! command=$(printf '%s' "$input" | jq -r 'if (.tool_input.command | type) == "string" then .tool_input.command else "" end' 2>/dev/null); then
    echo "Blocked by bash-validator: the hook payload is not valid JSON, so the command cannot be checked." >&2
    exit 2
fi
[ -n "$command" ] || exit 0

# Whole-command patterns ------------------------------------------------------------------------

# Fork bombs: `:(){ :|:& };:` and the same with any function name or spacing.
squeezed=${command//[[:space:]]/}
if [[ $squeezed =~ ([A-Za-z_:][A-Za-z0-9_:]*)\(\)\{ ]]; then
    name=${BASH_REMATCH[1]}
    if [[ $squeezed == *"$name(){$name|$name&};$name"* ]]; then
        block "a fork bomb" "would spawn processes until the machine stops responding"
    fi
fi

# Piping a download into a shell: `curl … | sh`, `wget -qO- … | sudo bash`, `bash <(curl …)`.
shells='(ba|da|z|k|fi)?sh'
if [[ $command =~ (^|[^[:alnum:]_.-])(curl|wget)[[:space:]][^|]*\|[[:space:]]*(sudo[[:space:]]+)?(env[[:space:]]+)?$shells([[:space:]]|$) ]] ||
    [[ $command =~ (^|[^[:alnum:]_.-])$shells[[:space:]]+(-c[[:space:]]+)?[\"\']?(\<\(|\$\()[[:space:]]*(curl|wget)[[:space:]] ]]; then
    fetcher=curl
    [[ $command == *wget* ]] && fetcher=wget
    block "\`$fetcher … | sh\`" "would run code downloaded from the network without review"
fi

# Word-by-word checks of each simple command ----------------------------------------------------

# Paths whose recursive removal or chmod is never what an agent should do.
is_critical_path() {
    local p=${1%/}
    p=${p%/\*}
    p=${p%/.}
    case "$p" in
    "" | "/" | "/*" | "~" | '$HOME' | '${HOME}') return 0 ;;
    /bin | /boot | /dev | /etc | /home | /lib | /lib32 | /lib64 | /opt | /proc | /root | /sbin | /srv | /sys | /usr | /var) return 0 ;;
    esac
    return 1
}

describe_path() {
    case "${1%/}" in
    "" | "/" | "/*" | "/." | "//") echo "the whole filesystem" ;;
    "~"* | '$HOME'* | '${HOME}'*) echo "your home directory" ;;
    *) echo "the system directory ${1%/}" ;;
    esac
}

check_simple_command() { # $1: the simple command as written, then its words
    local text=$1
    shift
    local words=("$@") i=0
    # Skip wrappers and assignments: sudo rm …, env X=1 rm …, time rm …
    while [ $i -lt ${#words[@]} ]; do
        case "${words[$i]}" in
        sudo | doas | command | exec | nice | nohup | time | env | builtin | -*) i=$((i + 1)) ;;
        *=*) i=$((i + 1)) ;;
        *) break ;;
        esac
    done
    [ $i -lt ${#words[@]} ] || return 0
    local cmd=${words[$i]##*/}
    local args=("${words[@]:$((i + 1))}")
    local arg recursive=0 options_done=0 targets=()
    for arg in "${args[@]}"; do
        arg=${arg//\"/}
        arg=${arg//\'/}
        if [ $options_done -eq 0 ] && [ "$arg" = "--" ]; then
            options_done=1
        elif [ $options_done -eq 0 ] && [[ $arg == --* ]]; then
            [ "$arg" = "--recursive" ] && recursive=1
        elif [ $options_done -eq 0 ] && [[ $arg == -* && $arg != "-" ]]; then
            [[ $arg == *[rR]* ]] && recursive=1
        else
            targets+=("$arg")
        fi
    done
    case "$cmd" in
    rm)
        if [ $recursive -eq 1 ]; then
            for arg in "${targets[@]}"; do
                if is_critical_path "$arg"; then
                    block "\`$text\`" "would delete $(describe_path "$arg")"
                fi
            done
        fi
        ;;
    dd)
        for arg in "${args[@]}"; do
            [[ $arg == if=* ]] && block "\`$text\`" "copies raw bytes with dd, which can overwrite a disk or partition"
        done
        ;;
    mkfs | mkfs.* | mke2fs | mkswap)
        block "\`$text\`" "would format a filesystem and destroy what is on it"
        ;;
    chmod)
        if [ $recursive -eq 1 ] && [ ${#targets[@]} -ge 2 ]; then
            case "${targets[0]}" in
            777 | 0777 | a+rwx | ugo+rwx | a=rwx | ugo=rwx)
                for arg in "${targets[@]:1}"; do
                    if is_critical_path "$arg"; then
                        block "\`$text\`" "would make every file in $(describe_path "$arg") writable by everyone"
                    fi
                done
                ;;
            esac
        fi
        ;;
    esac
    return 0
}

# Split the command into simple commands at ; && || | & newlines and subshell brackets.
segments=$command
for sep in '&&' '||' ';' '|' '&' '$(' '`' '(' ')' '{' '}'; do
    segments=${segments//"$sep"/$'\n'}
done
while IFS= read -r segment; do
    read -ra words <<<"$segment"
    [ ${#words[@]} -gt 0 ] && check_simple_command "${words[*]}" "${words[@]}"
done <<<"$segments"

exit 0
