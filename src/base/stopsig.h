/* stopsig — the signal set-up of a daemon's main thread (spotledger's and spotsim's):
 * SIGPIPE ignored (libmicrohttpd and libcurl leave it to the program), SIGTERM and
 * SIGINT blocked, so that every thread started afterwards inherits the mask and the
 * main thread alone collects them with sigwait/sigtimedwait on the set.
 * Thread rule: the main thread, before any other thread starts. */
#ifndef SPOTLEDGER_STOPSIG_H
#define SPOTLEDGER_STOPSIG_H

#include <signal.h>

/* Sets the above up and fills *stop_set with {SIGTERM, SIGINT}. */
void stopsig_block(sigset_t *stop_set);

#endif
