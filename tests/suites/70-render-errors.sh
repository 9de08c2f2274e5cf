#!/usr/bin/env bash
# 70-render-errors.sh - bad repositories and bad Argo CD input. Every case:
# exit 2, NOTHING on stdout (Argo CD would prune on an empty stream), one
# stderr line `error: FILE: job NAME: FIELD ...` naming the fix.
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"

W=$T/errors
rm -rf "$W"
mkdir -p "$W"

# fresh_repo NAME: examples/gitops copied to $W/NAME; prints the app dir
fresh_repo() {
	copy_example "$W/$1"
	echo "$W/$1/examples/gitops"
}

# bad DESCRIPTION GREP-PATTERN APP [VAR=VALUE...]
bad() {
	local desc=$1 pat=$2 app=$3
	shift 3
	cmp_render "$app" "${ARGO_ENV[@]}" "$@" --
	one_error && grep -Eq "$pat" "$T/err"
	report "$desc" $?
}

# --- one malformed file among 50 ---------------------------------------------
M=$W/fifty
mkdir -p "$M/jobs"
for i in $(seq -w 1 50); do
	printf 'name: job-%s\nimage: ghcr.io/example/jax:1\nworkers: 1\n' "$i" >"$M/jobs/job-$i.jaxjob.yaml"
done
cmp_render "$M" ARGOCD_APP_NAMESPACE=ns --
[ "$rc" -eq 0 ] && [ "$(grep -c '^kind: JAXJob$' "$T/out")" -eq 50 ]
report '50 job files render 50 jobs' $?
printf 'name: job-37\nimage: [unclosed\nworkers: 1\n' >"$M/jobs/job-37.jaxjob.yaml"
cmp_render "$M" ARGOCD_APP_NAMESPACE=ns --
one_error && grep -q '^error: jobs/job-37.jaxjob.yaml:[0-9]' "$T/err"
report 'malformed YAML in one of 50 files: nothing rendered, the error names that file and line' $?

# --- duplicates, escapes, limits ----------------------------------------------
A=$(fresh_repo dup)
printf 'name: resnet50\nimage: ghcr.io/example/jax:1\nworkers: 1\n' >"$A/nlp/resnet50.jaxjob.yaml"
cmp_render "$A" "${ARGO_ENV[@]}" --
one_error && grep -q '^error: examples/gitops/nlp/resnet50.jaxjob.yaml: job resnet50: name: resnet50 is also the name of a job in examples/gitops/vision/resnet50.jaxjob.yaml' "$T/err"
report 'two jobs with one name: error names both files' $?

A=$(fresh_repo passwd)
ln -s /etc/passwd "$A/vision/passwd.jaxjob.yaml"
bad 'a job file symlinked to /etc/passwd is refused' \
	"^error: 'examples/gitops/vision/passwd.jaxjob.yaml' is a symbolic link that leaves the repository" "$A"

A=$(fresh_repo inlink)
ln -s resnet50.jaxjob.yaml "$A/vision/alias.jaxjob.yaml"
cmp_render "$A" "${ARGO_ENV[@]}" --
one_error && grep -q 'name: resnet50 is also the name' "$T/err"
report 'a symlink inside the repository is followed (and here duplicates a job)' $?

A=$(fresh_repo dotdot)
sed -i 's#^template: .*#template: ../../../../etc/passwd#' "$A/nlp/gpt-small.jaxjob.yaml"
bad 'a ../ template climbing out of the repository is refused' \
	"^error: examples/gitops/nlp/gpt-small.jaxjob.yaml: job gpt-small: template: path '../../../../etc/passwd' leaves the repository" "$A"

A=$(fresh_repo abs)
sed -i 's#^template: .*#template: /etc/passwd#' "$A/nlp/gpt-small.jaxjob.yaml"
bad 'an absolute template path is refused' "template: path '/etc/passwd' is absolute" "$A"

A=$(fresh_repo tlink)
ln -s /etc/passwd "$A/templates/evil.yaml"
sed -i 's#^template: .*#template: ../templates/evil.yaml#' "$A/nlp/gpt-small.jaxjob.yaml"
bad 'a template symlinked out of the repository is refused' \
	"job gpt-small: template: 'examples/gitops/templates/evil.yaml' is a symbolic link that leaves the repository" "$A"

A=$(fresh_repo huge)
{ printf 'name: huge\nimage: ghcr.io/example/jax:1\nargs:\n'; yes '  - --flag=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' | head -n 60000; } >"$A/huge.jaxjob.yaml"
bad 'a huge job file (>1 MiB) is refused before parsing' \
	"^error: 'examples/gitops/huge.jaxjob.yaml' is [0-9]+ bytes, more than the limit" "$A"

E=$W/empty
mkdir -p "$E/docs" && echo 'not a job' >"$E/docs/README.md"
cmp_render "$E" ARGOCD_APP_NAMESPACE=ns --
one_error && grep -q 'no job files' "$T/err"
report 'a repository without job files is an error, not an empty success' $?

E=$W/bare-empty
mkdir -p "$E"
cmp_render "$E" ARGOCD_APP_NAMESPACE=ns --
one_error && grep -q 'no job files' "$T/err"
report 'an empty application directory is the same clear error (no file to list at all)' $?

A=$(fresh_repo emptyfile)
printf '# nothing yet\n' >"$A/wip.jaxjob.yaml"
bad 'a job file without a document is an error' 'wip.jaxjob.yaml: no job in this file' "$A"

# More jobs than render takes (RENDER_MAX_JOBS, 10,000) is a refusal of the
# input like any other: exit 2 and nothing on stdout, for the stream and for
# the parameters (issue 39: a user saw exit 1 with 2 bytes on stdout).
L=$W/over-limit
mkdir -p "$L/jobs"
/usr/bin/python3 - "$L/jobs" <<'PY'
import sys
for i in range(10001):
    with open("%s/job-%05d.jaxjob.yaml" % (sys.argv[1], i), "w") as f:
        f.write("name: job-%05d\nimage: ghcr.io/example/jax:1\n" % i)
PY
cmp_render "$L" ARGOCD_APP_NAMESPACE=ns --
one_error && grep -qxF 'error: more than 10000 jobs; split the application' "$T/err"
report '10,001 job files: exit 2, nothing on stdout, the limit named' $?
cmp_render "$L" ARGOCD_APP_NAMESPACE=ns -- --params
one_error && grep -qxF 'error: more than 10000 jobs; split the application' "$T/err"
report '10,001 job files, --params: exit 2, nothing on stdout' $?
rm -rf "$L"

# A job file's name becomes its jaxjob.dev/source-path annotation, so a name
# that is not UTF-8 is bad input: exit 2, the key named, and (sanitizer
# build) nothing leaked on the way out: LeakSanitizer's report is more
# stderr lines and exit 1 (issue 39: 128 bytes of the emitted YAML).
A=$(fresh_repo badname)
printf 'name: odd\nimage: ghcr.io/example/jax:1\n' >"$A/$(printf 'x\xff\xfe').jaxjob.yaml"
bad 'a job file whose name is not UTF-8 is one clean error' \
	'jaxjob.dev/source-path" is not valid UTF-8' "$A"

# --- job content -----------------------------------------------------------------
A=$(fresh_repo typo)
echo 'gpus-per-wrker: 2' >>"$A/vision/resnet50.jaxjob.yaml"
bad 'an unknown key says which and suggests the right one' \
	'job resnet50: gpus-per-wrker: not a job parameter; did you mean gpus-per-worker\?' "$A"

A=$(fresh_repo badval)
sed -i 's/^workers: 4$/workers: four/' "$A/vision/resnet50.jaxjob.yaml"
bad 'a wrong value names file, job and parameter' \
	'^error: examples/gitops/vision/resnet50.jaxjob.yaml: job resnet50: workers must be a whole number, got "four"' "$A"

A=$(fresh_repo longname)
sed -i 's/^name: resnet50$/name: resnet50-imagenet-baseline-with-a-rather-long-name-x/' "$A/vision/resnet50.jaxjob.yaml"
bad 'a name too long once hashed says how long it may be, or nameSuffix: none' \
	'job resnet50-imagenet-[a-z-]*-x: name: .* is too long with its -[0-9a-f]{8} hash suffix for 4 workers .*; shorten `name` to at most 45 characters or set nameSuffix: none' "$A"
sed -i 's/^name: .*$/name: resnet50-imagenet-baseline-with-a-rather-long/' "$A/vision/resnet50.jaxjob.yaml"
cmp_render "$A" "${ARGO_ENV[@]}" --
[ "$rc" -eq 0 ] && grep -Eq '^  name: resnet50-imagenet-baseline-with-a-rather-long-[0-9a-f]{8}$' "$T/out"
report 'a 45-character name fits with its hash for 4 workers' $?

A=$(fresh_repo ttl)
echo 'ttl-seconds-after-finished: 600' >>"$A/vision/resnet50.jaxjob.yaml"
bad 'ttl-seconds-after-finished is refused under GitOps (Argo CD would re-run the job)' \
	'job resnet50: ttl-seconds-after-finished: Argo CD would re-create' "$A"

A=$(fresh_repo kind)
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n' >"$A/cm.jaxjob.yaml"
bad 'other kinds in a job file are refused' 'cm.jaxjob.yaml: document 1: kind: only kubeflow.org/v1 JAXJob' "$A"

A=$(fresh_repo plainbad)
sed -i 's/replicas: 1/replicas: 0/' "$A/nlp/eval.jaxjob.yaml"
bad 'a plain JAXJob is validated too' 'job gpt-small-eval: spec.jaxReplicaSpecs.Worker.replicas must be at least 1' "$A"

A=$(fresh_repo defaults)
echo 'name: oops' >>"$A/vision/jaxjob-defaults.yaml"
bad 'defaults cannot name a job' 'vision/jaxjob-defaults.yaml: name: defaults cannot name a job' "$A"

A=$(fresh_repo unused)
sed -i 's#^template: .*#template: ../templates/checkpointed.yaml\nqueue: research#' "$A/nlp/gpt-small.jaxjob.yaml"
bad 'a parameter the repository template has no place for is an error' \
	'job gpt-small: queue is set, but examples/gitops/templates/checkpointed.yaml has no' "$A"

# --- Argo CD parameters -------------------------------------------------------
A=$(fresh_repo params)
bad 'a parameter naming no job is refused' \
	'parameter nosuch.workers: there is no job named nosuch' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"nosuch.workers","string":"2"}]'
bad 'a parameter that is not a job parameter is refused' \
	'parameter resnet50.gpu-count: gpu-count is not a parameter of job resnet50' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.gpu-count","string":"2"}]'
bad 'an array parameter given as a string is refused' \
	'parameter vit-base.args \(job vit-base in .*\): is an array parameter, given as a string; set it as array' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"vit-base.args","string":"--model=huge"}]'
bad 'a string parameter given as a map is refused' \
	'parameter resnet50.workers .*is a string parameter, given as a map' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","map":{"a":"b"}}]'
bad 'a parameter value is checked like the job file' \
	'parameter resnet50.workers .*workers must be a whole number' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","string":"many"}]'
bad 'ARGOCD_APP_PARAMETERS that is not a JSON array is refused' \
	'ARGOCD_APP_PARAMETERS is not a JSON array' "$A" 'ARGOCD_APP_PARAMETERS={"name":"x"}'
# strict: the same bounded parser as every file (issue 13)
bad 'ARGOCD_APP_PARAMETERS with data after the array is refused' \
	'ARGOCD_APP_PARAMETERS has data after its JSON array' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","string":"8"}] x'
bad 'ARGOCD_APP_PARAMETERS holding two arrays is refused' \
	'ARGOCD_APP_PARAMETERS has data after its JSON array' "$A" 'ARGOCD_APP_PARAMETERS=[] []'
bad 'a duplicate key in a parameter entry is refused, naming the parameter' \
	'parameter resnet50.workers: ARGOCD_APP_PARAMETERS:1:42: duplicate mapping key "string"' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","string":"8","string":"9"}]'
bad 'a parameter given twice is refused' \
	'parameter resnet50.workers is given twice in ARGOCD_APP_PARAMETERS; keep one' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","string":"8"},{"name":"resnet50.workers","string":"9"}]'
bad 'a \u0000 in a parameter value is refused, not a silent cut, naming the parameter' \
	'parameter resnet50.workers: ARGOCD_APP_PARAMETERS:1:38: NUL character in a scalar' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","string":"8\u0000"}]'
bad 'a \u0000 in the second entry names that entry, not the first' \
	'parameter resnet50.image: ARGOCD_APP_PARAMETERS:1:[0-9]+: NUL character in a scalar' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","string":"8"},{"string":"x\u0000","name":"resnet50.image"}]'
bad 'a misspelt value key of a parameter is refused' \
	'parameter resnet50.workers: "strng" is not a field of a parameter' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","strng":"8"}]'
bad 'a duplicate key inside a JSON array item is refused' \
	'array item:1:13: duplicate mapping key "name"' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.env","array":["{\"name\":\"A\",\"name\":\"B\"}"]}]'
cmp_render "$A" "${ARGO_ENV[@]}" 'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.env","array":["EMOJI=x\ud83d\udca5"]}]' --
[ "$rc" -eq 0 ] && grep -q "value: x$(printf '\xf0\x9f\x92\xa5')" "$T/out"
report 'a surrogate pair escape (json.dumps) in a parameter is the character' $?
bad 'a parameter aimed at a plain manifest is refused' \
	'job gpt-small-eval is a plain JAXJob manifest' "$A" \
	'ARGOCD_APP_PARAMETERS=[{"name":"gpt-small-eval.workers","string":"2"}]'
bad 'a bad ARGOCD_ENV_ value names the variable' \
	'ARGOCD_ENV_WORKERS: workers must be a whole number' "$A" ARGOCD_ENV_WORKERS=lots

# --- flags ------------------------------------------------------------------------
cmp_render "$A" -- --frobnicate
one_error && grep -qxF 'error: unknown option --frobnicate; see `jaxjob render --help`' "$T/err"
report 'an unknown flag is one clean error' $?
cmp_render "$A" -- --repo .
one_error && grep -q -- '--repo needs --revision' "$T/err"
report '--repo without --revision is refused' $?
cmp_render "$A" -- --help
[ "$rc" -eq 0 ] && grep -q 'usage: jaxjob render' "$T/out"
report '--help prints the usage on stdout' $?

exit 0
