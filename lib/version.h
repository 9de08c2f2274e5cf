/* version.h - the release version, stamped into --version, User-Agent and the image. */
#ifndef JAXJOB_VERSION_H
#define JAXJOB_VERSION_H
#define JAXJOB_VERSION "0.1.0"
#endif
