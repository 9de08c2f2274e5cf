/*
 * health.h - the judge of one job object: its health status and message,
 * its lifecycle (finished? succeeded? suspended?) and the phase a launcher
 * shows. The C twin of the Lua health checks in health-checks/
 * (kubeflow.org/JAXJob/health.lua, trainer.kubeflow.org/TrainJob/health.lua);
 * core logic, so it lives in lib/ and knows no front-end.
 *
 * One judge, three users: `jaxjob health` (health-checks/health_cmd.c)
 * prints its verdicts, `jaxjob launch` (component/) asks it on every watch
 * event whether the job is finished and which phase to show, and the suite
 * tests/suites/40-health-vectors.sh runs every vector of the Lua checks'
 * health_test.yaml through it and through the Lua script: status and
 * message must be identical. So any change to the rules here is a change to
 * both files and to the vectors.
 *
 * Rules (JAXJob, group kubeflow.org): metadata.deletionTimestamp set ->
 * Progressing "Pending deletion" (what the GitOps controller reports itself). No condition
 * objects -> Progressing "Waiting for JAXJob to be accepted by the training
 * operator". Otherwise conditions are judged by type and status == "True"
 * (never by position): Failed -> Degraded, Succeeded -> Healthy, Suspended
 * -> Suspended, Restarting -> Progressing, Running -> Progressing "N/M
 * workers active", Created -> Progressing, else Progressing "Waiting for
 * JAXJob status". Messages are the condition's message, else its reason.
 * TrainJob (group trainer.kubeflow.org): Failed -> Degraded, Complete ->
 * Healthy, a condition observedGeneration behind metadata.generation ->
 * Progressing, Created=False with reason JobsCreationFailed/JobsBuildFailed
 * -> Degraded, Suspended -> Suspended, else Progressing. Suspended with the
 * label kueue.x-k8s.io/queue-name on the job says "Queued by Kueue in
 * LocalQueue Q: suspended until admitted" instead of the condition's text.
 * The full table is in health-checks/README.md.
 *
 * Every field may have any JSON type; the judge never fails on odd input,
 * it reads only what has the expected type (a Lua script cannot do more).
 *
 * Ownership: health_judge() only reads `obj`; the result owns its message
 * buffer (health_result_free). The result may be reused for many objects.
 */
#ifndef JAXJOB_HEALTH_H
#define JAXJOB_HEALTH_H

#include <stdbool.h>
#include <cJSON.h>

#include "buf.h"

/* The health codes of the Lua checks (health-checks/README.md), ordered as
 * an application's health is aggregated: a later value is worse
 * (health_worst() relies on this order). */
enum health_status {
	HEALTH_HEALTHY = 0,
	HEALTH_SUSPENDED,
	HEALTH_PROGRESSING,
	HEALTH_MISSING,		/* never from health_judge; "no object" */
	HEALTH_DEGRADED,
	HEALTH_UNKNOWN,		/* not a kind we judge */
};

enum health_kind {
	HEALTH_KIND_OTHER = 0,
	HEALTH_KIND_JAXJOB,	/* kubeflow.org/<any version> JAXJob */
	HEALTH_KIND_TRAINJOB,	/* trainer.kubeflow.org/<any version> TrainJob */
};

struct health_result {
	enum health_kind kind;
	enum health_status status;	/* what the Lua check returns */
	struct buf message;		/* exactly what the Lua check returns */
	/*
	 * Lifecycle, from the conditions alone (for `jaxjob launch`):
	 *   terminal  the job is finished and will not change: succeeded or
	 *             failed. Stop waiting.
	 *   succeeded Succeeded=True (JAXJob) / Complete=True (TrainJob), and
	 *             not failed.
	 *   failed    Failed=True. Failed beats Succeeded.
	 *   suspended Suspended=True and not terminal: reported, NOT terminal
	 *             (a suspended job resumes when the flag is cleared, or when
	 *             Kueue admits it).
	 *   deleting  metadata.deletionTimestamp is set. `status` is then
	 *             Progressing "Pending deletion" as the Lua check says, but
	 *             terminal/succeeded/failed still tell how the job ended.
	 * A TrainJob whose jobs could not be created (Created=False, *Failed) is
	 * Degraded but not terminal: the controller keeps retrying.
	 */
	bool terminal;
	bool succeeded;
	bool failed;
	bool suspended;
	bool deleting;
	/*
	 * The phase `jaxjob launch` shows (static storage): the first of
	 * Failed, Succeeded, Complete, Suspended, Restarting, Running, Created
	 * with a condition of status "True", else "Pending". Read from the
	 * conditions of any object, whatever its kind.
	 */
	const char *phase;
};

#define HEALTH_RESULT_INIT { HEALTH_KIND_OTHER, HEALTH_UNKNOWN, BUF_INIT, \
			     false, false, false, false, false, "Pending" }

/*
 * Judge one object. Returns 0 for a JAXJob or TrainJob; for anything else
 * (including a non-object) returns -1 with status HEALTH_UNKNOWN and a
 * message naming the apiVersion and kind. Never fails otherwise: any status
 * content, however malformed, gets a verdict. `out` must have been
 * initialised with HEALTH_RESULT_INIT; its previous content is replaced.
 */
int health_judge(const cJSON *obj, struct health_result *out);

/* Release the message buffer; `r` can be reused afterwards. */
void health_result_free(struct health_result *r);

/* "Healthy", "Suspended", "Progressing", "Missing", "Degraded", "Unknown". */
const char *health_status_name(enum health_status s);

/* The worse of two statuses (see enum health_status for the order). */
enum health_status health_worst(enum health_status a, enum health_status b);

#endif
