/*
 * k8sname.h - the syntax of Kubernetes names, label keys and values, as the
 * API server checks them (apimachinery's validation.IsDNS1035Label,
 * IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue).
 *
 * We check these before anything reaches a cluster so that a typo gets a
 * precise one-line error from us rather than a 422 from the API server after
 * a workflow step has already started.
 *
 * Each checker returns 0 when `s` is valid, or -1 with `e` set to a message
 * that names `what` (the field or parameter), quotes the value and says what
 * would be accepted. No allocation, no state.
 */
#ifndef JAXJOB_K8SNAME_H
#define JAXJOB_K8SNAME_H

#include "err.h"

#define K8S_LABEL_MAX 63	/* DNS labels, label values, qualified-name names */
#define K8S_SUBDOMAIN_MAX 253

/* [a-z]([-a-z0-9]*[a-z0-9])?, at most 63: Service names, JAXJob names. */
int k8s_check_dns1035(const char *what, const char *s, struct err *e);
/* [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63: namespaces. */
int k8s_check_dns1123_label(const char *what, const char *s, struct err *e);
/* dot-separated DNS-1123 labels, at most 253: service accounts, secrets, ... */
int k8s_check_subdomain(const char *what, const char *s, struct err *e);
/* [prefix/]name: label and annotation keys, extended resource names. */
int k8s_check_qualified_name(const char *what, const char *s, struct err *e);
/* empty, or at most 63 of [A-Za-z0-9_.-] starting and ending alphanumeric. */
int k8s_check_label_value(const char *what, const char *s, struct err *e);

#endif
