/*
 * libFuzzer target for qe-cell-diff: the input is BASE and HEAD, split at
 * the first 0x1e byte (ASCII record separator; no 0x1e: all BASE, empty
 * HEAD). Both streams go through the tool's own record callback, then the
 * comparison and the output writers, exactly as main() runs them; every
 * line printed must read back as a JSON object (the hand-written writer
 * for cell-diff records promises cJSON's bytes). The tool's file is
 * compiled in with its main() renamed; its global state is reset after
 * each input.
 */
#define main qe_cell_diff_main
#include "../cmd/qe-cell-diff.c"
#undef main

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
reset(void)
{
	for (size_t i = 0; i < tabcap; i++) {
		struct doc *d = tab[i];

		if (d == NULL)
			continue;
		for (int w = 0; w < 2; w++) {
			struct side *sd = &d->s[w];

			for (int k = 0; k < sd->ncells; k++)
				free(sd->cells[k].more);
			free(sd->cells);
			free(sd->slot);
			free(sd->cache_key);
			free(sd->status);
			free(sd->exec_s);
			free(sd->cells_s);
		}
		free(d->name);
		free(d);
	}
	free(tab);
	tab = NULL;
	tabcap = ndocs = 0;
	nrecords[BASE] = nrecords[HEAD] = 0;
	for (int i = 0; i < nfps; i++) {
		free(fps[i].fp);
		cJSON_Delete(fps[i].facts);
	}
	free(fps);
	fps = NULL;
	nfps = 0;
	qe_buf_free(&arena);
	for (int i = 0; i < nfactdiffs; i++) {
		free(factdiffs[i].fact);
		free(factdiffs[i].base);
		free(factdiffs[i].head);
	}
	free(factdiffs);
	factdiffs = NULL;
	nfactdiffs = 0;
	for (int w = 0; w < 2; w++) {
		free(fp_seen[w]);
		fp_seen[w] = NULL;
		nfp_seen[w] = 0;
	}
	memset(cell_counts, 0, sizeof cell_counts);
	memset(nb_counts, 0, sizeof nb_counts);
	memset(cell_flag_counts, 0, sizeof cell_flag_counts);
	memset(nb_flag_counts, 0, sizeof nb_flag_counts);
	gate_regressions = 0;
	runner_factor = NAN;
	runner_factor_cells = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *rs = memchr(data, 0x1e, size);
	size_t nbase = rs ? (size_t)(rs - data) : size;
	char paths[2][64], *argv[2], *printed;
	int fds[2], sides[2] = { BASE, HEAD };
	size_t len;

	argv[BASE] = fz_file(data, nbase, &fds[BASE], paths[BASE]);
	argv[HEAD] = rs ? fz_file(rs + 1, size - nbase - 1, &fds[HEAD], paths[HEAD]) :
	    fz_file(data, 0, &fds[HEAD], paths[HEAD]);
	qe_max_line = 1 << 16;
	fz_capture();

	/* main() from its reading loop on */
	for (int w = 0; w < 2; w++)
		qe_each_record(1, &argv[w], read_record, &sides[w]);
	compare_all("base", "head");

	printed = fz_captured(&len);
	fz_check_ndjson(printed, len);
	free(printed);
	reset();
	close(fds[BASE]);
	close(fds[HEAD]);
	return 0;
}
