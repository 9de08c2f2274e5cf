/*
 * launch_identity.c - see launch_identity.h for what the identity means and
 * why per-attempt values stay out of it.
 */
#include "launch_identity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "buf.h"

static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/*
 * The hash input is a list of "key=value\n" lines, so that no combination of
 * values can collide with another by shifting text across a boundary (values
 * holding a newline are rejected by the caller's sources: env values and
 * Kubernetes names cannot be confused that way in practice, and the flag is
 * hashed last).
 */
static void hash_hex(const struct buf *in, char out[33])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	static const char hex[] = "0123456789abcdef";

	EVP_Digest(in->data, in->len, md, &n, EVP_sha256(), NULL);
	for (int i = 0; i < 16; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[32] = '\0';
}

/* Fill `material` and `id->source` from the pipeline environment; 0 if none. */
static int from_pipeline(struct buf *material, struct launch_identity *id)
{
	const char *wf_uid = env_nonempty("ARGO_WORKFLOW_UID");
	const char *wf_name = env_nonempty("ARGO_WORKFLOW_NAME");
	const char *kfp_run = env_nonempty("KFP_RUN_ID");

	if (!wf_uid && !wf_name && !kfp_run)
		return 0;
	if (kfp_run) {
		buf_addf(material, "kfp-run=%s\n", kfp_run);
		snprintf(id->source, sizeof(id->source), "kfp run %s", kfp_run);
	} else if (wf_uid) {
		buf_addf(material, "argo-workflow-uid=%s\n", wf_uid);
		snprintf(id->source, sizeof(id->source), "argo workflow %s (uid %s)",
			 wf_name ? wf_name : "?", wf_uid);
	} else {
		buf_addf(material, "argo-workflow=%s\n", wf_name);
		snprintf(id->source, sizeof(id->source), "argo workflow %s", wf_name);
	}
	return 1;
}

int launch_identity_derive(const char *flag, const char *ns, const char *name,
			   struct launch_identity *id, struct err *e)
{
	struct buf m = BUF_INIT;
	const char *host = env_nonempty("HOSTNAME");

	memset(id, 0, sizeof(*id));
	if (flag && !*flag)
		return err_set(e, ERR_INPUT, "--identity must not be empty; "
			       "leave it out to derive it from the pipeline");
	if (flag && strchr(flag, '\n'))
		return err_set(e, ERR_INPUT, "--identity must be one line");
	snprintf(id->pod, sizeof(id->pod), "%s", host ? host : "");
	buf_addf(&m, "namespace=%s\nname=%s\n", ns ? ns : "", name ? name : "");
	if (flag) {
		buf_addf(&m, "identity=%s\n", flag);
		snprintf(id->source, sizeof(id->source), "--identity");
		id->adoptable = 1;
	} else if (from_pipeline(&m, id)) {
		id->adoptable = 1;
	} else {
		/*
		 * No pipeline around us: unique per process, never adoptable.
		 * The value only needs to differ from any other launch, not to
		 * be secret, so pid + time + host is enough.
		 */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		buf_addf(&m, "local=%s/%ld/%lld.%09ld\n", host ? host : "",
			 (long)getpid(), (long long)ts.tv_sec, ts.tv_nsec);
		snprintf(id->source, sizeof(id->source), "local run (no pipeline environment)");
		id->adoptable = 0;
	}
	hash_hex(&m, id->id);
	buf_free(&m);
	return 0;
}

static cJSON *object_child(cJSON *parent, const char *key)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(parent, key);
	if (cJSON_IsObject(c))
		return c;
	if (c)
		cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
	return cJSON_AddObjectToObject(parent, key);
}

static void set_string(cJSON *obj, const char *key, const char *val)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, val);
}

void launch_identity_stamp(cJSON *job, const struct launch_identity *id)
{
	cJSON *meta = object_child(job, "metadata");
	set_string(object_child(meta, "labels"), LAUNCH_ID_LABEL, id->id);
	cJSON *ann = object_child(meta, "annotations");
	set_string(ann, LAUNCH_SOURCE_ANNOTATION, id->source);
	if (id->pod[0])
		set_string(ann, LAUNCH_POD_ANNOTATION, id->pod);
}

const char *launch_identity_of(const cJSON *job)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, LAUNCH_ID_LABEL);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int launch_identity_matches(const cJSON *job, const struct launch_identity *id)
{
	const char *v = launch_identity_of(job);
	return v && strcmp(v, id->id) == 0;
}
