#!/usr/bin/env python3
"""The timeline picture of a `leasesim replay ... --html FILE` page as a
standalone SVG file (docs/DESIGNS.md embeds one per counterexample): the
page's first <svg class="timeline"> with the page's stylesheet moved inside
it, since the picture is drawn with CSS classes.

Usage: scripts/timeline-svg.py PAGE.html OUT.svg"""
import re
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    page = open(sys.argv[1], encoding="utf-8").read()
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    svg = re.search(r'<svg class="timeline".*?</svg>', page, re.S)
    if not style or not svg:
        sys.exit(f"{sys.argv[1]}: no timeline picture (is it a leasesim replay --html page?)")
    picture = svg.group(0)
    head_end = picture.index(">") + 1
    standalone = picture[:head_end] + "<style>" + style.group(1) + "</style>" + picture[head_end:]
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write(standalone + "\n")


if __name__ == "__main__":
    main()
