/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SVG that `kvmchurn plot` writes (svg.c): a self-contained picture,
 * with no script, no style sheet, no font fetched and nothing linked, so
 * that a browser and a plain image viewer (librsvg, ImageMagick) draw it
 * the same. Colours and fonts are attributes. Numbers are written with at
 * most 3 decimals, so that the same input gives the same bytes.
 */
#ifndef KVMCHURN_SVG_H
#define KVMCHURN_SVG_H

#include <stdio.h>

/* One font for all text: its advance is 0.6 em, so a label's width is known. */
#define KC_SVG_FONT	"DejaVu Sans Mono, Liberation Mono, monospace"
#define KC_SVG_ADVANCE	0.6
#define KC_SVG_INK	"#222222"
#define KC_SVG_DIM	"#6b6b6b"
#define KC_SVG_GRID	"#dddddd"
#define KC_SVG_PAPER	"#fcfcfa"
#define KC_SVG_OTHER	"#a6a6a6"	/* what nothing names: grey */
#define KC_SVG_BAD	"#c0392b"
#define KC_SVG_GOOD	"#1e8449"

struct kc_rgb {
	unsigned char r, g, b;
};

/* The document: its size, its <title>, the paper, and the one font. */
void kc_svg_begin(FILE *f, double width, double height, const char *cls,
		  const char *title);
void kc_svg_end(FILE *f);
/*
 * @s as XML text or attribute value: & < > " escaped; a control or a byte
 * that is not of well-formed UTF-8 becomes "?".
 */
void kc_svg_escape(FILE *f, const char *s);
/* A number as attributes take it: at most 3 decimals, no trailing zeros. */
void kc_svg_num(FILE *f, double v);
/*
 * Text at (@x, @y): @anchor "start", "middle" or "end"; @size in px; @bold;
 * @fill; the text escaped.
 */
void kc_svg_text(FILE *f, double x, double y, const char *anchor, double size,
		 int bold, const char *fill, const char *text);
/* How wide @text is in the font at @size px. */
double kc_svg_text_width(const char *text, double size);
/* A line, @width px wide, dashed when @dash. */
void kc_svg_line(FILE *f, double x1, double y1, double x2, double y2,
		 const char *stroke, double width, int dash);

/* A colour from hue (degrees), saturation and lightness (0-1). */
struct kc_rgb kc_svg_hsl(double hue, double sat, double light);
/* "#rrggbb" into @buf (8 bytes). */
const char *kc_svg_hex(char buf[8], struct kc_rgb c);
/* Ink that reads on @c: near black on light colours, white on dark. */
const char *kc_svg_ink_on(struct kc_rgb c);

#endif /* KVMCHURN_SVG_H */
