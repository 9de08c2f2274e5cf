#!/usr/bin/env bash
# `jaxjob health` as scripts and Argo Workflows steps use it: multi-document
# and List input, text and JSON output, exit status = worst status, and the
# bad-input contract (exit 2, one `error:` line, nothing on stdout).
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
J=$JAXJOB_TOP/health-checks/kubeflow.org/JAXJob/testdata
TJ=$JAXJOB_TOP/health-checks/trainer.kubeflow.org/TrainJob/testdata
D=$JAXJOB_TMP/health-cli
mkdir -p "$D"

# Several documents; as kubectl prints a list (kind: List / JAXJobList).
{ cat "$J/running.yaml"; echo '---'; cat "$TJ/complete.yaml"; } >"$D/multi.yaml"
python3 - "$J" "$D" <<'PY'
import json, sys, yaml
J, D = sys.argv[1:]
def load(n):
    return yaml.safe_load(open("%s/%s" % (J, n)))
items = [load("succeeded.yaml"), load("failed-worker.yaml"), load("suspended.yaml")]
for i, o in enumerate(items):
    o["metadata"]["name"] = "job-%d" % i
yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}},
               open(D + "/list.yaml", "w"))
yaml.safe_dump({"apiVersion": "kubeflow.org/v1", "kind": "JAXJobList", "items": items[:1] + items[2:]},
               open(D + "/jaxjoblist.yaml", "w"))
json.dump(load("succeeded.yaml"), open(D + "/one.json", "w"))
ctl = load("failed-worker.yaml")
ctl["status"]["conditions"][-1]["message"] = "line one\nline two\ttabbed"
yaml.safe_dump(ctl, open(D + "/control.yaml", "w"))
PY

expect_exit 3 'two documents: worst of Progressing and Healthy is Progressing (3)' jj health -f "$D/multi.yaml"
expect 'one text line per document, namespace/name: Status: message' '
	jj health -f "$D/multi.yaml" >"$D/out"
	printf "%s\n" "research/llm-pretrain: Progressing: 2/2 workers active" \
		"research/gemma-sft: Healthy: jobset completed successfully" | diff - "$D/out"'
expect_exit 1 'a List is judged item by item; Degraded anywhere gives 1' jj health -f "$D/list.yaml"
expect 'List items each get a line, in order' '
	jj health -f "$D/list.yaml" >"$D/out"
	printf "%s\n" "research/job-0: Healthy: JAXJob research/llm-pretrain successfully completed." \
		"research/job-1: Degraded: JAXJob llm-pretrain is failed because 1 Worker replica(s) failed." \
		"research/job-2: Suspended: JAXJob llm-pretrain is suspended." | diff - "$D/out"'
expect_exit 4 'JAXJobList with Healthy and Suspended jobs: Suspended (4)' jj health -f "$D/jaxjoblist.yaml"
expect_exit 0 'JSON input on stdin, all Healthy: 0' sh -c "\"$JAXJOB\" health <\"$D/one.json\""
expect_exit 0 '-f - reads stdin' sh -c "\"$JAXJOB\" health -f - <\"$D/one.json\""
expect_exit 1 'a Degraded job: 1' jj health -f "$J/failed-no-completiontime.yaml"
expect_exit 3 'a Progressing job: 3' jj health --file "$J/restarting.yaml"
expect_exit 4 'a Suspended job: 4' jj health --file="$J/suspended.yaml"
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n---\n' >"$D/deploy.yaml"
cat "$J/failed-worker.yaml" >>"$D/deploy.yaml"
expect_exit 5 'a kind we do not judge is Unknown (5), worse than Degraded as in Argo CD' jj health -f "$D/deploy.yaml"
expect 'the Unknown line names the kind' 'jj health -f "$D/deploy.yaml" | grep -q "^shop/web: Unknown: no health check for Deployment (apiVersion apps/v1)"'
printf 'apiVersion: v1\nkind: List\nitems: []\n' >"$D/empty.yaml"
expect_exit 6 'an empty List: no objects (6)' jj health -f "$D/empty.yaml"
expect 'an empty List prints nothing on stdout, [] with -o json' '
	jj health -f "$D/empty.yaml" >"$D/out" 2>/dev/null; [ ! -s "$D/out" ] &&
	[ "$(jj health -o json -f "$D/empty.yaml" 2>/dev/null | tr -d " \n")" = "[]" ]'
expect '-o json: an array with status, message and the lifecycle flags' '
	jj health -o json -f "$D/list.yaml" >"$D/out"
	python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))
assert [x[\"status\"] for x in a] == [\"Healthy\", \"Degraded\", \"Suspended\"], a
assert [x[\"terminal\"] for x in a] == [True, True, False]
assert [(x[\"succeeded\"], x[\"failed\"], x[\"suspended\"]) for x in a] == [(True, False, False), (False, True, False), (False, False, True)]
assert a[1][\"name\"] == \"job-1\" and a[1][\"namespace\"] == \"research\" and a[1][\"kind\"] == \"JAXJob\"
" "$D/out"'
expect 'text output keeps one line per object: control characters in messages become spaces' '
	[ "$(jj health -f "$D/control.yaml")" = "research/llm-pretrain: Degraded: line one line two tabbed" ]'
expect 'JSON output keeps the message exactly' '
	jj health -o json -f "$D/control.yaml" | python3 -c "import json,sys; assert json.load(sys.stdin)[0][\"message\"] == \"line one\nline two\ttabbed\""'
expect '--help prints the usage and the exit codes on stdout' 'jj health --help | grep -q "^usage: jaxjob health" && jj health --help | grep -q "6 no objects"'
expect '`jaxjob help health` is the same help' '[ "$(jj help health)" = "$(jj health --help)" ]'

printf 'a: [\n' >"$D/bad.yaml"
expect_fail_clean 'malformed YAML: exit 2, one error line, empty stdout' jj health -f "$D/bad.yaml"
printf -- '- 1\n- 2\n' >"$D/seq.yaml"
expect_fail_clean 'a document that is not an object is bad input' jj health -f "$D/seq.yaml"
{ cat "$J/running.yaml"; printf -- '---\nmetadata: {name: x}\n'; } >"$D/nokind.yaml"
expect_fail_clean 'an object without kind is bad input, even after good ones' jj health -f "$D/nokind.yaml"
printf 'apiVersion: v1\nkind: List\nitems: {a: 1}\n' >"$D/baditems.yaml"
expect_fail_clean 'List items that are not a list are bad input' jj health -f "$D/baditems.yaml"
expect_fail_clean 'a missing file is bad input' jj health -f "$D/does-not-exist.yaml"
expect_fail_clean 'an unknown output format is a usage error' jj health -o yaml -f "$J/running.yaml"
expect_fail_clean 'an unexpected argument is a usage error' jj health "$J/running.yaml"
expect_fail_clean '-f without a value is a usage error' jj health -f
