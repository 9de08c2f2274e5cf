# stack/lib.sh: sourced by stack/*.sh and tests. Defines the cache layout of the
# real stack (issue 38) from stack/versions.env; no side effects besides variables.
# shellcheck shell=bash
STACK_DIR=${STACK_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
# shellcheck source=versions.env
. "$STACK_DIR/versions.env"
JAXJOB_CACHE=${JAXJOB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jaxjob}
STACK_ETCD_DIR=$JAXJOB_CACHE/etcd-$ETCD_VERSION
STACK_KUBE_DIR=$JAXJOB_CACHE/kube-$KUBERNETES_VERSION
STACK_TO_DIR=$JAXJOB_CACHE/training-operator-$TRAINING_OPERATOR_VERSION
STACK_KUEUE_DIR=$JAXJOB_CACHE/kueue-$KUEUE_VERSION
STACK_TRAINER_DIR=$JAXJOB_CACHE/trainer-$TRAINER_VERSION
STACK_JOBSET_DIR=$JAXJOB_CACHE/jobset-$JOBSET_VERSION
STACK_CRDS_DIR=$JAXJOB_CACHE/crds-to$TRAINING_OPERATOR_VERSION-kueue$KUEUE_VERSION-trainer$TRAINER_VERSION-jobset$JOBSET_VERSION
export JAXJOB_CACHE STACK_ETCD_DIR STACK_KUBE_DIR STACK_TO_DIR STACK_KUEUE_DIR STACK_TRAINER_DIR \
       STACK_JOBSET_DIR STACK_CRDS_DIR
