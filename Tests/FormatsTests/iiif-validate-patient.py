"""Runs the installed iiif-validate.py unchanged except for one thing: its HTTP requests wait up to
PATIENCE seconds for an answer instead of the 5 s hard-wired in iiif_validator.validator. The
tests run a debug build of `picturebook serve` on a shared 2-core machine, where scaling the
validator's 1000x1000 picture can take longer than 5 s; a slow answer is not a wrong one, and
every check (status, size, colours) is still the validator's own.

    iiif-validate-patient.py PATH/TO/iiif-validate.py [validator options...]"""
import functools
import runpy
import sys
import urllib.request

PATIENCE = 120

import iiif_validator.validator as validator  # noqa: E402

_urlopen = urllib.request.urlopen


@functools.wraps(_urlopen)
def patient_urlopen(request, *args, timeout=None, **kwargs):
    return _urlopen(request, *args, timeout=PATIENCE, **kwargs)


validator.urlopen = patient_urlopen
script = sys.argv[1]
sys.argv = [script] + sys.argv[2:]
runpy.run_path(script, run_name="__main__")
