/* qe_html.c - the one HTML escaper (see qe_html.h). */
#include <string.h>

#include "qe_gfm.h"
#include "qe_html.h"
#include "qe_mem.h"
#include "qe_utf8.h"

size_t
qe_html_text(struct qe_buf *b, const char *s, size_t max)
{
	size_t i = 0, n, shown = 0, k;
	long cp;

	qe_buf_grow(b, 0);
	if (s == NULL)
		return 0;
	n = strlen(s);
	while (i < n) {
		if (max && shown == max) {
			qe_utf8_put(b, 0x2026);
			break;
		}
		k = qe_utf8_next((const unsigned char *)s + i, n - i, &cp);
		i += k;
		shown++;
		switch (cp) {
		case '&': qe_buf_adds(b, "&amp;"); continue;
		case '<': qe_buf_adds(b, "&lt;"); continue;
		case '>': qe_buf_adds(b, "&gt;"); continue;
		case '"': qe_buf_adds(b, "&quot;"); continue;
		case '\'': qe_buf_adds(b, "&#39;"); continue;
		default: break;
		}
		qe_utf8_put(b, qe_gfm_visible(cp));
	}
	return shown;
}
