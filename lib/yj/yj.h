/*
 * yj.h - YAML <-> JSON: libyaml events into cJSON trees, and cJSON trees back
 * into deterministic YAML.
 *
 * Every manifest, template, job file and kubeconfig enters the program
 * through yj_parse_stream()/yj_parse_one() (yj_parse.c); every YAML we print
 * leaves through yj_emit() (yj_emit.c). Inside, the program only ever
 * handles cJSON trees. Both sides type plain scalars with one function
 * (yj_scalar.c); the JSON writer is jtree.h's; files are read with
 * buf_read_file() (buf.h) with YJ_MAX_INPUT as the limit.
 *
 * Scalars are typed as Kubernetes' reader types them where it matters:
 * null (~, null/Null/NULL, empty) and booleans (true/True/TRUE,
 * false/False/FALSE) by the YAML 1.2 core schema (yes/no/on/off stay
 * strings); numbers as go-yaml v2 reads them (sigs.k8s.io/yaml, behind
 * kubectl and client-go's users): decimal, 0x, 0o, 0b, YAML 1.1's leading-zero octal
 * (0644 is 420), '_' between digits, floats (1.5, .5, 1e3, .inf/-.inf/.nan
 * in the three case forms); see yj_scalar.c. Every number keeps the text it
 * was written with (cJSON valuestring; jtree_number_text): where it becomes
 * text (an env value, a label) the text stays as written, 0x1F is "0x1F";
 * where it stays a number, the value. Quoted scalars are always strings.
 * Tags !!str/!!int/!!float/!!bool/!!null are honoured (a value that does not
 * fit its tag is an error), !!binary is decoded (base64, as go-yaml v2 does;
 * bytes that are not UTF-8 text are refused), !!map/!!seq and the
 * non-specific "!" accepted; any other tag (!!set, !!timestamp, !custom) is
 * refused with where it is (templates use none;
 * placeholders are plain text `((name))`, see tmpl.h). Merge keys (a plain
 * `<<: *base` or `<<: [*a, *b]`) are applied as in YAML 1.1: keys written in
 * the mapping win over merged ones, earlier sources over later ones. Scalar
 * mapping keys are strings exactly as written ("1", "0x10", "true", "~").
 *
 * Anchors/aliases are resolved by deep copy. Against "billion laughs" input
 * the nodes and the bytes created by alias expansion are bounded
 * (YJ_MAX_ALIAS_NODES, YJ_MAX_ALIAS_BYTES: an anchored 1 MiB string aliased
 * a thousand times is few nodes and a gigabyte; real files alias a few
 * kilobytes of shared settings); documents nest at most YJ_MAX_DEPTH levels (the
 * parser is iterative over libyaml events, but cJSON_Delete/Duplicate and our
 * emitters recurse, so the bound protects them), and the input is at most
 * YJ_MAX_INPUT bytes. NUL bytes in the input are an error. Mapping keys
 * must be scalars; duplicate keys are an error (as in kubectl), so a
 * parameter can never shadow a key silently.
 *
 * Emission: block style, 2-space indentation, a sequence under a key starts
 * at the key's column ("containers:\n- name: x", as kubectl prints), mapping
 * keys in the order given by `flags` (sorted, or as in the tree). Strings are
 * double-quoted whenever a plain scalar could read back as another type under
 * YAML 1.1 or 1.2 ("yes", "on", "y", "~", "0777", "1e3", "2024-01-01" and
 * anything starting with a digit), or starts with an indicator, has
 * leading/trailing spaces, ": " or " #". Multi-line strings are literal
 * blocks ("|", "|-", "|+") when that is unambiguous, else double-quoted
 * escapes, as are control and line-separator characters. Keys longer than
 * YAML's 1024-character implicit-key limit become explicit ("? key"). A tree
 * with duplicate keys (cJSON_Parse keeps them) or non-UTF-8 strings cannot be
 * emitted (ERR_INPUT). No timestamps, no comments, no line folding: the same
 * tree gives the same bytes.
 *
 * Numbers: integral values within +-2^53 print as integers, others as the
 * shortest of %.15g/%.16g/%.17g that reads back exactly; NaN/Inf as
 * .nan/.inf/-.inf. yj_parse(yj_emit(t)) equals t for every tree yj_parse can
 * produce (compare with jtree_equal: cJSON_Compare is exponential in depth and
 * says NaN != NaN).
 *
 * Errors: "source:line:col: problem" (line and column 1-based), ERR_PARSE for
 * malformed YAML, NUL bytes or non-UTF-8 input; ERR_INPUT for well-formed
 * YAML we refuse (duplicate or non-scalar keys, bad or unknown tags, unknown
 * aliases); ERR_LIMIT for the bounds.
 *
 * Ownership: trees returned through `*_out` belong to the caller
 * (cJSON_Delete); on failure they are set to NULL. Input buffers are never
 * retained. No global state: safe to use from several threads.
 */
#ifndef JAXJOB_YJ_H
#define JAXJOB_YJ_H

#include <stddef.h>
#include <cJSON.h>

#include "buf.h"
#include "err.h"

#define YJ_MAX_INPUT (8u * 1024 * 1024)	/* bytes of YAML/JSON text */
#define YJ_MAX_DEPTH 64			/* nesting of collections */
#define YJ_MAX_ALIAS_NODES 100000	/* nodes created by alias copies */
#define YJ_MAX_ALIAS_BYTES (4u * 1024 * 1024)	/* bytes created by alias copies */
#define YJ_MAX_OUTPUT (64u * 1024 * 1024)	/* bytes of one yj_emit_stream() */
#define YJ_MAX_SURROGATE_PASSES 256	/* JSON \ud83d\udca5 escapes rewritten (each a re-parse) */

enum yj_emit_flags {
	YJ_SORT_KEYS = 1 << 0,	/* sort mapping keys (byte order) at every level */
};

/*
 * Parse a YAML (or JSON, which is YAML) stream. Returns a cJSON array with
 * one element per document; empty documents (a bare `---`, or `null`) are
 * dropped. `source` names the input in error messages ("templates/x.yaml"),
 * which look like "templates/x.yaml:12:3: mapping values are not allowed here".
 */
int yj_parse_stream(const char *data, size_t len, const char *source,
		    cJSON **docs_out, struct err *e);

/*
 * yj_parse_stream() with options. YJ_KEEP_NUL: a NUL character written as
 * an escape in a quoted string ("a\u0000b", "a\0b"; a raw NUL byte is
 * still an error) is kept, spelled YJ_NUL in the cJSON string - the two
 * bytes C0 80, which no valid UTF-8 holds (Java's "modified UTF-8" NUL), so
 * the C string stays whole and unambiguous, compares unequal to any
 * NUL-free word, and jtree's JSON writer turns it back into \u0000. For a
 * reader that must take any string another reader takes (health: the Lua
 * twins of its checks hold NULs in strings); without it a NUL in a scalar is an error, as
 * a manifest with one is a mistake.
 */
enum yj_parse_flags {
	YJ_KEEP_NUL = 1 << 0,
};
#define YJ_NUL "\xC0\x80"

int yj_parse_stream_flags(const char *data, size_t len, const char *source,
			  unsigned flags, cJSON **docs_out, struct err *e);

/* Parse a stream that must hold exactly one document. */
int yj_parse_one(const char *data, size_t len, const char *source,
		 cJSON **doc_out, struct err *e);

/*
 * Emit one document as YAML (no leading "---"), appended to `out`; on
 * failure nothing is appended, but `out` may have grown (its length is put
 * back, not its memory): the caller still frees it.
 */
int yj_emit(const cJSON *doc, unsigned flags, struct buf *out, struct err *e);

/*
 * Emit each element of `docs` (a cJSON array) as a document, each preceded by
 * "---\n". Nothing is appended to `out` unless every document succeeds.
 */
int yj_emit_stream(const cJSON *docs, unsigned flags, struct buf *out,
		   struct err *e);

#endif
