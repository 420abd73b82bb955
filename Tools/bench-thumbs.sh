#!/usr/bin/env bash
# Benchmark: `picturebook thumbs` against vipsthumbnail + vips arrayjoin and ImageMagick montage,
# on the same corpus of 1600×2000 JPEG scans, producing the same per-book overview grids.
#
#   Tools/bench-thumbs.sh            # 8 books × 12 pages, 5 runs each, medians
#   BOOKS=16 PAGES=24 RUNS=5 Tools/bench-thumbs.sh
#
# The corpus is generated once (release `picturebook generate`) and cached in .build/thumbs-corpus.
# Wall time is the median of RUNS fresh runs (empty output folder each time, so nothing is skipped);
# peak RSS is the largest resident set of any process of any run (`/usr/bin/time -v`). The
# machine's load is printed: on a shared machine the ratios move, the medians less so.
#
# What each tool does (one process over all pages where the tool allows it):
#   picturebook  thumbs DIR --out OUT: 1x (160×200) and 2x JPEG thumbnails of every page, one
#                overview PNG per book (spreads paired, page numbers), the library PNG
#   vips         vipsthumbnail over all pages at 1x, again at 2x, then one `vips arrayjoin` per book
#   vips (1x)    vipsthumbnail over all pages at 1x, then one `vips arrayjoin` per book — less work
#                than picturebook does, shown for the record
#   montage      one `montage` per book (with the JPEG size hint so it decodes reduced too)
set -euo pipefail
cd "$(dirname "$0")/.."

BOOKS=${BOOKS:-8}
PAGES=${PAGES:-12}
RUNS=${RUNS:-5}
BOX=160x200
BOX2=320x400
COLS=8
CORPUS=.build/thumbs-corpus

for tool in vipsthumbnail vips montage /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "bench-thumbs: $tool is missing (apt-get install libvips-tools imagemagick time)" >&2; exit 1; }
done

if [ -z "${SKIP_BUILD:-}" ]; then
    swift build -c release --product picturebook >&2
fi
PB="$(swift build -c release --show-bin-path)/picturebook"

mkdir -p "$CORPUS"
for i in $(seq 1 "$BOOKS"); do
    dir="$CORPUS/book-$(printf %02d "$i")"
    if [ ! -f "$dir/book.json" ] || [ "$(ls "$dir"/page-*.jpg | wc -l)" -ne "$PAGES" ]; then
        rm -rf "$dir"
        "$PB" generate --no-clean --no-truth --pages "$PAGES" --seed "$i" --out "$dir" >&2
    fi
done
CORPUS_ABS="$(cd "$CORPUS" && pwd)"
books=$(ls -d "$CORPUS_ABS"/book-* | head -n "$BOOKS")
npages=$(for b in $books; do ls "$b"/page-*.jpg; done | wc -l)
echo "corpus: $BOOKS books, $npages pages of $(identify -format '%wx%h' "$(ls "$CORPUS_ABS"/book-01/page-001.jpg)") JPEG in $CORPUS" >&2

WORK=$(mktemp -d /tmp/bench-thumbs-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# The commands, as scripts run by `bash FILE OUT`, so /usr/bin/time sees the whole pipeline.
cat > "$WORK/picturebook.sh" <<SH
"$PB" thumbs $(echo $books) --out "\$1" --box $BOX --columns $COLS >/dev/null 2>&1
SH
vips_grids() {
    # One arrayjoin per book, the same grid shape: $COLS across, 16 px shim, paper background.
    for b in $books; do
        name=$(basename "$b")
        echo "files=\$(ls \"\$1\"/$name-*.jpg | grep -v '@2x' | tr '\n' ' ')"
        echo "vips arrayjoin \"\$files\" \"\$1/$name-grid.png[compression=1]\" --across $COLS --shim 16 --background '244 241 234' --halign centre --valign centre"
    done
}
# vipsthumbnail cannot prefix outputs with the folder; give every page a unique name with links.
LINKS="$WORK/links"
mkdir -p "$LINKS"
for b in $books; do
    name=$(basename "$b")
    for p in "$b"/page-*.jpg; do ln -s "$p" "$LINKS/$name-$(basename "$p")"; done
done
{
    echo "set -e"
    echo "vipsthumbnail --size $BOX -o \"\$1/%s.jpg[Q=85]\" \"$LINKS\"/*.jpg"
    echo "vipsthumbnail --size $BOX2 -o \"\$1/%s@2x.jpg[Q=85]\" \"$LINKS\"/*.jpg"
    vips_grids
} > "$WORK/vips.sh"
{
    echo "set -e"
    echo "vipsthumbnail --size $BOX -o \"\$1/%s.jpg[Q=85]\" \"$LINKS\"/*.jpg"
    vips_grids
} > "$WORK/vips1x.sh"
{
    echo "set -e"
    for b in $books; do
        name=$(basename "$b")
        echo "montage -define jpeg:size=$BOX2 \"$b\"/page-*.jpg -thumbnail $BOX -geometry +8+8 -tile ${COLS}x -background '#f4f1ea' -quality 12 \"\$1/$name-grid.png\""
    done
} > "$WORK/montage.sh"

# Runs are interleaved (picturebook, vips, vips1x, montage, picturebook, …) so a change in the
# machine's load during the benchmark hits every tool alike. Median wall time, max peak RSS.
TOOLS="picturebook vips vips1x montage"
echo "running each tool $RUNS times, interleaved…" >&2
for r in $(seq 1 "$RUNS"); do
    for name in $TOOLS; do
        out="$WORK/out-$name-$r"
        rm -rf "$out" && mkdir -p "$out"
        t0=$(date +%s.%N)
        /usr/bin/time -v -o "$WORK/time-$name-$r" bash "$WORK/$name.sh" "$out"
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$WORK/wall-$name"
        awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$WORK/time-$name-$r" >> "$WORK/rss-$name"
        [ "$r" -eq 1 ] || rm -rf "$out"
    done
done
calc() { awk "BEGIN { print $1 }"; }
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
maximum() { sort -n "$1" | tail -1; }

# Check that every tool produced its grids, so a broken command cannot look fast.
for name in $TOOLS; do
    n=$(find "$WORK/out-$name-1" -name '*.png' | wc -l)
    [ "$n" -ge "$BOOKS" ] || { echo "bench-thumbs: $name wrote $n grids, expected $BOOKS" >&2; exit 1; }
done
pb_t=$(median "$WORK/wall-picturebook"); pb_rss=$(maximum "$WORK/rss-picturebook")
vips_t=$(median "$WORK/wall-vips"); vips_rss=$(maximum "$WORK/rss-vips")
v1_t=$(median "$WORK/wall-vips1x"); v1_rss=$(maximum "$WORK/rss-vips1x")
mo_t=$(median "$WORK/wall-montage"); mo_rss=$(maximum "$WORK/rss-montage")
thumbs=$(find "$WORK/out-picturebook-1" -name 'p*.jpg' | wc -l)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
echo "picturebook wrote $thumbs page thumbnails and $(find "$WORK/out-picturebook-1" -name '*.png' | wc -l) grids" >&2

printf '\n%-34s %9s %9s %12s %8s\n' "tool ($npages pages, 1600x2000 JPEG)" "seconds" "pages/s" "peak RSS" "ratio"
row() {
    printf '%-34s %9.3f %9.1f %8.1f MiB %7.2fx\n' "$1" "$2" "$(calc "$npages / $2")" "$(calc "$3 / 1024")" "$(calc "$2 / $pb_t")"
}
row "picturebook thumbs (1x+2x+grids)" "$pb_t" "$pb_rss"
row "vipsthumbnail 1x+2x + arrayjoin" "$vips_t" "$vips_rss"
row "vipsthumbnail 1x + arrayjoin" "$v1_t" "$v1_rss"
row "montage (grid only)" "$mo_t" "$mo_rss"
echo
printf 'picturebook is %.2fx faster than vips (same outputs), %.2fx faster than vips doing 1x only, %.2fx faster than montage; peak RSS %.1f MiB (target: >= 3x vips, <= 100 MiB)\n' \
    "$(calc "$vips_t / $pb_t")" "$(calc "$v1_t / $pb_t")" "$(calc "$mo_t / $pb_t")" "$(calc "$pb_rss / 1024")"
