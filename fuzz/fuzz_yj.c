/*
 * fuzz_yj.c - libFuzzer target for lib/yj (YAML/JSON in, YAML/JSON out).
 *
 * Input: any bytes, parsed as a YAML stream. Contracts checked (yj.h):
 *   - failure: an error code and a one-line message;
 *   - success: every document emits as YAML (sorted and unsorted keys), the
 *     emission is deterministic (same bytes twice), and it parses back to an
 *     equal tree (yj_parse(yj_emit(t)) == t), except for trees holding
 *     .nan/.inf, which cJSON_Compare never finds equal (|a-b| is NaN);
 *   - canonical JSON of every document is valid JSON.
 */
#include <math.h>

#include "yj/jtree.h"
#include "yj/yj.h"
#include "fuzz_common.h"

static int has_nonfinite(const cJSON *n)
{
	for (; n; n = n->next) {
		if (cJSON_IsNumber(n) && !isfinite(n->valuedouble))
			return 1;
		if (has_nonfinite(n->child))
			return 1;
	}
	return 0;
}

static void round_trip(const cJSON *doc, unsigned flags)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;
	int rc = yj_emit(doc, flags, &a, &e);
	FUZZ_CHECK(rc == 0, "yj_emit failed on a parsed tree: %s", e.msg);
	rc = yj_emit(doc, flags, &b, &e);
	FUZZ_CHECK(rc == 0 && a.len == b.len && !memcmp(a.data, b.data, a.len),
		   "yj_emit is not deterministic");
	cJSON *back = NULL;
	rc = yj_parse_one(a.data, a.len, "emitted", &back, &e);
	FUZZ_CHECK(rc == 0, "emitted YAML does not parse back: %s\n--- emitted:\n%s", e.msg, a.data);
	if (!has_nonfinite(doc))
		FUZZ_CHECK(fuzz_same_tree(doc, back), "round trip changed the tree\n--- emitted:\n%s",
			   a.data);
	cJSON_Delete(back);
	buf_free(&a);
	buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *docs = NULL;
	struct err e = ERR_INIT;
	if (yj_parse_stream((const char *)data, size, "fuzz.yaml", &docs, &e)) {
		fuzz_check_err(&e, "yj_parse_stream");
		FUZZ_CHECK(docs == NULL, "docs set on failure");
		return 0;
	}
	FUZZ_CHECK(cJSON_IsArray(docs), "yj_parse_stream did not return an array");
	const cJSON *doc;
	cJSON_ArrayForEach(doc, docs) {
		round_trip(doc, 0);
		round_trip(doc, YJ_SORT_KEYS);
		struct buf j = BUF_INIT;
		jtree_json_canonical(doc, &j);
		cJSON *p = cJSON_ParseWithLength(j.data, j.len);
		FUZZ_CHECK(p != NULL, "canonical JSON does not parse: %s", j.data);
		cJSON_Delete(p);
		buf_free(&j);
	}
	struct buf all = BUF_INIT;
	if (yj_emit_stream(docs, YJ_SORT_KEYS, &all, &e) == 0) {
		cJSON *again = NULL;
		FUZZ_CHECK(yj_parse_stream(all.data, all.len, "stream", &again, &e) == 0,
			   "emitted stream does not parse: %s", e.msg);
		FUZZ_CHECK(cJSON_GetArraySize(again) == cJSON_GetArraySize(docs) || has_nonfinite(docs),
			   "stream round trip changed the document count");
		cJSON_Delete(again);
	}
	buf_free(&all);
	cJSON_Delete(docs);
	return 0;
}
