/*
 * tls_warm.h - have OpenSSL's tables ready before the first handshake.
 *
 * OpenSSL 3's first TLS context is the dearest thing on the way to a step's
 * create request: loading the configuration and fetching every cipher,
 * digest, group and signature algorithm from the default provider costs
 * ~1.5 ms once (a second context: ~0.1 ms; bench/README.md "where start ->
 * create goes"). libcurl builds its context only after the TCP connect, so
 * that time sits between the connect and the ClientHello. tls_warm_start()
 * builds and drops one context on a second thread while the caller parses
 * its options, builds the job and reads the kubeconfig; libcurl's context
 * then finds the algorithms already fetched (OpenSSL caches them per
 * library context, thread-safely).
 *
 * OpenSSL's exit-time cleanup is switched off (OPENSSL_INIT_NO_ATEXIT), so
 * an exit() while the thread runs cannot free tables under it; the kernel
 * reclaims the memory either way. Call tls_warm_join() before returning
 * from the role. Failing to start a thread is not an error: the first
 * handshake is merely slower.
 */
#ifndef JAXJOB_TLS_WARM_H
#define JAXJOB_TLS_WARM_H

struct tls_warm;

struct tls_warm *tls_warm_start(void);	/* NULL: not started (nothing to join) */
void tls_warm_join(struct tls_warm *w);	/* NULL is accepted */

#endif
