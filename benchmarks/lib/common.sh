# Functions the benchmark scripts share; sourced, not run. The sourcing script sets $script (its
# name, the prefix of its messages) first.

say() { echo "$script: $(date -u +%T) $*" >&2; }
die() { say "FAILED: $*"; exit 1; }

# Major version of a java binary, from its java.specification.version ("1.8" -> 8, "25" -> 25).
major_of() {
    "$1" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java\.specification\.version = \(1\.\)\{0,1\}\([0-9]*\).*/\2/p' | head -1
}

# The newest JDK >= 21 under /usr/lib/jvm (the default java may be older).
pick_java() {
    local candidate major chosen="" chosen_major=0
    for candidate in /usr/lib/jvm/*/bin/java; do
        [[ -x $candidate ]] || continue
        major=$(major_of "$candidate")
        [[ $major =~ ^[0-9]+$ ]] || continue
        if (( major >= 21 && major > chosen_major )); then
            chosen=$candidate
            chosen_major=$major
        fi
    done
    [[ -n $chosen ]] || die "no JDK >= 21 under /usr/lib/jvm"
    echo "$chosen"
}

# Installs wrk with apt-get if it is missing.
need_wrk() {
    if ! command -v wrk >/dev/null; then
        say "installing wrk"
        if (( EUID == 0 )); then apt-get install -y wrk >&2; else sudo apt-get install -y wrk >&2; fi
    fi
}

# CPU time a process has used so far, in clock ticks (utime + stime of /proc/PID/stat).
process_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
ticks_per_second=$(getconf CLK_TCK)
