"""Draws the image the IIIF Image API validator checks a service with: 1000x1000 pixels, a 10x10
grid of 100-pixel squares whose colours the validator itself holds (ValidationInfo.colorInfo,
indexed [column][row]). Taking the colours from the installed validator keeps the picture and the
checks from one source. Written as PNG so the only lossy step is the service's own JPEG."""
import sys

from iiif_validator.validator import ValidationInfo
from PIL import Image, ImageDraw

colours = ValidationInfo().colorInfo
image = Image.new("RGB", (1000, 1000))
draw = ImageDraw.Draw(image)
for column in range(10):
    for row in range(10):
        x, y = column * 100, row * 100
        draw.rectangle([x, y, x + 99, y + 99], fill=tuple(colours[column][row]))
image.save(sys.argv[1], "PNG")
