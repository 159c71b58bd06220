# suite-lib.sh: sourced by scripts/pnetcdf-tests.sh and scripts/romio-tests.sh.
#
# Runs one command of a foreign test suite three ways and records one row:
#   native  the command as given (ROMIO)
#   plain   LD_PRELOAD=libostio-mpiio.so, OSTIO_MPIIO_PATHS=$SUITE_ROOT/plain
#   log     the same into log containers (OSTIO_HINTS='*:ostio_container=log') with
#           libostio-preload.so loaded too (PnetCDF's open/read/truncate of its file; docs/mpiio.md),
#           OSTIO_MPIIO_PATHS=$SUITE_ROOT/log
# Each mode has its own output tree ($SUITE_ROOT/native, plain, log); every
# argument naming a path under $SUITE_ROOT/native is rewritten to the mode's
# tree. After the three runs, every file the native run created or changed is
# compared byte for byte with the plain run's file and with the log run's
# container flattened by `ostio container flatten` (suite-cmp.py: hole-aware,
# names the first differing offset); a plain file in the log run's tree is a
# difference too (the I/O bypassed ostio). Serial checkers (PnetCDF's ncvalidator)
# run in the log mode under libostio-preload.so, which serves the container to
# POSIX calls (docs/preload.md).
#
# Rows live in $SUITE_ROOT/rows/NNNN, one tab-separated line each:
#   name  native  plain  plain-bytes  log  log-bytes
# SUITE_NOCMP set: the bytes are not compared ("n/c"; the caller says why).
# A check (suite_run3 with kind "check") does not add a row: it marks the last
# row of the same group failed in the modes where the check failed.
#
# Needs: SUITE_ROOT, SUITE_NP, SUITE_MPIEXEC, SUITE_MPIIO_LIB, SUITE_PRELOAD_LIB,
# SUITE_CLI, SUITE_TIMEOUT, SUITE_LIBDIR (this directory).

suite_die() {
    echo "$SUITE_NAME: $*" >&2
    exit 2
}

# suite_skip MSG: what the suite needs cannot be had (CTest's skip code 77).
suite_skip() {
    echo "$SUITE_NAME: SKIPPED: $*" >&2
    exit 77
}

# suite_debian_source PKG VERSION DIR ENVVAR: prints DIR/PKG_VERSION.orig.tar.xz,
# downloading it first with `apt-get source --download-only` when it is not there
# (as root, after adding a deb-src entry of our own when apt has none for
# PKG VERSION); skips (77) when that cannot be done. ENVVAR names the variable
# that gives a source instead, for the messages. Needs say().
suite_debian_source() {
    local pkg=$1 ver=$2 dir=$3 var=$4
    local tb=$dir/${pkg}_$ver.orig.tar.xz
    [ -f "$tb" ] && { echo "$tb"; return 0; }
    command -v apt-get >/dev/null || suite_skip "no source: give --source or $var (no apt-get here for Debian's source package)"
    mkdir -p "$dir"
    if ! apt-cache showsrc "$pkg" 2>/dev/null | grep -q "^Version: $ver"; then
        [ "$(id -u)" -eq 0 ] || suite_skip "no deb-src entry for $pkg $ver and not root: give --source, or add a deb-src line and run apt-get update"
        local list=/etc/apt/sources.list.d/ostio-deb-src.sources uri suite
        say "adding $list (Debian's source packages) and running apt-get update"
        uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
        suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
        printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "${uri:-http://deb.debian.org/debian}" "$suite" >"$list"
        apt-get update -qq >&2 || suite_skip "apt-get update failed"
    fi
    say "apt-get source --download-only $pkg=$ver-* into $dir"
    (cd "$dir" && apt-get source -qq --download-only "$pkg=$(apt-cache showsrc "$pkg" |
        sed -n "s/^Version: \($ver-.*\)/\1/p" | head -1)") >&2 ||
        suite_skip "apt-get source $pkg failed (is Debian's deb-src reachable?)"
    [ -f "$tb" ] || suite_die "apt-get source left no $tb"
    echo "$tb"
}

# suite_setup ROOT: a fresh output tree.
suite_setup() {
    rm -rf "$1"
    mkdir -p "$1"/native "$1"/plain "$1"/log "$1"/logs "$1"/rows "$1"/flat || suite_die "cannot make $1"
}

# suite_check_ostio BUILD: the three ostio artefacts of an ostio build tree.
suite_check_ostio() {
    local b=$1
    SUITE_MPIIO_LIB=$b/libostio-mpiio.so
    SUITE_PRELOAD_LIB=$b/libostio-preload.so
    SUITE_CLI=$b/ostio
    local f
    for f in "$SUITE_MPIIO_LIB" "$SUITE_PRELOAD_LIB" "$SUITE_CLI"; do
        [ -e "$f" ] || suite_die "$f not found: build ostio first (cmake --build $b) or give --ostio-build DIR"
    done
}

# mode_args MODE ARGS...: prints ARGS NUL-separated, native paths moved to MODE.
suite__mode_args() {
    local mode=$1 a
    shift
    for a in "$@"; do
        printf '%s\0' "${a//$SUITE_ROOT\/native/$SUITE_ROOT/$mode}"
    done
}

# suite__run MODE KIND LOG ARGS...: one run; prints its exit status.
suite__run() {
    local mode=$1 kind=$2 log=$3
    shift 3
    local -a args env=()
    mapfile -d '' args < <(suite__mode_args "$mode" "$@")
    case $mode in
    plain) env=(LD_PRELOAD="$SUITE_MPIIO_LIB" OSTIO_MPIIO_PATHS="$SUITE_ROOT/plain") ;;
    log) env=(LD_PRELOAD="$SUITE_MPIIO_LIB:$SUITE_PRELOAD_LIB" OSTIO_MPIIO_PATHS="$SUITE_ROOT/log"
        "OSTIO_HINTS=*:ostio_container=log") ;;
    esac
    if [ "$kind" = seq ] && [ "$mode" = log ]; then
        env=(LD_PRELOAD="$SUITE_PRELOAD_LIB" OSTIO_PRELOAD_PATHS="$SUITE_ROOT/log")
    elif [ "$kind" = seq ]; then
        env=()
    fi
    if [ -n "${SUITE_RUNDIR:-}" ]; then # the program's files go to its working directory
        cd "${SUITE_RUNDIR/#$SUITE_ROOT\/native/$SUITE_ROOT/$mode}" || return 1
    fi
    if [ "$kind" = seq ]; then
        timeout "$SUITE_TIMEOUT" env "${env[@]}" "${args[@]}" >"$log" 2>&1
    else
        timeout "$SUITE_TIMEOUT" "$SUITE_MPIEXEC" -n "$SUITE_NP" env "${env[@]}" "${args[@]}" \
            >"$log" 2>&1
    fi
    local rc=$?
    if [ -n "${SUITE_OK_REGEX:-}" ] && [ $rc -eq 0 ] && ! grep -qE "$SUITE_OK_REGEX" "$log"; then
        rc=254 # exited 0 without the success line the suite expects
    fi
    echo $rc
}

suite__verdict() {
    case $1 in
    0) echo pass ;;
    124) echo TIMEOUT ;;
    254) echo "FAIL(no '${SUITE_OK_TEXT:-ok}')" ;;
    *) echo "FAIL($1)" ;;
    esac
}

# suite__compare MODE STAMP: compares the files the native run changed since
# STAMP with MODE's; prints the bytes cell.
suite__compare() {
    local mode=$1 stamp=$2 f n=0 bytes=0 bad="" out other flat
    while IFS= read -r -d '' f; do
        f=${f#"$SUITE_ROOT"/native/}
        other=$SUITE_ROOT/$mode/$f
        if [ -d "$other" ]; then
            flat=$SUITE_ROOT/flat/cmp.$$
            if ! "$SUITE_CLI" container flatten "$other" "$flat" >"$SUITE_ROOT/logs/flatten.log" 2>&1; then
                bad="${bad:+$bad; }$f: flatten failed"
                continue
            fi
            other=$flat
        elif [ "$mode" = log ] && [ -f "$other" ]; then
            # ostio would have made a container: the program's I/O bypassed it
            bad="${bad:+$bad; }$f not a container"
            continue
        elif [ ! -f "$other" ]; then
            bad="${bad:+$bad; }$f missing"
            continue
        fi
        if out=$(python3 "$SUITE_LIBDIR/suite-cmp.py" "$SUITE_ROOT/native/$f" "$other"); then
            n=$((n + 1))
            bytes=$((bytes + out))
        else
            bad="${bad:+$bad; }$f $out"
        fi
        rm -f "$SUITE_ROOT/flat/cmp.$$"
    done < <(find "$SUITE_ROOT/native" -type f -newer "$stamp" -print0 | sort -z)
    if [ -n "$bad" ]; then
        echo "DIFF $bad"
    elif [ $n -eq 0 ]; then
        echo "-"
    else
        echo "same $n/$bytes"
    fi
}

# suite_run3 KIND GROUP NAME ARGS...: KIND mpi (the program on SUITE_NP ranks),
# seq (one process) or check (mpi, folded into GROUP's last row) or seqcheck.
# Prints the native run's output; returns 0 (the row holds the result).
suite_run3() {
    local kind=$1 group=$2 name=$3
    shift 3
    local runkind=mpi
    case $kind in seq | seqcheck) runkind=seq ;; esac
    local id
    id=$(find "$SUITE_ROOT/rows" -maxdepth 1 -name '[0-9]*' | wc -l)
    id=$(printf '%04d' $((id + 1)))
    local tag=$id
    case $kind in check | seqcheck) tag=$(cat "$SUITE_ROOT/rows/last.$group" 2>/dev/null).chk$$ ;; esac
    local stamp=$SUITE_ROOT/logs/stamp.$$ mode rc
    local -A res bytes
    touch "$stamp"
    sleep 0.02
    for mode in native plain log; do
        rc=$(suite__run "$mode" "$runkind" "$SUITE_ROOT/logs/$tag.$mode.log" "$@")
        res[$mode]=$(suite__verdict "$rc")
        [ "$mode" = native ] && cat "$SUITE_ROOT/logs/$tag.native.log"
    done
    if [ -n "${SUITE_NOCMP:-}" ]; then # the program's bytes are not deterministic
        bytes[plain]="n/c" bytes[log]="n/c"
    else
        bytes[plain]=$(suite__compare plain "$stamp")
        bytes[log]=$(suite__compare log "$stamp")
    fi
    rm -f "$stamp"
    case $kind in
    check | seqcheck)
        local last row
        last=$(cat "$SUITE_ROOT/rows/last.$group" 2>/dev/null) || return 0
        row=$SUITE_ROOT/rows/$last
        local -a f
        IFS=$'\t' read -r -a f <"$row"
        local what
        what=$(basename "$1")
        [ "${res[native]}" = pass ] || f[1]="${f[1]/#pass/FAIL($what)}"
        [ "${res[plain]}" = pass ] || f[2]="${f[2]/#pass/FAIL($what)}"
        [ "${res[log]}" = pass ] || f[4]="${f[4]/#pass/FAIL($what)}"
        [ "${bytes[plain]}" = - ] || f[3]=$(suite__merge "${f[3]}" "${bytes[plain]}")
        [ "${bytes[log]}" = - ] || f[5]=$(suite__merge "${f[5]}" "${bytes[log]}")
        (IFS=$'\t'; echo "${f[*]}") >"$row"
        ;;
    *)
        local n=1 base=$name
        while grep -q "^$name	" "$SUITE_ROOT"/rows/[0-9]* 2>/dev/null; do
            n=$((n + 1))
            name="$base#$n"
        done
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${res[native]}" "${res[plain]}" \
            "${bytes[plain]}" "${res[log]}" "${bytes[log]}" >"$SUITE_ROOT/rows/$id"
        echo "$id" >"$SUITE_ROOT/rows/last.$group"
        printf '%s: %-38s native %-8s plain %-8s %-14s log %-8s %s\n' "$SUITE_NAME" "$name" \
            "${res[native]}" "${res[plain]}" "${bytes[plain]%% *}" "${res[log]}" "${bytes[log]%% *}" >&"${SUITE_PROGRESS_FD:-2}"
        ;;
    esac
    return 0
}

# suite__merge OLD NEW: two bytes cells as one (a DIFF wins; same counts add).
suite__merge() {
    local a=$1 b=$2
    case "$a $b" in
    "- "*) echo "$b" ;;
    DIFF*) [ "${b%% *}" = DIFF ] && echo "$a; ${b#DIFF }" || echo "$a" ;;
    *" DIFF"*) echo "$b" ;;
    *)
        local x=${a#same } y=${b#same }
        echo "same $((${x%/*} + ${y%/*}))/$((${x#*/} + ${y#*/}))"
        ;;
    esac
}

# suite_known NAME MODE: prints the known-failure note for NAME in MODE (from
# the caller's SUITE_KNOWN array: "pattern|mode|note"; mode plain, log or *).
suite_known() {
    local e pat m note
    for e in "${SUITE_KNOWN[@]}"; do
        IFS='|' read -r pat m note <<<"$e"
        # shellcheck disable=SC2053
        if [[ $1 == $pat ]] && { [ "$m" = '*' ] || [ "$m" = "$2" ]; }; then
            echo "$note"
            return 0
        fi
    done
    return 1
}

# suite_report: the table; returns 1 when a program that passes natively fails
# or differs through ostio and is not a known failure.
suite_report() {
    local row bad=0 nknown=0 nrows=0 npass=0 fixed=""
    local -a f
    printf '%-40s %-9s %-9s %-22s %-9s %-22s %s\n' program native plain "plain bytes" log "log bytes" note
    for row in "$SUITE_ROOT"/rows/[0-9]* "$SUITE_ROOT"/rows/b_*; do
        [ -f "$row" ] || continue
        IFS=$'\t' read -r -a f <"$row"
        nrows=$((nrows + 1))
        local note="" mode ok
        if [ "${f[1]}" = pass ]; then
            npass=$((npass + 1))
            for mode in plain log; do
                local r b k
                if [ $mode = plain ]; then r=${f[2]} b=${f[3]}; else r=${f[4]} b=${f[5]}; fi
                ok=1
                [ "$r" = pass ] || ok=0
                [ "${b%% *}" = DIFF ] && ok=0
                if k=$(suite_known "${f[0]}" $mode); then
                    if [ $ok = 1 ]; then
                        fixed="$fixed ${f[0]}($mode)"
                    else
                        note="${note:+$note, }$mode: known, $k"
                        nknown=$((nknown + 1))
                    fi
                elif [ $ok = 0 ]; then
                    note="${note:+$note, }$mode: NEW FAILURE"
                    bad=$((bad + 1))
                fi
            done
        else
            note="fails natively: not compared"
        fi
        printf '%-40s %-9s %-9s %-22s %-9s %-22s %s\n' "${f[0]}" "${f[1]}" "${f[2]}" \
            "$(suite__short "${f[3]}")" "${f[4]}" "$(suite__short "${f[5]}")" "$note"
    done
    echo
    echo "$SUITE_NAME: $nrows programs, $npass pass natively; $bad unexpected failure(s) through ostio, $nknown known (np $SUITE_NP)"
    [ -z "$fixed" ] || echo "$SUITE_NAME: known failures that passed this time (take them off the list):$fixed"
    echo "$SUITE_NAME: logs and the three output trees in $SUITE_ROOT; rows' bytes detail:"
    grep -h 'DIFF' "$SUITE_ROOT"/rows/[0-9]* | cut -f1,4,6 | sed 's/^/  /'
    [ $bad -eq 0 ]
}

# "same 3/12345" -> "same 3f 12345B"; DIFF cells are cut to fit.
suite__short() {
    case $1 in
    same*)
        local x=${1#same }
        echo "same ${x%/*}f ${x#*/}B"
        ;;
    DIFF*) echo "${1:0:22}" ;;
    *) echo "$1" ;;
    esac
}
