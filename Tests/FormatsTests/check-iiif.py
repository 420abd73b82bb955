"""Loads a IIIF manifest with the iiif-prezi3 model (pydantic; raises on anything the Presentation
3 schema forbids) and prints key=value facts the Swift test compares with the book."""
import json
import sys

from iiif_prezi3 import Manifest

with open(sys.argv[1], encoding="utf-8") as f:
    data = json.load(f)
manifest = Manifest(**data)
# Round-trip through the model: what it serializes must still be a Manifest it accepts.
again = json.loads(manifest.jsonld())
Manifest(**again)

def value(v):
    return getattr(v, "root", getattr(v, "__root__", v))

canvases = value(manifest.items)
print("canvases=%d" % len(canvases))
print("behavior=%s" % ",".join(str(value(b)) for b in value(manifest.behavior)))
print("viewingDirection=%s" % value(manifest.viewingDirection))
annotations = 0
languages = set()
for canvas in data["items"]:
    for page in canvas.get("annotations", []):
        for a in page["items"]:
            assert a["motivation"] == "supplementing", a["motivation"]
            assert "#xywh=" in a["target"], a["target"]
            annotations += 1
            for body in a["body"]:
                assert body["type"] == "TextualBody"
                if "language" in body:
                    languages.add(body["language"])
print("annotations=%d" % annotations)
print("bodyLanguages=%s" % ",".join(sorted(languages)))
first = data["items"][0]["label"]
print("firstCanvasLabel=%s" % next(iter(first.values()))[0])
print("spreadRanges=%d" % len([r for r in data.get("structures", []) if "no-nav" in r.get("behavior", [])]))
