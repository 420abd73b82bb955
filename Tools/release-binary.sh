# Sourced by the benchmark and soak scripts: sets PB to an absolute path of the picturebook binary
# to measure — the one given in PB, or else a release build of this checkout (built first; speed
# and memory figures are only ever taken from release builds).
if [ -z "${PB:-}" ]; then
    swift build -c release --product picturebook >&2
    PB="$(swift build -c release --show-bin-path)/picturebook"
fi
PB=$(cd "$(dirname "$PB")" && pwd)/$(basename "$PB")
