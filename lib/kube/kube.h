/*
 * kube.h - the Kubernetes client in one include, for front-ends.
 *
 *   kube_config.h  where the cluster is, who we are (kubeconfig, in-cluster)
 *   kube_client.h  the client: made, configured, freed; blocking requests
 *   kube_request.h resources, paths, requests and responses (builders)
 *   kube_call.h    one request with retries, blocking or async
 *   kube_loop.h    the one event loop: run/stop, timers, signals
 *   kube_watch.h   list+watch with resume, bookmarks, 410 re-list, polling
 *   kube_log.h     follow a container log line by line
 *   kube_status.h  API Status bodies into struct err; retry/backoff policy
 *
 * Typical use (launch):
 *     struct kube_config cfg = {0};
 *     if (kube_config_load(&opts, &cfg, &e)) ...
 *     struct kube_client *c = kube_client_new(&cfg, &e);   // takes cfg over
 *     kube_create(c, &KUBE_JAXJOB, ns, job, 0, &created, &e);   // 409 → kube_get
 *     kube_watch_start(c, ...job...); kube_watch_start(c, ...pods...);
 *     kube_loop_catch_signals(c, ...); kube_timer_add(c, timeout, ...);
 *     kube_loop_run(c, &e);
 *     kube_client_free(c);
 */
#ifndef JAXJOB_KUBE_H
#define JAXJOB_KUBE_H

#include "kube_config.h"
#include "kube_client.h"
#include "kube_loop.h"
#include "kube_watch.h"
#include "kube_log.h"
#include "kube_status.h"

#endif
