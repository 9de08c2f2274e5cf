/*
 * digest.h - the one SHA-256-to-hex of the project (OpenSSL's EVP_Digest).
 *
 * Used for the spec hash of a manifest (jtree_sha256_hex, over canonical
 * JSON) and for launch's identity label (a prefix of it). Lower-case hex,
 * NUL-terminated. SHA-256 is always in libcrypto, so there is no failure to
 * report: a libcrypto that cannot digest aborts.
 */
#ifndef JAXJOB_DIGEST_H
#define JAXJOB_DIGEST_H

#include <stddef.h>

void digest_sha256_hex(const void *data, size_t len, char out[65]);

#endif
