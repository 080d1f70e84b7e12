// SPDX-License-Identifier: GPL-2.0
/* SVG primitives for `kvmchurn plot`: escaping, numbers, text, colours. */
#include <math.h>
#include <string.h>

#include "svg.h"

void kc_svg_begin(FILE *f, double width, double height, const char *cls,
		  const char *title)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" class=\"", f);
	kc_svg_escape(f, cls);
	fputs("\" width=\"", f);
	kc_svg_num(f, width);
	fputs("\" height=\"", f);
	kc_svg_num(f, height);
	fputs("\" viewBox=\"0 0 ", f);
	kc_svg_num(f, width);
	fputc(' ', f);
	kc_svg_num(f, height);
	fputs("\" font-family=\"" KC_SVG_FONT "\">\n<title>", f);
	kc_svg_escape(f, title);
	fputs("</title>\n<rect class=\"paper\" x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"" KC_SVG_PAPER "\"/>\n", f);
}

void kc_svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

/*
 * How many bytes of @s make one well-formed UTF-8 character (RFC 3629: no
 * overlong form, no surrogate, nothing past U+10FFFF); 0 when they do not.
 */
static size_t utf8_char(const unsigned char *s)
{
	size_t n = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : 2;
	unsigned int c = *s & (0x7f >> n);

	if (*s < 0xc2 || *s > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

void kc_svg_escape(FILE *f, const char *s)
{
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n;

		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if (c >= 0x80) {
				/* a comm is bytes: what is not UTF-8 would end the XML */
				n = utf8_char((const unsigned char *)s);
				if (n)
					fwrite(s, 1, n, f);
				else
					fputc('?', f);
				s += n ? n : 1;
				continue;
			}
			/* XML 1.0 has no place for the other controls */
			fputc(c >= 0x20 || c == '\n' || c == '\t' ? c : '?', f);
		}
		s++;
	}
}

void kc_svg_num(FILE *f, double v)
{
	char buf[48];
	size_t n;

	if (!isfinite(v))
		v = 0;
	v = round(v * 1000) / 1000;
	if (v == 0)
		v = 0;	/* no "-0" */
	n = (size_t)snprintf(buf, sizeof(buf), "%.3f", v);
	while (n > 1 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 1 && buf[n - 1] == '.')
		buf[--n] = '\0';
	fputs(buf, f);
}

void kc_svg_text(FILE *f, double x, double y, const char *anchor, double size,
		 int bold, const char *fill, const char *text)
{
	fputs("<text x=\"", f);
	kc_svg_num(f, x);
	fputs("\" y=\"", f);
	kc_svg_num(f, y);
	fputs("\" font-size=\"", f);
	kc_svg_num(f, size);
	fprintf(f, "\" fill=\"%s\"", fill);
	if (strcmp(anchor, "start"))
		fprintf(f, " text-anchor=\"%s\"", anchor);
	if (bold)
		fputs(" font-weight=\"bold\"", f);
	fputc('>', f);
	kc_svg_escape(f, text);
	fputs("</text>\n", f);
}

/* UTF-8: a character is a byte that does not continue one. */
double kc_svg_text_width(const char *text, double size)
{
	size_t chars = 0;

	for (; *text; text++)
		chars += ((unsigned char)*text & 0xc0) != 0x80;
	return (double)chars * size * KC_SVG_ADVANCE;
}

void kc_svg_line(FILE *f, double x1, double y1, double x2, double y2,
		 const char *stroke, double width, int dash)
{
	fputs("<line x1=\"", f);
	kc_svg_num(f, x1);
	fputs("\" y1=\"", f);
	kc_svg_num(f, y1);
	fputs("\" x2=\"", f);
	kc_svg_num(f, x2);
	fputs("\" y2=\"", f);
	kc_svg_num(f, y2);
	fprintf(f, "\" stroke=\"%s\" stroke-width=\"", stroke);
	kc_svg_num(f, width);
	fputc('"', f);
	if (dash)
		fputs(" stroke-dasharray=\"4 3\"", f);
	fputs("/>\n", f);
}

static double hue_part(double p, double q, double t)
{
	if (t < 0)
		t += 1;
	if (t > 1)
		t -= 1;
	if (t < 1.0 / 6)
		return p + (q - p) * 6 * t;
	if (t < 0.5)
		return q;
	if (t < 2.0 / 3)
		return p + (q - p) * (2.0 / 3 - t) * 6;
	return p;
}

struct kc_rgb kc_svg_hsl(double hue, double sat, double light)
{
	double h = fmod(hue, 360) / 360, q, p;

	if (h < 0)
		h += 1;
	q = light < 0.5 ? light * (1 + sat) : light + sat - light * sat;
	p = 2 * light - q;
	return (struct kc_rgb){
		(unsigned char)lround(hue_part(p, q, h + 1.0 / 3) * 255),
		(unsigned char)lround(hue_part(p, q, h) * 255),
		(unsigned char)lround(hue_part(p, q, h - 1.0 / 3) * 255),
	};
}

const char *kc_svg_hex(char buf[8], struct kc_rgb c)
{
	snprintf(buf, 8, "#%02x%02x%02x", c.r, c.g, c.b);
	return buf;
}

/* Relative luminance, roughly (sRGB weights, no gamma): enough to pick ink. */
const char *kc_svg_ink_on(struct kc_rgb c)
{
	return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b > 140 ? KC_SVG_INK : "#ffffff";
}
