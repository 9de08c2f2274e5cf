# scripts/compare-launch-scenarios.sh - sourced by compare-launch.sh: one function sc_NAME per
# scenario of the Kubernetes API test server that a launch can meet (tests/kube-apiserver/README.md;
# taken from the suites tests/suites/60-launch-*.sh, 61-launch-trainjob.sh, 63-launch-failure.sh).
# Each starts its server (up [options]) and runs the compared launch: L (foreground) or B ... W
# (background, signalled or faulted on an event: ev REGEX waits for a stderr line, seen METHOD
# PATH for a request in the server's log). Every launch gets every --out-* flag.
# shellcheck shell=bash disable=SC2034
HANG="--image x/jax:1 --workers 2 --env SIM_HANG=1"
TJHANG="--api trainjob $HANG"

# ---- endings of a job that runs -----------------------------------------------------------
sc_succeeded() { up; L --name ok4 --image x/jax:1 --workers 4 --env SIM_LINES=3 \
	--env SIM_LATE_WORKER=3 --env SIM_LATE_DELAY=1.5 -- python train.py; }
sc_failed_exit() { up; L --name bad3 --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=1 \
	--env SIM_EXIT=3 -- python train.py; }
sc_failed_oom() { up; L --name oom --image x/jax:1 --workers 4 --env SIM_FAIL_WORKER=2 \
	--env SIM_EXIT=137 --env SIM_FAILURE=oom -- python train.py; }
sc_failed_traceback() { up; L --name tb --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=1 \
	--env SIM_EXIT=1 --env SIM_FAILURE=traceback --failure-lines 4 -- python train.py; }
sc_failed_evicted() { up; L --name ev --image x/jax:1 --workers 2 --env SIM_FAIL_WORKER=1 \
	--env SIM_EXIT=137 --env SIM_FAILURE=evict -- python train.py; }
sc_failed_cascade() { up; L --name cas --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=0 \
	--env SIM_EXIT=1 --env SIM_FAILURE=cascade --env SIM_CASCADE_DELAY=5 -- python train.py; }
sc_failed_coordination() { up; L --name crd --image x/jax:1 --workers 2 --env SIM_FAIL_WORKER=1 \
	--env SIM_EXIT=1 --env SIM_FAILURE=coordination -- python train.py; }
sc_failed_after_restart() { up; L --name rst --image x/jax:1 --workers 2 --restart-policy ExitCode \
	--env SIM_FAIL_WORKER=1 --env SIM_RESTART=1 --env SIM_EXIT=3 -- python train.py; }
sc_restart_onfailure() { up; L --name rs1 --image x/jax:1 --workers 2 --restart-policy OnFailure \
	--env SIM_RESTART=1 --env SIM_LINES=2 --timeout 60s -- python train.py; }
sc_deadline() { up; L --name dl --image x/jax:1 --workers 2 --active-deadline-seconds 1 \
	--env SIM_HANG=1 -- python train.py; }
sc_backoff() { up; L --name bo --image x/jax:1 --workers 2 --restart-policy OnFailure --backoff-limit 1 \
	--env SIM_FAIL_WORKER=1 --env SIM_RESTART=5 --env SIM_RESTART_EXIT=2 -- python train.py; }
sc_survivor() { up; L --name sur1 --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=1 \
	--env SIM_HANG_WORKER=2 --env SIM_LINES=2 --env SIM_DURATION=0.5 --log-drain 60s; }
sc_survivor_held() { # the survivor's follow held by the server until the verdict is printed
	up --fault '{"holdMatch": "/pods/sur2-worker-2/log$", "holdMethod": "GET"}'
	B --name sur2 --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=1 --env SIM_HANG_WORKER=2 \
		--env SIM_LINES=2 --env SIM_DURATION=0.5 --log-drain 60s
	ev "Failed:"; ctl POST /_test/faults '{"holdMatch": null}'; W; }

# ---- stuck: fail fast ----------------------------------------------------------------------
sc_stuck_image_pull() { up; L --name ip1 --image sim/image-pull-error:1 --workers 2 --fail-fast-after 2s; }
sc_stuck_unschedulable() { up; L --name un1 --image x/jax:1 --workers 2 --env SIM_UNSCHEDULABLE=1 \
	--fail-fast-after 2s; }
sc_stuck_service_event() { up; L --name fs1 --image x/jax:1 --workers 2 --env SIM_FAIL_SERVICE=1 \
	--fail-fast-after 2s --on-cancel leave; }
sc_stuck_service_invalid() { up; L --name fs2 --image x/jax:1 --workers 2 --env SIM_FAIL_SERVICE=invalid \
	--fail-fast-after 120s; }
sc_stuck_secret() { up; L --name sec --image x/jax:1 --workers 2 --fail-fast-after 1s \
	--env '[{"name":"HF_TOKEN","valueFrom":{"secretKeyRef":{"name":"hf-token","key":"token"}}}]' -- python train.py; }

# ---- timeout and cancel --------------------------------------------------------------------
sc_timeout() { up; L --name to1 $HANG --timeout 2s -- python t.py; }
sc_timeout_after_fail() { up; L --name tmo --image x/jax:1 --workers 1 --fail-fast-after 0 --timeout 2s \
	--env '[{"name":"HF_TOKEN","valueFrom":{"secretKeyRef":{"name":"hf-token","key":"token"}}}]' -- python train.py; }
sc_sigterm_running() { up; B --name sg1 $HANG; ev "Running:"; kill -TERM "$PID"; W; }
sc_sigint_suspend() { up; B --name sg2 $HANG --on-cancel suspend; ev "Running:"; kill -INT "$PID"; W; }
sc_sigterm_leave() { up; B --name sg3 $HANG --on-cancel leave; ev "Running:"; kill -TERM "$PID"; W; }
sc_sigterm_create() { # SIGTERM while the server holds the POST
	up --fault '{"holdMatch": "/jaxjobs$", "holdMethod": "POST"}'
	B --name sc1 $HANG; seen POST '/jaxjobs$'; kill -TERM "$PID"; ev "SIGTERM received"
	ctl POST /_test/faults '{"holdMatch": null}'; W; }
sc_sigterm_cleanup() { # a second SIGTERM while the server holds the cleanup's DELETE
	up --fault '{"holdMatch": "/jaxjobs/sd1$", "holdMethod": "DELETE"}'
	B --name sd1 $HANG; ev "Running:"; kill -TERM "$PID"; seen DELETE '/jaxjobs/sd1$'
	kill -TERM "$PID"; ev "signal received during cleanup"; ctl POST /_test/faults '{"holdMatch": null}'; W; }
sc_cleanup_conflict() { # the job changes between the look and the DELETE: 409, look again
	up --fault '{"holdMatch": "/jaxjobs/cf1$", "holdMethod": "DELETE"}'
	B --name cf1 $HANG; ev "Running:"; kill -TERM "$PID"; seen DELETE '/jaxjobs/cf1$'
	ctl PATCH $J/cf1 '{"metadata":{"annotations":{"touched":"1"}}}'
	ctl POST /_test/faults '{"holdMatch": null}'; W; }
sc_sigterm_drain() { # SIGTERM after the verdict, while worker-1's log is still awaited
	up --fault '{"holdMatch": "/pods/dr1-worker-1/log$", "holdMethod": "GET"}'
	B --name dr1 --image x/jax:1 --workers 2 --env SIM_LINES=2 --env SIM_DURATION=0.5 --log-drain 60s
	ev "Succeeded:"; kill -TERM "$PID"; ev "SIG|signal"; ctl POST /_test/faults '{"holdMatch": null}'; W; }
sc_sigterm_unseen_end() { # SIGTERM after the job finished unseen (job watch failing)
	up --fault '{"errors": {"code": 503, "count": 100000, "match": "team-a/jaxjobs$", "methods": ["GET"]}}'
	B --name sv2 --image x/jax:1 --workers 1 --env SIM_LINES=2 --env SIM_DURATION=0.5
	until_ is_state jaxjobs sv2 Created,Succeeded; ev "created JAXJob team-a/sv2"; kill -TERM "$PID"; W; }
sc_timeout_unseen_end() {
	up --fault '{"errors": {"code": 503, "count": 100000, "match": "team-a/jaxjobs$", "methods": ["GET"]}}'
	L --name sv1 --image x/jax:1 --workers 1 --env SIM_LINES=2 --env SIM_DURATION=0.5 --timeout 6s; }
sc_deleted_by_someone() { up; B --name gone --image x/jax:1 --env SIM_HANG=1; ev "Running:"
	ctl DELETE $J/gone; W; }

# ---- an unreliable API server --------------------------------------------------------------
OK3="--image x/jax:1 --workers 3 --env SIM_LINES=4 --env SIM_DURATION=2"
sc_watch_drop() { up --fault '{"watchDropAfter": 2}'; L --name wd1 $OK3; }
sc_watch_gone_410() { up --fault '{"watchGone": 3}'; L --name wg1 $OK3; }
sc_errors_503() { up --fault '{"errors": {"code": 503, "count": 4, "match": "jaxjobs"}}'; L --name e503 $OK3; }
sc_errors_500_pods() { up --fault '{"errors": {"code": 500, "count": 3, "match": "/pods"}}'; L --name e500 $OK3; }
sc_throttle_429() { up --fault '{"throttle": {"count": 2, "retryAfter": 1, "match": "jaxjobs"}}'; L --name t429 $OK3; }
sc_api_down() { up; B --name dn1 --image x/jax:1 --workers 2 --env SIM_LINES=4 --env SIM_DURATION=4
	ev "Running:"; ctl POST /_test/faults '{"down": 1.5}'; W; }
sc_api_restart() { up; B --name rs1 --image x/jax:1 --workers 2 --env SIM_LINES=4 --env SIM_DURATION=6 \
	--timeout 25s; ev "Running:"; ctl POST /_test/faults '{"restart": 1.5}'; W; }
sc_log_eof_late() { up --fault '{"logEofDelayMs": 600000}'; L --name eof1 --image x/jax:1 --workers 3 \
	--env SIM_LINES=4 --env SIM_DURATION=0.5 --log-drain 60s; }
sc_log_lagging() { up --fault '{"logEofDelayMs": 600000, "logDelayMs": 300}'; L --name tl1 --image x/jax:1 \
	--workers 1 --env SIM_LINES=3 --env SIM_DURATION=0.3 --log-drain 60s; }
sc_log_reconnect() { up --fault '{"errors": {"code": 503, "count": 6, "match": "ld1-worker-1/log"}}'
	L --name ld1 --image x/jax:1 --workers 2 --env SIM_LINES=4 --env SIM_DURATION=0.5 -- python t.py; }
sc_log_drain_out() { up --fault '{"errors": {"code": 503, "count": 1000, "match": "ld2-worker-1/log"}}'
	L --name ld2 --image x/jax:1 --workers 2 --env SIM_LINES=4 --env SIM_DURATION=0.5 --log-drain 3s -- python t.py; }
sc_operator_slow() { up --fault '{"operatorDelay": 1}'; L --name od1 --image x/jax:1 --workers 2 --env SIM_LINES=2; }

# ---- permissions and errors ----------------------------------------------------------------
sc_no_watch_polls() { up; KC=$KS/kubeconfig; sed "s|^\(    token: \).*|\1$(cat "$KS/nowatch.token")|" "$KC" >"$D/kc"
	KC=$D/kc; L --name nw1 --image x/jax:1; }
sc_no_logs() { up; sed "s|^\(    token: \).*|\1$(cat "$KS/nologs.token")|" "$KC" >"$D/kc"
	KC=$D/kc; L --name nl1 --image x/jax:1 --workers 2 --env SIM_LINES=2; }
sc_no_create_403() { up; sed "s|^\(    token: \).*|\1$(cat "$KS/nocreate.token")|" "$KC" >"$D/kc"
	KC=$D/kc; L --name f403 --image x/jax:1; }
sc_no_patch_suspend() { up; users '{"name": "nopatch", "allow": ["* *"], "deny": ["patch jaxjobs", "patch trainjobs"]}' nopatch
	KC=$D/kc-nopatch; L --name np1 --image x/jax:1 --env SIM_HANG=1 --on-cancel suspend --timeout 3s; }
sc_no_access_review() { up; users '{"name": "nossar", "allow": ["* *"], "deny": ["create selfsubjectaccessreviews", "create selfsubjectrulesreviews"]}' nossar
	KC=$D/kc-nossar; L --name ns1 --image x/jax:1 --env SIM_LINES=2; }
sc_crd_missing() { up --crds trainer.kubeflow.org; L --name nocrd --image x/jax:1 --api jaxjob; }
sc_server_dry_run() { up; L --server-dry-run -o json --name sdr1 --image x/jax:1 --workers 2; }

# ---- policies and log modes ----------------------------------------------------------------
sc_logs_first() { up; L --name first2 --image x/jax:1 --workers 2 --logs first -- python train.py; }
sc_logs_none_quiet() { up; L --name none2 --image x/jax:1 --workers 2 --logs none --quiet -- python train.py; }
sc_delete_after_success() { up; L --name del1 --image x/jax:1 --workers 1 --delete-after success -- python train.py; }
sc_delete_after_success_failed() { up; L --name del2 --image x/jax:1 --workers 1 --delete-after success \
	--env SIM_FAIL_WORKER=0 --env SIM_EXIT=1 -- python t.py; }
sc_delete_after_always() { up; L --name del3 --image x/jax:1 --workers 1 --delete-after always \
	--env SIM_FAIL_WORKER=0 --env SIM_EXIT=1 -- python t.py; }

# ---- re-attach -----------------------------------------------------------------------------
sc_reattach_argo() { # attempt 1 killed (SIGKILL, no cleanup) while running; attempt 2 compared
	up; export ARGO_WORKFLOW_NAME=train-x7k2p
	P first --name ra1 --image x/jax:1 --workers 2 --env SIM_DURATION=4 --env SIM_LINES=4
	ev "Running:" "$D/first.err"; kill -KILL "$PPID_"; { wait "$PPID_"; } 2>/dev/null
	L --name ra1 --image x/jax:1 --workers 2 --env SIM_DURATION=4 --env SIM_LINES=4; }
sc_reattach_finished() { up; P first --name idj --image x/jax:1 --identity run-42; wait "$PPID_"
	L --name idj --image x/jax:1 --identity run-42; }
sc_reattach_refused() { up; export ARGO_WORKFLOW_NAME=train-q9z3m
	P first --name held --image x/jax:1 --env SIM_HANG=1 --on-cancel leave
	ev "Running:" "$D/first.err"; kill -TERM "$PPID_"; wait "$PPID_"
	export ARGO_WORKFLOW_NAME=train-zzzzz; L --name held --image x/jax:1; }

# ---- TrainJob ------------------------------------------------------------------------------
sc_tj_succeeded() { up; L --api trainjob --name ok4 --image x/jax:1 --workers 4 --env SIM_LINES=3 \
	--env SIM_LATE_WORKER=3 --env SIM_LATE_DELAY=1.5 -- python train.py; }
sc_tj_failed() { up; L --api trainjob --name bad3 --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=1 \
	--env SIM_EXIT=3 --env SIM_FAILURE=traceback -- python train.py; }
sc_tj_delete_always() { up; L --api trainjob --name del3 --image x/jax:1 --delete-after always \
	--env SIM_FAIL_WORKER=0 -- python t.py; }
sc_tj_restart() { up; L --api trainjob --name rs1 --image x/jax:1 --workers 2 --env SIM_RESTART=1 \
	--env SIM_LINES=2 --timeout 60s -- python train.py; }
sc_tj_timeout() { up; L --name to1 $TJHANG --timeout 2s -- python t.py; }
sc_tj_sigterm() { up; B --name sg1 $TJHANG; ev "Running:"; kill -TERM "$PID"; W; }
sc_tj_sigint_suspend() { up; B --name sg2 $TJHANG --on-cancel suspend; ev "Running:"; kill -INT "$PID"; W; }
sc_tj_reattach() { up; P first --name ra1 --api trainjob --image x/jax:1 --workers 2 --env SIM_DURATION=3 \
	--identity run-7 --on-cancel leave; ev "Running:" "$D/first.err"; kill -TERM "$PPID_"; wait "$PPID_"
	L --name ra1 --api trainjob --image x/jax:1 --workers 2 --env SIM_DURATION=3 --identity run-7 -- python t.py; }
sc_tj_missing_runtime() { up; L --name rt1 --api trainjob --runtime jax-nosuch --image x/jax:1 -- python t.py; }
sc_tj_api_auto() { up --crds trainer.kubeflow.org; L --name au2 --api auto --image x/jax:1 -- python t.py; }

# ---- Kueue (tests/kueue/simkueue.py plays Kueue; each step waits for the launcher's answer) --
KQ="--image x/jax:1 --workers 2 --local-queue q --queue-progress-every 1s"
kup() { up --crds kubeflow.org,trainer.kubeflow.org,kueue.x-k8s.io; SK setup team-a q cq; }
sc_kueue_admitted() { kup; B --name qa $KQ --env SIM_LINES=3 --timeout 2s; SK hold team-a JAXJob qa q
	ev "queued ([3-9]|[1-9][0-9])s in team-a/q"; SK admit team-a JAXJob qa cq; W; }
sc_kueue_queue_timeout() { kup; B --name qt $KQ --queue-timeout 2s; SK hold team-a JAXJob qt q; W; }
sc_kueue_preempted() { kup; B --name pr $KQ --env SIM_LINES=6 --env SIM_DURATION=3 --timeout 60s
	SK hold team-a JAXJob pr q; ev "queued [0-9]+s in team-a/q"; SK admit team-a JAXJob pr cq
	ev '^\[worker-0\] step 1/6' "$D/out"; SK preempt team-a JAXJob pr
	ev "queued [0-9]+s in team-a/q \([0-9ms]+ in all\): Preempted \(InClusterQueue\): "; SK admit team-a JAXJob pr cq; W; }
sc_kueue_trainjob() { kup; B --api trainjob --name tq --image x/jax:1 --workers 2 --env SIM_LINES=2 \
	--local-queue q --timeout 2s --queue-progress-every 1s; SK hold team-a TrainJob tq q
	ev "queued ([3-9]|[1-9][0-9])s in team-a/q"; SK admit team-a TrainJob tq cq; W; }
sc_kueue_stuck_after() { kup; B --name ff --image sim/image-pull-error:1 --workers 1 --local-queue q \
	--queue-progress-every 1s --fail-fast-after 2s; SK hold team-a JAXJob ff q
	ev "queued ([3-9]|[1-9][0-9])s in team-a/q"; SK admit team-a JAXJob ff cq; W; }
sc_kueue_inadmissible() { kup; B --name hx $KQ --queue-hopeless-after 2s; SK hold team-a JAXJob hx q
	SK pending team-a JAXJob hx ExceedsMaxQuota "couldn't assign flavors to pod set worker: insufficient quota for cpu in flavor default-flavor, request > maximum capacity (24 > 8)"; W; }
sc_kueue_suspended_queue() { kup; B --name hs $KQ --queue-hopeless-after 1s --queue-timeout 4s
	SK hold team-a JAXJob hs q; SK pending team-a JAXJob hs Suspended "LocalQueue q is stopped"; W; }
sc_kueue_missing_queue() { kup; L --name lq --image x/jax:1 --local-queue nosuch; }
sc_kueue_sigterm_queued() { kup; B --name qs $KQ --env SIM_LINES=2; SK hold team-a JAXJob qs q
	ev "queued [0-9]+s in team-a/q"; kill -TERM "$PID"; W; }
sc_kueue_no_workload_read() { kup; users '{"name": "nowl", "allow": ["* *"], "deny": ["* workloads"]}' nowl
	KC=$D/kc-nowl; B --name nw $KQ --env SIM_LINES=2; SK hold team-a JAXJob nw q
	ev "queued in team-a/q: waiting for Kueue to admit it"; SK admit team-a JAXJob nw cq; W; }

# ---- --outcome outputs, --delete-timeout, metrics ------------------------------------------
sc_outcome_outputs_failed() { up; L --name oo1 --outcome outputs --image x/jax:1 --workers 2 \
	--env SIM_FAIL_WORKER=1 --env SIM_EXIT=3 -- python t.py; }
sc_outcome_outputs_timeout() { up; L --name oo2 --outcome outputs $HANG --timeout 2s; }
sc_outcome_outputs_deleted() { up; B --name oo3 --outcome outputs --image x/jax:1 --env SIM_HANG=1
	ev "Running:"; ctl DELETE $J/oo3; W; }
sc_outcome_outputs_stuck() { up; L --name oo4 --outcome outputs --image sim/image-pull-error:1 --fail-fast-after 1s; }
sc_delete_timeout() { # the cleanup's DELETE is held by the server past --delete-timeout
	up --fault '{"holdMatch": "/jaxjobs/dt1$", "holdMethod": "DELETE"}'
	L --name dt1 $HANG --timeout 2s --delete-timeout 2s; }
sc_metrics_patterns() { up; L --name mp1 --image x/jax:1 --workers 2 --env SIM_LINES=5 --metrics patterns \
	--metric 'l2=loss=([0-9.]+)' --total-steps 10; }
sc_metrics_none() { up; L --name mn1 --image x/jax:1 --workers 2 --env SIM_LINES=3 --metrics none; }
sc_kueue_deleted_queued() { kup; B --name qd $KQ --env SIM_LINES=2; SK hold team-a JAXJob qd q
	ev "queued [0-9]+s in team-a/q"; ctl DELETE $J/qd; W; }
sc_kueue_timeout_after_admit() { kup; B --name qm $KQ --env SIM_HANG=1 --timeout 2s; SK hold team-a JAXJob qm q
	ev "queued [0-9]+s in team-a/q"; SK admit team-a JAXJob qm cq; W; }
