#include "base/stopsig.h"

#include <pthread.h>

void stopsig_block(sigset_t *stop_set) {
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(stop_set);
    sigaddset(stop_set, SIGTERM);
    sigaddset(stop_set, SIGINT);
    pthread_sigmask(SIG_BLOCK, stop_set, NULL);
}
