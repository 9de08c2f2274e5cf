# tests/lib/deps.sh - sourced (bash) by tests/run-all.sh: where the test dependencies that
# come from the registries are (`make test-deps`, stack/test-deps.sh), cached in $JAXJOB_CACHE
# in directories named by the pins of stack/versions.env. Exports, each empty when missing:
#   JAXJOB_TESTDATA        upstream files: crds/, status-samples/ (the two real objects),
#                          upstream-examples/, argo-workflows/schema.json
#   JAXJOB_KFP_PYTHON      the KFP SDK the compile tests pin (KFP_COMPILE_VERSION)
#   JAXJOB_KFP_NEWEST_PYTHON  the newest KFP SDK (KFP_NEWEST)
#   JAXJOB_KFP_VERSION, JAXJOB_KFP_NEWEST_VERSION  their versions
#   JAXJOB_DEPS_WHY        the skip reason of a suite that needs a missing one: it names the
#                          one command that makes them all
# Only names are computed here: nothing is fetched or built (that is `make test-deps`).
# The directory names are stack/test-deps.sh's and stack/venv.sh's.
_deps_pins=$(cd "$JAXJOB_TOP/stack" && bash -c '. ./versions.env && echo "$TRAINING_OPERATOR_VERSION $TRAINER_VERSION $ARGO_WORKFLOWS_VERSION $KFP_COMPILE_VERSION $KFP_NEWEST $KFP_PROTOBUF"')
read -r _to _tr _aw _kfp _kfpn _pb <<<"$_deps_pins"
_cache=${JAXJOB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jaxjob}
JAXJOB_TESTDATA=$_cache/testdata-to$_to-trainer$_tr-argowf$_aw
[ -f "$JAXJOB_TESTDATA/FILES" ] || JAXJOB_TESTDATA=
JAXJOB_KFP_VERSION=$_kfp JAXJOB_KFP_NEWEST_VERSION=$_kfpn
JAXJOB_KFP_PYTHON=$_cache/venv-kfp-$_kfp-pb$_pb/bin/python
JAXJOB_KFP_NEWEST_PYTHON=$_cache/venv-kfp-$_kfpn-pb$_pb/bin/python
[ -f "${JAXJOB_KFP_PYTHON%/bin/python}/.complete" ] || JAXJOB_KFP_PYTHON=
[ -f "${JAXJOB_KFP_NEWEST_PYTHON%/bin/python}/.complete" ] || JAXJOB_KFP_NEWEST_PYTHON=
JAXJOB_DEPS_WHY="not in the cache ($_cache): run \`make test-deps\`"
export JAXJOB_TESTDATA JAXJOB_KFP_PYTHON JAXJOB_KFP_NEWEST_PYTHON JAXJOB_KFP_VERSION \
	JAXJOB_KFP_NEWEST_VERSION JAXJOB_DEPS_WHY
unset _deps_pins _to _tr _aw _kfp _kfpn _pb _cache
