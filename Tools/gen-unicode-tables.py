#!/usr/bin/env python3
"""Generates Sources/Typesetting/Unicode/UnicodeTables.generated.swift from the Unicode Character
Database that Debian's `unicode-data` package installs (Unicode 15.0 on Debian 12).

Inputs (all under /usr/share/unicode, override with UCD=...):
  LineBreak.txt             Line_Break property (UAX #14)
  EastAsianWidth.txt        to split OP/CP into the East-Asian-wide ones LB30 exempts
  UnicodeData.txt           General_Category: SA marks (Mn/Mc) resolve to CM (LB1), Cn for LB30b
  emoji/emoji-data.txt      Extended_Pictographic for LB30b
  Scripts.txt               Script property, for itemizing text into font/shaping runs
  PropertyValueAliases.txt  long script names to ISO 15924 codes (what HarfBuzz takes)

Output: two run-length tables, each a string of 8-hex-digit entries `SSSSSSVV` (first code point
of a run, value), decoded once at first use. A string keeps the Swift compiler fast where a
several-thousand-element array literal would not.

Usage: Tools/gen-unicode-tables.py  (from the repository root; rewrites the Swift file)
"""
import os
import re
import sys

UCD = os.environ.get("UCD", "/usr/share/unicode")
OUT = "Sources/Typesetting/Unicode/UnicodeTables.generated.swift"
N = 0x110000

# Line break classes as the Swift enum `LineBreakClass` orders them; the pseudo classes after
# ZWJ carry the two extra facts LB30 and LB30b need, so a lookup is still a single table probe.
LB_CLASSES = [
    "BK", "CR", "LF", "NL", "SP", "ZW", "CM", "ZWJ", "WJ", "GL", "BA", "BB", "B2", "HY", "CB",
    "CL", "CP", "EX", "IN", "NS", "OP", "QU", "IS", "NU", "PO", "PR", "SY", "AL", "HL", "ID",
    "EB", "EM", "H2", "H3", "JL", "JV", "JT", "RI", "SA", "AI", "CJ", "SG", "XX",
    # pseudo classes
    "OPW",  # OP with East_Asian_Width F/W/H (not part of LB30)
    "CPW",  # CP with East_Asian_Width F/W/H
    "IDX",  # ID that is Extended_Pictographic and unassigned (LB30b)
]


def parse_ranges(path):
    """Yields (first, last, value) for every data line of a UCD property file."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            cps, value = [s.strip() for s in line.split(";")[:2]]
            if ".." in cps:
                a, b = cps.split("..")
            else:
                a = b = cps
            yield int(a, 16), int(b, 16), value


def general_categories():
    gc = ["Cn"] * N
    first = None
    with open(os.path.join(UCD, "UnicodeData.txt"), encoding="utf-8") as f:
        for line in f:
            fields = line.split(";")
            cp, name, cat = int(fields[0], 16), fields[1], fields[2]
            if name.endswith(", First>"):
                first = cp
                continue
            if name.endswith(", Last>"):
                for c in range(first, cp + 1):
                    gc[c] = cat
                continue
            gc[cp] = cat
    return gc


def runs(values):
    out = []
    prev = None
    for cp, v in enumerate(values):
        if v != prev:
            out.append((cp, v))
            prev = v
    return out


def encode(entries, indent="    "):
    """Hex entries, 12 per line, as the pieces of one Swift string literal."""
    cells = ["%06X%02X" % (cp, v) for cp, v in entries]
    lines = []
    for i in range(0, len(cells), 12):
        lines.append(indent + "\"" + "".join(cells[i:i + 12]) + "\",")
    return "\n".join(lines)


def main():
    gc = general_categories()

    lb = ["XX"] * N
    for a, b, v in parse_ranges(os.path.join(UCD, "LineBreak.txt")):
        for c in range(a, b + 1):
            lb[c] = v
    wide = bytearray(N)
    for a, b, v in parse_ranges(os.path.join(UCD, "EastAsianWidth.txt")):
        if v in ("F", "W", "H"):
            for c in range(a, b + 1):
                wide[c] = 1
    pict = bytearray(N)
    for a, b, v in parse_ranges(os.path.join(UCD, "emoji", "emoji-data.txt")):
        if v == "Extended_Pictographic":
            for c in range(a, b + 1):
                pict[c] = 1

    index = {name: i for i, name in enumerate(LB_CLASSES)}
    values = [0] * N
    for c in range(N):
        v = lb[c]
        if v == "SA" and gc[c] in ("Mn", "Mc"):
            v = "CM"  # LB1
        elif v == "OP" and wide[c]:
            v = "OPW"
        elif v == "CP" and wide[c]:
            v = "CPW"
        elif v == "ID" and pict[c] and gc[c] == "Cn":
            v = "IDX"
        if v not in index:
            sys.exit("unknown line break class %s at U+%04X" % (v, c))
        values[c] = index[v]
    lb_runs = runs(values)

    # Scripts: long names in Scripts.txt, ISO 15924 codes from PropertyValueAliases.txt.
    codes = {}
    with open(os.path.join(UCD, "PropertyValueAliases.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"sc\s*;\s*(\w+)\s*;\s*(\w+)", line)
            if m:
                codes[m.group(2)] = m.group(1)
    script_names = ["Zzzz", "Zyyy", "Zinh"]  # fixed first three: Unknown, Common, Inherited
    script_of = [0] * N
    for a, b, v in parse_ranges(os.path.join(UCD, "Scripts.txt")):
        code = codes[v]
        if code not in script_names:
            script_names.append(code)
        i = script_names.index(code)
        for c in range(a, b + 1):
            script_of[c] = i
    if len(script_names) > 255:
        sys.exit("too many scripts for one byte")
    sc_runs = runs(script_of)

    with open(os.path.join(UCD, "ReadMe.txt"), encoding="utf-8") as f:
        version = re.search(r"Version (\d+\.\d+\.\d+)", f.read())
    version = version.group(1) if version else "unknown"

    with open(OUT, "w", encoding="utf-8") as f:
        f.write("// GENERATED by Tools/gen-unicode-tables.py from the Unicode %s Character Database\n" % version)
        f.write("// (Debian package unicode-data). Do not edit; rerun the script instead.\n\n")
        f.write("enum UnicodeTables {\n")
        f.write("    static let unicodeVersion = \"%s\"\n\n" % version)
        f.write("    /// Line_Break runs: `SSSSSSVV`, V indexes `LineBreakClass` (pseudo classes included).\n")
        f.write("    static let lineBreakRuns: [String] = [\n")
        f.write(encode(lb_runs, "        ") + "\n    ]\n\n")
        f.write("    /// ISO 15924 codes the script runs refer to; 0 Unknown, 1 Common, 2 Inherited.\n")
        f.write("    static let scriptCodes: [String] = [\n")
        for i in range(0, len(script_names), 12):
            f.write("        " + ", ".join('"%s"' % s for s in script_names[i:i + 12]) + ",\n")
        f.write("    ]\n\n")
        f.write("    /// Script runs: `SSSSSSVV`, V indexes `scriptCodes`.\n")
        f.write("    static let scriptRuns: [String] = [\n")
        f.write(encode(sc_runs, "        ") + "\n    ]\n")
        f.write("}\n")
    print("wrote %s: %d line-break runs, %d script runs, %d scripts" % (OUT, len(lb_runs), len(sc_runs), len(script_names)))


if __name__ == "__main__":
    main()
