/* do_token — where the DigitalOcean API token comes from (README "Point it at
 * your cluster"), first found wins:
 *   1. --do-token-file PATH;
 *   2. DIGITALOCEAN_TOKEN, 3. DIGITALOCEAN_ACCESS_TOKEN (doctl's own variable);
 *   4. doctl's config (--doctl-config, else $XDG_CONFIG_HOME/doctl/config.yaml,
 *      else ~/.config/doctl/config.yaml): the entry of the current context
 *      (DIGITALOCEAN_CONTEXT, else the file's `context`) under `auth-contexts`,
 *      or `access-token` for the context "default" or none.
 * The source is described for the log; the token never is.
 *
 * Thread rule: start-up, any thread. */
#ifndef SPOTLEDGER_DO_TOKEN_H
#define SPOTLEDGER_DO_TOKEN_H

#include <stddef.h>

#include "base/err.h"

/* *out: the token (malloc'd; free with secret_free). source: e.g.
 * "DIGITALOCEAN_TOKEN" or "doctl config '/home/a/.config/doctl/config.yaml'
 * context 'work'". ERR_NOTFOUND when no source holds one (err names them all and
 * what to run), ERR_IO/ERR_INVAL/ERR_PARSE for a given file that cannot be used. */
enum err do_token_find(const char *token_file, const char *doctl_config,
                       const char *(*getenv_fn)(const char *), char **out, char *source,
                       size_t srclen, char *err, size_t errlen);

#endif
