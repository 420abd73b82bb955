#!/usr/bin/env bash
# Installs what Picturebook needs on Debian 12 beyond the Swift toolchain: the C libraries it links,
# the fonts it typesets with, and the peer tools its benchmarks and tests compare against.
# Idempotent: packages already present are not touched, so a second run takes a second.
#
#   Tools/setup.sh            libraries + fonts (enough to build, run and test)
#   Tools/setup.sh --bench    also the peer tools the benchmarks time (djpeg, vips, ImageMagick, ...),
#                             GNU parallel and PyYAML for Tools/cluster/test-examples.sh
#   Tools/setup.sh --browser  also Chromium + driver and Selenium for the web reader's browser tests
#   Tools/setup.sh --formats  also the validators the export tests run: xmllint (ALTO), epubcheck
#                             (EPUB), and hocr-tools + iiif-prezi3 + iiif-validator in .build/venv-formats
#   Tools/setup.sh --detector the learned text detector `analyze` uses when present: ONNX Runtime's
#                             library (onnxruntime wheel) and PP-OCRv4's detection and recognition
#                             models (from the rapidocr-onnxruntime wheel, Apache-2.0, rewritten by
#                             Tools/detector-model.py), in .build/detector
#   Tools/setup.sh --ocr      also the peer detectors of Tools/bench-unseen.sh: Tesseract and a venv
#                             with rapidocr-onnxruntime (PaddleOCR PP-OCRv4 ONNX models in the wheel)
set -euo pipefail

browser=0
formats=0
ocr=0
detector=0
packages=(
  pkg-config
  libpng-dev libjpeg62-turbo-dev libfreetype-dev libharfbuzz-dev libfribidi-dev
  fonts-noto-core fonts-noto-cjk
  # More faces for the generator's corpus from real illustrations (`generate --illustrations`):
  # serif, sans, display and hand-lettered-looking type beyond Noto (Liberation, URW base 35 with
  # its Z003 chancery, Comic Neue, DejaVu).
  fonts-dejavu-core fonts-liberation fonts-urw-base35 fonts-comic-neue
  unicode-data libhyphen-dev hyphen-en-us libthai-dev zlib1g-dev
  # Scans as libraries deliver them: TIFF (libtiff), JPEG 2000 (OpenJPEG) and PDF (Poppler's C API,
  # which renders through cairo), read by Codecs; libtiff-tools' tiffcp and OpenJPEG's opj_compress
  # make the test fixtures and the import benchmark's inputs.
  libtiff-dev libopenjp2-7-dev libpoppler-glib-dev libcairo2-dev libtiff-tools libopenjp2-tools
  # OCR (`picturebook ocr`): Tesseract's library and the models for the sample books' languages
  # (en, fr, es, ar, zh-Hans) plus Japanese, horizontal and vertical, for the NDL scans.
  libtesseract-dev tesseract-ocr-eng tesseract-ocr-fra tesseract-ocr-spa tesseract-ocr-ara
  tesseract-ocr-chi-sim tesseract-ocr-chi-sim-vert tesseract-ocr-jpn tesseract-ocr-jpn-vert
  # Bilingual dictionaries `picturebook glossary` breaks ties with (optional at run time; installed
  # so the sample books' proposals and their measured precision are reproducible).
  dict-freedict-eng-ara dict-freedict-eng-fra dict-freedict-eng-spa
  # Editor accounts (`picturebook users`, `serve --edit`): Argon2id password hashes.
  libsodium-dev
)
for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(libjpeg-turbo-progs libvips-tools imagemagick time hyperfine pngcheck tesseract-ocr tesseract-ocr-eng bc wrk curl parallel python3-yaml) ;;
    --browser) packages+=(chromium chromium-driver python3-venv nginx-light); browser=1 ;;  # nginx: the reverse-proxy test (test_proxy.py)
    --formats) packages+=(libxml2-utils epubcheck python3-venv libmagic1); formats=1 ;;
    --detector) packages+=(python3-venv); detector=1 ;;
    --ocr) packages+=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu python3-venv); ocr=1 ;;
    *) echo "setup.sh: unknown option '$arg' (expected --bench, --browser, --detector, --formats or --ocr)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null; then
  echo "setup: the Swift toolchain (6.1 or later) is not on PATH; install it from swift.org first" >&2
  exit 1
fi

# Python tools live in venvs inside .build so they never touch the system Python; a marker file
# keyed by the requirement list makes the second run instant.
make_venv() {  # make_venv NAME "REQUIREMENTS"
  local venv=.build/$1 reqs=$2
  if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$reqs" ]; then
    echo "setup: creating $venv ($reqs)"
    mkdir -p .build
    /usr/bin/python3 -m venv "$venv"
    # shellcheck disable=SC2086
    "$venv/bin/pip" install --quiet --disable-pip-version-check $reqs
    echo "$reqs" >"$venv/.requirements"
  fi
}
cd "$(dirname "$0")/.."

# The browser tests (Selenium drives Chromium; Pillow compares screenshots).
((browser)) && make_venv venv-browser "selenium>=4.20 pytest>=8 Pillow>=10"

# The export tests' validators that PyPI ships (hocr-check, the iiif-prezi3 model, and the IIIF
# Image API validator that ReaderTests run against `serve`; it reads image types with python-magic,
# hence libmagic1); Tests/FormatsTests look for this venv by name. The validator is pinned: its
# checks are what "level 1" means in the tests.
((formats)) && make_venv venv-formats "hocr-tools>=1.1 iiif-prezi3>=2.0 iiif-validator==1.0.5"

# The PP-OCRv4 peer (issue 17): rapidocr-onnxruntime ships the detector's ONNX model inside its
# wheel, so installing the package is fetching the model; nothing is committed. Its own venv keeps
# onnxruntime and opencv away from the browser tests' venv. Once made, the benchmark runs offline.
((ocr)) && make_venv venv-ocr "rapidocr-onnxruntime==1.4.4"

# The learned text detector (issue 17). Debian 12 does not package ONNX Runtime; the onnxruntime
# wheel carries its C library, which `analyze` opens at run time (Sources/COnnxRuntime). The model
# is PP-OCRv4's text detector, shipped inside the rapidocr-onnxruntime wheel (Apache-2.0): that
# wheel is installed without its dependencies (OpenCV is not needed) only to take the model file.
# Nothing is committed; .build/detector holds a link to the runtime and the two models, which a
# program in .build/debug or .build/release finds by itself (or set PICTUREBOOK_DETECTOR_DIR).
if ((detector)); then
  make_venv venv-detector "onnxruntime==1.32.0 onnx==1.23.2"
  site=$(echo .build/venv-detector/lib/python3*/site-packages)
  published=$site/rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx
  if [ ! -f "$published" ]; then
    .build/venv-detector/bin/pip install --quiet --disable-pip-version-check --no-deps rapidocr-onnxruntime==1.4.4
  fi
  mkdir -p .build/detector
  ln -sfn "$(realpath "$site"/onnxruntime/capi/libonnxruntime.so.*)" .build/detector/libonnxruntime.so
  # Each model is the published one with its elementwise operators folded together
  # (Tools/detector-model.py: the same function in about half the time; it checks the two agree
  # before writing, else the published model is linked unchanged). The detection network, and
  # PP-OCRv4's line recogniser from the same wheel, which `analyze`'s reading check
  # (ReadingCheck) reads proposed blocks with. A stamp of the published models' and the script's
  # checksums makes the second run instant.
  models=$site/rapidocr_onnxruntime/models
  stamp="$(sha256sum "$models/ch_PP-OCRv4_det_infer.onnx" "$models/ch_PP-OCRv4_rec_infer.onnx" Tools/detector-model.py | cut -d' ' -f1 | tr '\n' ' ')"
  if [ "$(cat .build/detector/.model-stamp 2>/dev/null)" != "$stamp" ] || [ ! -e .build/detector/text-detector.onnx ] || [ ! -e .build/detector/text-reader.onnx ]; then
    rm -f .build/detector/.model-stamp
    ok=1
    for pair in "ch_PP-OCRv4_det_infer.onnx text-detector.onnx 640x480" "ch_PP-OCRv4_rec_infer.onnx text-reader.onnx 48x320"; do
      read -r from to size <<<"$pair"
      if ! .build/venv-detector/bin/python Tools/detector-model.py "$models/$from" ".build/detector/$to" --input "$size"; then
        echo "setup: using the published $from unchanged" >&2
        ln -sfn "$(realpath "$models/$from")" ".build/detector/$to"
        ok=0
      fi
    done
    if ((ok)); then echo "$stamp" >.build/detector/.model-stamp; fi
  fi
fi
true
