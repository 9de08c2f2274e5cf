/*
 * tls_warm.c - see tls_warm.h.
 */
#include "tls_warm.h"

#include <pthread.h>
#include <stdlib.h>

#include <openssl/crypto.h>
#include <openssl/ssl.h>

struct tls_warm {
	pthread_t t;
};

static void *warm(void *unused)
{
	(void)unused;
	OPENSSL_init_ssl(OPENSSL_INIT_LOAD_CONFIG, NULL);	/* as libcurl asks for it */
	SSL_CTX_free(SSL_CTX_new(TLS_client_method()));
	return NULL;
}

struct tls_warm *tls_warm_start(void)
{
	struct tls_warm *w;

	/* first, and on this thread (cheap: no configuration, no algorithms):
	 * the first initialisation decides that no atexit cleanup is registered */
	if (!OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL))
		return NULL;
	w = malloc(sizeof(*w));
	if (w && pthread_create(&w->t, NULL, warm, NULL) != 0) {
		free(w);
		w = NULL;
	}
	return w;
}

void tls_warm_join(struct tls_warm *w)
{
	if (!w)
		return;
	pthread_join(w->t, NULL);
	free(w);
}
