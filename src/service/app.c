#include "service/app.h"

#include <errno.h>
#include <time.h>

#include "service/config.h"
#include "base/timeutil.h"

void app_init(struct app *app) {
    pthread_mutex_init(&app->writer_lock, NULL);
    pthread_mutex_init(&app->wake_lock, NULL);
    /* CLOCK_MONOTONIC: a wall-clock jump must not cut or stretch a poll interval */
    timeutil_mono_cond_init(&app->wake_cond);
    app->wake_gen = 0;
    app->stopping = false;
    metrics_cache_init(&app->metrics);
    respcache_init(&app->responses);
}

void app_use_config(struct app *app, const struct config *cfg) {
    app->cfg = cfg;
    app->calc = (struct calc_settings){
        .default_configuration = cfg->default_configuration,
        .on_demand_sizes = cfg->on_demand_sizes,
        .n_on_demand_sizes = (size_t)cfg->n_on_demand_sizes,
        .spot_labels = cfg->spot_labels,
        .n_spot_labels = (size_t)cfg->n_spot_labels,
    };
}

void app_release(struct app *app) {
    metrics_cache_release(&app->metrics);
    respcache_release(&app->responses);
    pthread_cond_destroy(&app->wake_cond);
    pthread_mutex_destroy(&app->wake_lock);
    pthread_mutex_destroy(&app->writer_lock);
}

bool app_wait(struct app *app, long ms, uint64_t *seen_gen) {
    struct timespec until = timeutil_mono_deadline(ms);
    bool woken = false;
    pthread_mutex_lock(&app->wake_lock);
    for (;;) {
        if (app->stopping || app->wake_gen != *seen_gen) {
            woken = true;
            break;
        }
        if (pthread_cond_timedwait(&app->wake_cond, &app->wake_lock, &until) == ETIMEDOUT)
            break;
    }
    *seen_gen = app->wake_gen;
    pthread_mutex_unlock(&app->wake_lock);
    return woken;
}

void app_add_waker(struct app *app, void (*fn)(void *ctx), void *ctx) {
    if (app->n_wakers < APP_MAX_WAKERS) {
        app->wakers[app->n_wakers] = fn;
        app->waker_ctx[app->n_wakers] = ctx;
        app->n_wakers++;
    }
}

void app_wake(struct app *app) {
    pthread_mutex_lock(&app->wake_lock);
    app->wake_gen++;
    pthread_cond_broadcast(&app->wake_cond);
    pthread_mutex_unlock(&app->wake_lock);
    for (int i = 0; i < app->n_wakers; i++)
        app->wakers[i](app->waker_ctx[i]);
}

void app_stop(struct app *app) {
    pthread_mutex_lock(&app->wake_lock);
    app->stopping = true;
    pthread_cond_broadcast(&app->wake_cond);
    pthread_mutex_unlock(&app->wake_lock);
}

bool app_stopping(struct app *app) {
    pthread_mutex_lock(&app->wake_lock);
    bool s = app->stopping;
    pthread_mutex_unlock(&app->wake_lock);
    return s;
}
